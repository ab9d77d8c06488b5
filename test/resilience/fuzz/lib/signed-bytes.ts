/**
 * The oracle of the signature verifier's fuzz, carried over from
 * test/integration/apk/mutated-apks.test.ts: an APK that apksigner accepts with a v2 or v3
 * signature has every byte outside its APK Signing Block under that signature's digests (entries,
 * central directory, end record), so an input made from it that changed one of those bytes must
 * be refused, whatever the verifier's design. Changes inside the block (re-signed, resized or
 * removed; the end record's central-directory offset then moves with it) are not judged here.
 */
import type { Seed } from './corpus';

/** APK Signature Scheme v2 and v3 block IDs (source.android.com, APK signing). */
const V2_ID = 0x7109871a;
const V3_ID = 0xf05368c0;

export interface SignedBase {
  readonly name: string;
  readonly bytes: Buffer;
  /** [start, end) of the APK Signing Block. */
  readonly block: readonly [number, number];
  /** Offset of the end record's central-directory offset field. */
  readonly cdOffsetField: number;
}

/** IDs of the ID-value pairs of the signing block at [start, end), as the format lays them out. */
function pairIds(apk: Buffer, start: number, end: number): number[] {
  const ids: number[] = [];
  // size (u64), pairs, size (u64), magic (16 bytes)
  for (let at = start + 8; at + 12 <= end - 24;) {
    const length = Number(apk.readBigUInt64LE(at));
    if (length < 4 || at + 8 + length > end - 24) break;
    ids.push(apk.readUInt32LE(at + 8));
    at += 8 + length;
  }
  return ids;
}

/** The seed as a base the oracle holds to, or null when apksigner's verdict does not cover it. */
export function signedBase(seed: Seed): SignedBase | null {
  const sb = seed.layout?.signingBlock;
  if (seed.apksigner !== 'ACCEPT' || !sb || !seed.layout) return null;
  const block = [sb.offset, sb.offset + sb.size] as const;
  const ids = pairIds(seed.bytes, ...block);
  if (!ids.includes(V2_ID) && !ids.includes(V3_ID)) return null;
  return { name: seed.name, bytes: seed.bytes, block, cdOffsetField: seed.layout.eocdOffset + 16 };
}

/**
 * The first offset (in the input) of a byte changed outside the signing block, or null when the
 * input is the base with only its block changed. A cut or grown input that cannot be read that
 * way counts as changed.
 */
export function changedOutsideBlock(input: Buffer, base: SignedBase): number | null {
  const [start, end] = base.block;
  const tail = base.bytes.length - end;
  const newEnd = input.length - tail;
  for (let i = 0; i < Math.min(start, input.length); i++) {
    if (input[i] !== base.bytes[i]) return i;
  }
  if (newEnd < start) return Math.min(start, input.length);
  // The end record's central-directory offset follows the block's end (checked last), unless
  // it is not the block's end in the base (ZIP64), where it must not change at all.
  const moves = base.bytes.readUInt32LE(base.cdOffsetField) === end;
  const field = base.cdOffsetField - end + newEnd;
  for (let i = 0; i < tail; i++) {
    if (moves && newEnd + i >= field && newEnd + i < field + 4) continue;
    if (input[newEnd + i] !== base.bytes[end + i]) return newEnd + i;
  }
  return !moves || input.readUInt32LE(field) === newEnd ? null : field;
}
