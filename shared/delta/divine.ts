/**
 * Divination (docs/delta-updates.md, "Making"): the first pako 2.1.0 setting, in the contract's
 * order, whose raw deflate of an entry's uncompressed bytes is exactly the entry's compressed
 * bytes. Each try streams pako's output against the expected bytes and is abandoned at its first
 * differing byte, so a wrong setting costs about one deflate block. Null when no setting
 * reproduces the entry: it then stays compressed in the patch (whole-file bsdiff over it).
 */
import type { DeflateParams } from '../../device-client/protocol/delta/format2';
import { rawDeflater } from '../../device-client/protocol/delta/recompressor';

/** memLevel 8 then 9, windowBits 15; strategy 0 then 1-4; level 6, 9, 1-5, 7, 8 (never 0). */
export const DIVINATION_ORDER: readonly DeflateParams[] = [8, 9].flatMap((memLevel) =>
  [0, 1, 2, 3, 4].flatMap((strategy) =>
    [6, 9, 1, 2, 3, 4, 5, 7, 8].map((level) => ({ level, strategy, memLevel, windowBits: 15 })),
  ),
);

/** Input fed to pako at once between comparisons. */
const PIECE = 16 * 1024;

class Mismatch extends Error {}

/** Whether `params` deflate `inflated` to exactly `compressed`, compared as pako writes. */
export function reproduces(
  params: DeflateParams,
  inflated: Uint8Array,
  compressed: Uint8Array,
): boolean {
  let at = 0;
  const deflater = rawDeflater(
    params,
    (chunk) => {
      if (at + chunk.length > compressed.length) throw new Mismatch();
      for (let i = 0; i < chunk.length; i++) {
        if (chunk[i] !== compressed[at + i]) throw new Mismatch();
      }
      at += chunk.length;
    },
    4096,
  );
  try {
    for (let i = 0; i < inflated.length; i += PIECE) {
      deflater.push(inflated.subarray(i, Math.min(i + PIECE, inflated.length)), false);
    }
    deflater.push(new Uint8Array(0), true);
  } catch (err) {
    if (err instanceof Mismatch) return false;
    throw err;
  }
  return at === compressed.length;
}

/** The first setting of the contract's order that reproduces the entry, or null. */
export function divine(inflated: Uint8Array, compressed: Uint8Array): DeflateParams | null {
  return DIVINATION_ORDER.find((p) => reproduces(p, inflated, compressed)) ?? null;
}
