/**
 * The ARDELTA2 framing (docs/delta-updates.md, "ARDELTA2"): the magic, the final file's size, the
 * old file's deflated ranges (inflated into dfOld), dfNew's ranges with the deflate settings that
 * recompress them, and dfNew's size; ARDELTA1's records follow (format.ts). Reading the plan
 * refuses every breach of its limits as `plan`, before a byte of output is written, so a bad
 * plan never costs the device a temp file.
 */
import type { ByteStream } from './byte-stream';
import { DeltaPatchError } from './format';

/** `ARDELTA2` in ASCII. */
export const DELTA2_MAGIC = Uint8Array.of(0x41, 0x52, 0x44, 0x45, 0x4c, 0x54, 0x41, 0x32);

/** A deflated range of the old file: raw deflate data that inflates to `inflatedLength` bytes. */
export interface OldRange {
  readonly offset: number;
  readonly length: number;
  readonly inflatedLength: number;
}

/** zlib's deflate parameters (strategy 0 default, 1 filtered, 2 huffman-only, 3 rle, 4 fixed). */
export interface DeflateParams {
  readonly level: number;
  readonly strategy: number;
  readonly memLevel: number;
  readonly windowBits: number;
}

/** A range of dfNew that the final file holds deflated with `params`. */
export interface NewRange extends DeflateParams {
  readonly offset: number;
  readonly inflatedLength: number;
}

export interface Delta2Plan {
  readonly newSize: number;
  readonly oldRanges: readonly OldRange[];
  readonly newRanges: readonly NewRange[];
  readonly dfNewSize: number;
}

/** Most ranges of either kind. */
export const MAX_RANGES = 65_535;

/** Largest inflated length of a range. */
export const MAX_INFLATED = 2 ** 31;

const OLD_RANGE_BYTES = 24;
const NEW_RANGE_BYTES = 20;

/** The plan's bytes: everything before the records. */
export function encodePlan(plan: Delta2Plan): Uint8Array {
  const size =
    8 +
    8 +
    4 +
    plan.oldRanges.length * OLD_RANGE_BYTES +
    4 +
    plan.newRanges.length * NEW_RANGE_BYTES +
    8;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  bytes.set(DELTA2_MAGIC, 0);
  view.setBigUint64(8, BigInt(plan.newSize));
  let at = 16;
  view.setUint32(at, plan.oldRanges.length);
  at += 4;
  for (const r of plan.oldRanges) {
    view.setBigUint64(at, BigInt(r.offset));
    view.setBigUint64(at + 8, BigInt(r.length));
    view.setBigUint64(at + 16, BigInt(r.inflatedLength));
    at += OLD_RANGE_BYTES;
  }
  view.setUint32(at, plan.newRanges.length);
  at += 4;
  for (const r of plan.newRanges) {
    view.setBigUint64(at, BigInt(r.offset));
    view.setBigUint64(at + 8, BigInt(r.inflatedLength));
    bytes.set([r.level, r.strategy, r.memLevel, r.windowBits], at + 16);
    at += NEW_RANGE_BYTES;
  }
  view.setBigUint64(at, BigInt(plan.dfNewSize));
  return bytes;
}

const planError = (message: string) => new DeltaPatchError('plan', message);

async function field(patch: ByteStream, size: number): Promise<DataView> {
  const read = await patch.exactly(size);
  if (read.got < size) throw new DeltaPatchError('truncated', 'the patch ends inside its plan');
  return new DataView(read.bytes.buffer);
}

/** A u64 as a number; beyond any file is a bad plan. */
function u64(view: DataView, at: number): number {
  const value = view.getBigUint64(at);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw planError('a range is beyond any file');
  return Number(value);
}

async function count(patch: ByteStream): Promise<number> {
  const n = (await field(patch, 4)).getUint32(0);
  if (n > MAX_RANGES) throw planError(`${n} ranges (at most ${MAX_RANGES})`);
  return n;
}

/** Whether the parameters are in the format's sets (level 0 is never used). */
export function paramsValid(p: DeflateParams): boolean {
  const within = (v: number, lo: number, hi: number) => v >= lo && v <= hi;
  return (
    within(p.level, 1, 9) &&
    within(p.strategy, 0, 4) &&
    within(p.memLevel, 1, 9) &&
    within(p.windowBits, 9, 15)
  );
}

/** Strictly after the previous range's start, and not before its end. */
function follows(ranges: ReadonlyArray<{ offset: number }>, offset: number, end: number): boolean {
  const previous = ranges[ranges.length - 1];
  return previous === undefined || (offset >= end && offset > previous.offset);
}

async function readOldRanges(patch: ByteStream, oldSize: number): Promise<OldRange[]> {
  const ranges: OldRange[] = [];
  let end = 0;
  for (let i = await count(patch); i > 0; i--) {
    const view = await field(patch, OLD_RANGE_BYTES);
    const r = { offset: u64(view, 0), length: u64(view, 8), inflatedLength: u64(view, 16) };
    if (!follows(ranges, r.offset, end)) throw planError('old ranges overlap or go backwards');
    if (r.offset + r.length > oldSize) throw planError('an old range is outside the old file');
    if (r.inflatedLength > MAX_INFLATED) throw planError('an old range inflates past 2^31 bytes');
    end = r.offset + r.length;
    ranges.push(r);
  }
  return ranges;
}

async function readNewRanges(patch: ByteStream): Promise<NewRange[]> {
  const ranges: NewRange[] = [];
  let end = 0;
  for (let i = await count(patch); i > 0; i--) {
    const view = await field(patch, NEW_RANGE_BYTES);
    const r: NewRange = {
      offset: u64(view, 0),
      inflatedLength: u64(view, 8),
      level: view.getUint8(16),
      strategy: view.getUint8(17),
      memLevel: view.getUint8(18),
      windowBits: view.getUint8(19),
    };
    if (!follows(ranges, r.offset, end)) throw planError('new ranges overlap or go backwards');
    if (r.inflatedLength > MAX_INFLATED) throw planError('a new range is longer than 2^31 bytes');
    if (!paramsValid(r)) throw planError('a new range has deflate parameters outside the format');
    end = r.offset + r.inflatedLength;
    ranges.push(r);
  }
  return ranges;
}

/** Reads and checks the plan that opens an inflated ARDELTA2 patch. */
export async function readPlan(patch: ByteStream, oldSize: number): Promise<Delta2Plan> {
  const head = await patch.exactly(16);
  if (head.got < 16) throw new DeltaPatchError('truncated', 'no patch header');
  for (let i = 0; i < DELTA2_MAGIC.length; i++) {
    if (head.bytes[i] !== DELTA2_MAGIC[i]) {
      throw new DeltaPatchError('magic', 'not an ARDELTA2 patch');
    }
  }
  const announced = new DataView(head.bytes.buffer).getBigUint64(8);
  if (announced > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new DeltaPatchError('overrun', 'the new size is beyond any file');
  }
  const oldRanges = await readOldRanges(patch, oldSize);
  const newRanges = await readNewRanges(patch);
  const dfNewSize = u64(await field(patch, 8), 0);
  const last = newRanges[newRanges.length - 1];
  if (last !== undefined && last.offset + last.inflatedLength > dfNewSize) {
    throw planError('a new range ends past dfNew');
  }
  return { newSize: Number(announced), oldRanges, newRanges, dfNewSize };
}
