/**
 * Divination (docs/delta-updates.md, "Making"): the first pako 2.1.0 setting, in the contract's
 * order, whose raw deflate of an entry's uncompressed bytes is exactly the entry's compressed
 * bytes. Each try streams pako's output against the expected bytes and is abandoned at its first
 * differing byte, so a wrong setting costs about one deflate block. Null when no setting
 * reproduces the entry: it then stays compressed in the patch (whole-file bsdiff over it).
 */
import type { DeflateParams } from '../../device-client/protocol/delta/format2';
import { rawDeflater } from '../../device-client/protocol/delta/recompressor';

/**
 * memLevel 8 then 9, windowBits 15; strategy 0 then 1-3; level 6, 9, 1-5, 7, 8. Never level 0 nor
 * strategy 4 (fixed): there pako 2.1.0 and zlib 1.2.13, the devices' deflater, can differ (pako
 * weighs a fixed-code block against the dynamic trees' size), so pako reproducing an entry would
 * not mean a device does.
 */
export const DIVINATION_ORDER: readonly DeflateParams[] = [8, 9].flatMap((memLevel) =>
  [0, 1, 2, 3].flatMap((strategy) =>
    [6, 9, 1, 2, 3, 4, 5, 7, 8].map((level) => ({ level, strategy, memLevel, windowBits: 15 })),
  ),
);

/** Input fed to pako at once between comparisons. */
const PIECE = 16 * 1024;

/** Whether `params` deflate `inflated` to exactly `compressed`, compared as pako writes. */
export function reproduces(
  params: DeflateParams,
  inflated: Uint8Array,
  compressed: Uint8Array,
): boolean {
  let at = 0;
  let differs = false;
  const deflater = rawDeflater(
    params,
    (chunk) => {
      if (differs) return;
      differs =
        at + chunk.length > compressed.length ||
        chunk.some((byte, i) => byte !== compressed[at + i]);
      at += chunk.length;
    },
    4096,
  );
  // Input goes in 16 KiB pieces; once an output chunk differed, no more is fed.
  for (let i = 0; i < inflated.length && !differs; i += PIECE) {
    deflater.push(inflated.subarray(i, Math.min(i + PIECE, inflated.length)), false);
  }
  if (!differs) deflater.push(new Uint8Array(0), true);
  return !differs && at === compressed.length;
}

/** The first setting of the contract's order that reproduces the entry, or null. */
export function divine(inflated: Uint8Array, compressed: Uint8Array): DeflateParams | null {
  return DIVINATION_ORDER.find((p) => reproduces(p, inflated, compressed)) ?? null;
}
