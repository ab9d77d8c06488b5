/**
 * Applies an inflated ARDELTA1 patch (format.ts) as a stream: the old file is read by random
 * access through `OldFile`, the new file is written in order through `write`, and every written
 * chunk also goes to the hashers (the caller's MD5 and SHA-256), so neither file is ever held in
 * memory. Any breach of the format is a `DeltaPatchError`; what was written by then is the
 * caller's to delete. Used by the server to prove a patch before publishing it and by the TS
 * device client; the Java core implements the same rules.
 */
import { ByteStream } from './byte-stream';
import {
  decodeHeader,
  decodeRecordHeader,
  DeltaPatchError,
  HEADER_BYTES,
  OLD_POS_LIMIT,
  RECORD_HEADER_BYTES,
} from './format';

/** The installed file, read by position. */
export interface OldFile {
  readonly size: number;
  /** Exactly `length` bytes at `position`, both inside [0, size). */
  read(position: number, length: number): Promise<Uint8Array>;
}

export interface ApplyTarget {
  write(chunk: Uint8Array): Promise<void>;
  /** Each written chunk is passed to every hasher, in order. */
  readonly hashers?: ReadonlyArray<{ update(chunk: Uint8Array): void }>;
}

/** How much of the diff or extra bytes is handled at once. */
const PIECE = 64 * 1024;

interface Cursor {
  newPos: number;
  oldPos: bigint;
  readonly newSize: number;
}

/** The old bytes at [oldPos, oldPos + length), zeros where outside the file (bsdiff's rule). */
async function oldBytes(old: OldFile, oldPos: bigint, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  const size = BigInt(old.size);
  const from = oldPos < 0n ? 0n : oldPos;
  const to = oldPos + BigInt(length) > size ? size : oldPos + BigInt(length);
  if (from < to) {
    const bytes = await old.read(Number(from), Number(to - from));
    out.set(bytes, Number(from - oldPos));
  }
  return out;
}

async function emit(target: ApplyTarget, chunk: Uint8Array): Promise<void> {
  for (const hasher of target.hashers ?? []) hasher.update(chunk);
  await target.write(chunk);
}

/** Copies `length` bytes of the patch into the output, added to the old bytes when `diff`. */
async function copyBytes(
  patch: ByteStream,
  length: number,
  diff: boolean,
  deps: { old: OldFile; target: ApplyTarget; at: Cursor },
): Promise<void> {
  let left = length;
  while (left > 0) {
    const piece = await patch.upTo(Math.min(left, PIECE));
    if (piece === null) throw new DeltaPatchError('truncated', 'the patch ends inside a record');
    const out = new Uint8Array(piece);
    if (diff) {
      const old = await oldBytes(deps.old, deps.at.oldPos, piece.length);
      for (let i = 0; i < out.length; i++) out[i] = (out[i]! + old[i]!) & 0xff;
      deps.at.oldPos += BigInt(piece.length);
    }
    await emit(deps.target, out);
    deps.at.newPos += piece.length;
    left -= piece.length;
  }
}

async function applyRecord(
  patch: ByteStream,
  deps: { old: OldFile; target: ApplyTarget; at: Cursor },
): Promise<void> {
  const head = await patch.exactly(RECORD_HEADER_BYTES);
  if (head.got < RECORD_HEADER_BYTES) {
    throw new DeltaPatchError('truncated', 'the patch ends before the new file is complete');
  }
  const record = decodeRecordHeader(head.bytes);
  const room = BigInt(deps.at.newSize - deps.at.newPos);
  if (record.diffLen > room || record.extraLen > room - record.diffLen) {
    throw new DeltaPatchError('overrun', 'a record writes past the new size');
  }
  await copyBytes(patch, Number(record.diffLen), true, deps);
  await copyBytes(patch, Number(record.extraLen), false, deps);
  deps.at.oldPos += record.seek;
  if (deps.at.oldPos < -OLD_POS_LIMIT || deps.at.oldPos > OLD_POS_LIMIT) {
    throw new DeltaPatchError('seek', 'a record seeks too far in the old file');
  }
}

/**
 * Applies the records that follow a header (ARDELTA1's, and ARDELTA2's over dfOld) until
 * `newSize` bytes are written, then refuses anything left in the patch.
 */
export async function applyRecords(
  patch: ByteStream,
  old: OldFile,
  target: ApplyTarget,
  newSize: number,
): Promise<void> {
  const at: Cursor = { newPos: 0, oldPos: 0n, newSize };
  while (at.newPos < at.newSize) await applyRecord(patch, { old, target, at });
  if (await patch.hasMore()) throw new DeltaPatchError('trailing', 'bytes follow the last record');
}

/** Applies `inflated` (the patch's zlib stream already inflated) to `old`; returns the new size. */
export async function applyPatch(
  inflated: AsyncIterable<Uint8Array>,
  old: OldFile,
  target: ApplyTarget,
): Promise<number> {
  const patch = new ByteStream(inflated);
  try {
    const header = await patch.exactly(HEADER_BYTES);
    if (header.got < HEADER_BYTES) throw new DeltaPatchError('truncated', 'no patch header');
    const announced = decodeHeader(header.bytes);
    if (announced > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new DeltaPatchError('overrun', 'the new size is beyond any file');
    }
    await applyRecords(patch, old, target, Number(announced));
    return Number(announced);
  } finally {
    await patch.close();
  }
}
