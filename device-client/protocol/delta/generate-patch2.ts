/**
 * Writes an ARDELTA2 patch (format2.ts, before its zlib wrapping) from the old and new files and
 * the server's choice of ranges: the old file's deflated entries to inflate (dfOld) and the new
 * file's deflated entries with the settings that recompress them exactly (dfNew). The records are
 * ARDELTA1's bsdiff over dfOld and dfNew (generate-patch.ts). Which ranges qualify is the
 * server's decision (shared/delta/); this layer only frames them, so the format has one home.
 */
import { inflateRaw } from 'pako';
import type { DeflateParams, NewRange, OldRange } from './format2';
import { encodePlan } from './format2';
import { generateRecords } from './generate-patch';

/** A deflated range of a file: where its compressed bytes are. */
export interface DeflatedSpan {
  readonly offset: number;
  readonly length: number;
}

export interface Delta2Choice {
  /** Ranges of the old file to inflate, ascending, each a raw deflate stream. */
  readonly old: readonly DeflatedSpan[];
  /** Ranges of the new file that `params` reproduce exactly, ascending. */
  readonly new: ReadonlyArray<DeflatedSpan & { readonly params: DeflateParams }>;
}

/** The file with each span replaced by its inflated bytes, and the spans' inflated lengths. */
export function inflateSpans(
  file: Uint8Array,
  spans: readonly DeflatedSpan[],
): { df: Uint8Array; inflated: number[]; offsets: number[] } {
  const parts: Uint8Array[] = [];
  const inflated: number[] = [];
  const offsets: number[] = [];
  let at = 0;
  let dfAt = 0;
  for (const span of spans) {
    parts.push(file.subarray(at, span.offset));
    dfAt += span.offset - at;
    const bytes = inflateRaw(file.subarray(span.offset, span.offset + span.length));
    parts.push(bytes);
    offsets.push(dfAt);
    inflated.push(bytes.length);
    dfAt += bytes.length;
    at = span.offset + span.length;
  }
  parts.push(file.subarray(at));
  const df = new Uint8Array(dfAt + file.length - at);
  let out = 0;
  for (const part of parts) {
    df.set(part, out);
    out += part.length;
  }
  return { df, inflated, offsets };
}

/** Calls `emit` with the patch's inflated bytes in order: the plan, then one chunk per record. */
export function generatePatch2(
  old: Uint8Array,
  target: Uint8Array,
  choice: Delta2Choice,
  emit: (chunk: Uint8Array) => void,
): void {
  const dfOld = inflateSpans(old, choice.old);
  const dfNew = inflateSpans(target, choice.new);
  const oldRanges: OldRange[] = choice.old.map((s, i) => ({
    offset: s.offset,
    length: s.length,
    inflatedLength: dfOld.inflated[i]!,
  }));
  const newRanges: NewRange[] = choice.new.map((s, i) => ({
    offset: dfNew.offsets[i]!,
    inflatedLength: dfNew.inflated[i]!,
    ...s.params,
  }));
  emit(encodePlan({ newSize: target.length, oldRanges, newRanges, dfNewSize: dfNew.df.length }));
  generateRecords(dfOld.df, dfNew.df, emit);
}
