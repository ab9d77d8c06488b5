/**
 * Builds ARDELTA2's dfOld (format2.ts) into the device's scratch file: the old file read in order,
 * copied outside the plan's old ranges, each range inflated by pako (raw deflate) as it streams.
 * A range that is not a deflate stream, does not end exactly at its end, or does not inflate to
 * exactly its announced length is a bad plan (`plan`): the server promised it did.
 */
import { Inflate } from 'pako';
import type { OldFile } from './apply-patch';
import { DeltaPatchError } from './format';
import type { OldRange } from './format2';

/** Where dfOld is written, then read by position (a private temp file on a device). */
export interface Scratch {
  append(chunk: Uint8Array): Promise<void>;
  /** The appended bytes, by position; called once, after the last append. */
  finish(): Promise<OldFile>;
}

/** Input fed to the inflater at once: bounds the output one push can make (~1,032x). */
const PIECE = 16 * 1024;

async function copy(old: OldFile, from: number, to: number, scratch: Scratch): Promise<void> {
  for (let at = from; at < to; at += 64 * 1024) {
    await scratch.append(await old.read(at, Math.min(64 * 1024, to - at)));
  }
}

/** pako's stream fields its typings leave out: whether the stream ended, and unread input. */
interface PakoState {
  readonly ended: boolean;
  readonly strm: { readonly avail_in: number };
}

const planError = (message: string) => new DeltaPatchError('plan', message);

/** Inflates one old range into the scratch file, checking its promises. */
async function inflateRange(old: OldFile, range: OldRange, scratch: Scratch): Promise<void> {
  const inflater = new Inflate({ raw: true, chunkSize: 64 * 1024 }) as Inflate & PakoState;
  let out: Uint8Array[] = [];
  let produced = 0;
  inflater.onData = (chunk) => {
    produced += (chunk as Uint8Array).length;
    out.push((chunk as Uint8Array).slice());
  };
  const end = range.offset + range.length;
  for (let at = range.offset; at < end; at += PIECE) {
    if (inflater.ended) throw planError('an old range ends before its end');
    inflater.push(await old.read(at, Math.min(PIECE, end - at)), false);
    if ((inflater.err as number) !== 0) throw planError('an old range is not a deflate stream');
    if (produced > range.inflatedLength) throw planError('an old range inflates past its length');
    for (const chunk of out) await scratch.append(chunk);
    out = [];
  }
  if (!inflater.ended || inflater.strm.avail_in !== 0) {
    throw planError('an old range does not end exactly at its end');
  }
  if (produced !== range.inflatedLength) throw planError('an old range inflates short');
}

/** Writes dfOld for `old` and the plan's ranges into `scratch`; dfOld by position. */
export async function buildDfOld(
  old: OldFile,
  ranges: readonly OldRange[],
  scratch: Scratch,
): Promise<OldFile> {
  let at = 0;
  for (const range of ranges) {
    await copy(old, at, range.offset, scratch);
    await inflateRange(old, range, scratch);
    at = range.offset + range.length;
  }
  await copy(old, at, old.size, scratch);
  return scratch.finish();
}
