/**
 * Which entries an ARDELTA2 patch takes file by file (docs/delta-updates.md, "Making"): every
 * deflated entry of the new APK whose compressed bytes changed (or that is new) and that pako
 * reproduces with some setting (divine.ts); and, as old ranges, the old APK's deflated entries of
 * the same names that inflate cleanly. Pure, over both files in memory. Also counts what it saw,
 * for the benchmark's share of changed deflated entries reproduced.
 */
import { Inflate } from 'pako';
import type { Delta2Choice } from '../../device-client/protocol/delta/generate-patch2';
import type { ApkZipEntry } from './apk-entries';
import { divine } from './divine';

export interface RangeChoice extends Delta2Choice {
  /** Deflated entries of the new APK that changed. */
  readonly changed: number;
  /** How many of those a setting reproduces. */
  readonly reproduced: number;
}

const DEFLATED = 8;

const dataOf = (file: Uint8Array, e: ApkZipEntry) =>
  file.subarray(e.dataOffset, e.dataOffset + e.compressedSize);

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The raw deflate stream's bytes when it ends exactly at its end and fits `size`, else null. */
export function inflateExactly(data: Uint8Array, size: number): Uint8Array | null {
  const inflater = new Inflate({ raw: true }) as Inflate & {
    ended: boolean;
    strm: { avail_in: number };
  };
  inflater.push(data, true);
  if ((inflater.err as number) !== 0 || !inflater.ended || inflater.strm.avail_in !== 0)
    return null;
  const out = inflater.result as Uint8Array;
  return out.length === size ? out : null;
}

export function chooseRanges(
  old: { bytes: Uint8Array; entries: readonly ApkZipEntry[] },
  next: { bytes: Uint8Array; entries: readonly ApkZipEntry[] },
): RangeChoice {
  const oldByName = new Map(old.entries.map((e) => [e.name, e]));
  const chosen: Array<Delta2Choice['new'][number] & { name: string }> = [];
  let changed = 0;
  for (const entry of next.entries) {
    if (entry.method !== DEFLATED) continue;
    const data = dataOf(next.bytes, entry);
    const before = oldByName.get(entry.name);
    if (before !== undefined && sameBytes(dataOf(old.bytes, before), data)) continue;
    changed++;
    const inflated = inflateExactly(data, entry.uncompressedSize);
    const params = inflated === null ? null : divine(inflated, data);
    if (params === null) continue;
    chosen.push({ name: entry.name, offset: entry.dataOffset, length: data.length, params });
  }
  const names = new Set(chosen.map((c) => c.name));
  const oldSpans = old.entries
    .filter((e) => e.method === DEFLATED && names.has(e.name))
    .filter((e) => inflateExactly(dataOf(old.bytes, e), e.uncompressedSize) !== null)
    .map((e) => ({ offset: e.dataOffset, length: e.compressedSize }));
  const byOffset = (a: { offset: number }, b: { offset: number }) => a.offset - b.offset;
  return {
    old: oldSpans.sort(byOffset),
    new: chosen.map(({ offset, length, params }) => ({ offset, length, params })).sort(byOffset),
    changed,
    reproduced: chosen.length,
  };
}
