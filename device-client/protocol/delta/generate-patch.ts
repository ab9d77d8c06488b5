/**
 * Writes an ARDELTA1 patch (format.ts, before its zlib wrapping) that turns `old` into `target`:
 * bsdiff 4.3's match-and-extend loop (Colin Percival, "Naive differences of executable code")
 * over the old file's suffix array (suffix-array.ts). Each record carries the bytes where the
 * new file follows an old region as differences (mostly zeros, which deflate well) and the rest
 * as extra bytes. Only the server runs it; it lives beside the applier so the format has one home.
 */
import { encodeHeader, encodeRecordHeader } from './format';
import { suffixArray } from './suffix-array';

/** How many bytes from `a[aAt]` and `b[bAt]` agree. */
function matchLength(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number): number {
  let i = 0;
  const most = Math.min(a.length - aAt, b.length - bAt);
  while (i < most && a[aAt + i] === b[bAt + i]) i++;
  return i;
}

/** a[aAt..] against b[bAt..] over their common length: negative, 0 or positive. */
function compareFrom(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number): number {
  const most = Math.min(a.length - aAt, b.length - bAt);
  for (let i = 0; i < most; i++) {
    const d = a[aAt + i]! - b[bAt + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

interface Match {
  length: number;
  position: number;
}

/** The longest match of target[at..] in old, by binary search over the suffix array. */
function longestMatch(sa: Int32Array, old: Uint8Array, target: Uint8Array, at: number): Match {
  let start = 0;
  let end = old.length;
  while (end - start >= 2) {
    const mid = start + ((end - start) >> 1);
    if (compareFrom(old, sa[mid]!, target, at) < 0) start = mid;
    else end = mid;
  }
  const first = matchLength(old, sa[start]!, target, at);
  const second = matchLength(old, sa[end]!, target, at);
  return first > second
    ? { length: first, position: sa[start]! }
    : { length: second, position: sa[end]! };
}

interface ScanState {
  scan: number;
  lastScan: number;
  lastPos: number;
  lastOffset: number;
  /** Bytes of the current stretch that the last match's offset also explains. */
  oldScore: number;
  match: Match;
}

/** Moves `scan` to the next place where a fresh match beats extending the last one (bsdiff). */
function nextMatch(sa: Int32Array, old: Uint8Array, target: Uint8Array, s: ScanState): void {
  let oldScore = 0;
  let scsc = (s.scan += s.match.length);
  for (; s.scan < target.length; s.scan++) {
    s.match = longestMatch(sa, old, target, s.scan);
    for (; scsc < s.scan + s.match.length; scsc++) {
      if (scsc + s.lastOffset < old.length && old[scsc + s.lastOffset] === target[scsc]) oldScore++;
    }
    const len = s.match.length;
    if ((len === oldScore && len !== 0) || len > oldScore + 8) break;
    if (s.scan + s.lastOffset < old.length && old[s.scan + s.lastOffset] === target[s.scan]) {
      oldScore--;
    }
  }
  s.oldScore = oldScore;
}

/** How far the last match extends forwards (lenf) and the new one backwards (lenb). */
function extents(old: Uint8Array, target: Uint8Array, s: ScanState): [number, number] {
  let score = 0;
  let best = 0;
  let forward = 0;
  for (let i = 0; s.lastScan + i < s.scan && s.lastPos + i < old.length;) {
    if (old[s.lastPos + i] === target[s.lastScan + i]) score++;
    i++;
    if (score * 2 - i > best * 2 - forward) {
      best = score;
      forward = i;
    }
  }
  let backward = 0;
  if (s.scan < target.length) {
    score = 0;
    best = 0;
    for (let i = 1; s.scan >= s.lastScan + i && s.match.position >= i; i++) {
      if (old[s.match.position - i] === target[s.scan - i]) score++;
      if (score * 2 - i > best * 2 - backward) {
        best = score;
        backward = i;
      }
    }
  }
  return resolveOverlap(old, target, s, forward, backward);
}

/** Where both extensions overlap, splits them at the point that keeps the most matches. */
function resolveOverlap(
  old: Uint8Array,
  target: Uint8Array,
  s: ScanState,
  forward: number,
  backward: number,
): [number, number] {
  if (s.lastScan + forward <= s.scan - backward) return [forward, backward];
  const overlap = s.lastScan + forward - (s.scan - backward);
  let score = 0;
  let best = 0;
  let keep = 0;
  for (let i = 0; i < overlap; i++) {
    const f = s.lastScan + forward - overlap + i;
    if (target[f] === old[s.lastPos + forward - overlap + i]) score++;
    if (target[s.scan - backward + i] === old[s.match.position - backward + i]) score--;
    if (score > best) {
      best = score;
      keep = i + 1;
    }
  }
  return [forward + keep - overlap, backward - keep];
}

/** One record: diff bytes over [lastScan, +forward), extra bytes up to the new match. */
function record(
  old: Uint8Array,
  target: Uint8Array,
  s: ScanState,
  forward: number,
  backward: number,
): Uint8Array {
  const extra = s.scan - backward - (s.lastScan + forward);
  const seek = s.match.position - backward - (s.lastPos + forward);
  const bytes = new Uint8Array(24 + forward + extra);
  bytes.set(encodeRecordHeader(forward, extra, seek), 0);
  for (let i = 0; i < forward; i++) {
    bytes[24 + i] = (target[s.lastScan + i]! - old[s.lastPos + i]!) & 0xff;
  }
  bytes.set(target.subarray(s.lastScan + forward, s.scan - backward), 24 + forward);
  return bytes;
}

/**
 * Calls `emit` with the patch's inflated bytes in order: the header, then one chunk per record.
 * Memory: the old file's suffix array (4 bytes a byte) and the current record.
 */
export function generatePatch(
  old: Uint8Array,
  target: Uint8Array,
  emit: (chunk: Uint8Array) => void,
): void {
  emit(encodeHeader(target.length));
  generateRecords(old, target, emit);
}

/** The records alone, one chunk each (ARDELTA2 frames them with its own header). */
export function generateRecords(
  old: Uint8Array,
  target: Uint8Array,
  emit: (chunk: Uint8Array) => void,
): void {
  const sa = suffixArray(old);
  const s: ScanState = {
    scan: 0,
    lastScan: 0,
    lastPos: 0,
    lastOffset: 0,
    oldScore: 0,
    match: { length: 0, position: 0 },
  };
  while (s.scan < target.length) {
    nextMatch(sa, old, target, s);
    if (s.match.length === s.oldScore && s.scan !== target.length) continue;
    const [forward, backward] = extents(old, target, s);
    emit(record(old, target, s, forward, backward));
    s.lastScan = s.scan - backward;
    s.lastPos = s.match.position - backward;
    s.lastOffset = s.match.position - s.scan;
  }
}
