/**
 * The suffix array of the old file, by SA-IS (Nong, Zhang and Chan 2009): linear time, and one
 * Int32Array of the file's length plus a byte of types per position, where bsdiff's qsufsort
 * needs two Int32Arrays. The patch generator (generate-patch.ts) binary-searches it for the
 * longest match of each position of the new file. The sentinel that ends the text is virtual
 * (position n, smaller than every byte), so the text is read as it is, never copied.
 */

type Text = Uint8Array | Int32Array;

const L = 0;
const S = 1;

/** t[i] for i in [0, n]: position n is the virtual sentinel, always S. */
function classify(text: Text, n: number): Uint8Array {
  const types = new Uint8Array(n + 1);
  types[n] = S;
  if (n === 0) return types;
  types[n - 1] = L;
  for (let i = n - 2; i >= 0; i--) {
    const here = text[i] as number;
    const next = text[i + 1] as number;
    types[i] = here < next || (here === next && types[i + 1] === S) ? S : L;
  }
  return types;
}

function isLms(types: Uint8Array, i: number): boolean {
  return i > 0 && types[i] === S && types[i - 1] === L;
}

/** Each character's bucket: its first slot (`end` false) or one past its last (`end` true). */
function buckets(text: Text, n: number, alphabet: number, end: boolean): Int32Array {
  const counts = new Int32Array(alphabet);
  for (let i = 0; i < n; i++) counts[text[i] as number]! += 1;
  let sum = 0;
  for (let c = 0; c < alphabet; c++) {
    sum += counts[c]!;
    counts[c] = end ? sum : sum - counts[c]!;
  }
  return counts;
}

/** Places the L suffixes after what `sa` holds, the sentinel's predecessor first. */
function induceL(text: Text, sa: Int32Array, types: Uint8Array, n: number, alphabet: number): void {
  const heads = buckets(text, n, alphabet, false);
  const last = text[n - 1] as number;
  sa[heads[last]!++] = n - 1;
  for (let i = 0; i < n; i++) {
    const j = sa[i]! - 1;
    if (j >= 0 && types[j] === L) sa[heads[text[j] as number]!++] = j;
  }
}

function induceS(text: Text, sa: Int32Array, types: Uint8Array, n: number, alphabet: number): void {
  const tails = buckets(text, n, alphabet, true);
  for (let i = n - 1; i >= 0; i--) {
    const j = sa[i]! - 1;
    if (j >= 0 && types[j] === S) sa[--tails[text[j] as number]!] = j;
  }
}

/** Whether the LMS substrings at `a` and `b` (a ≠ b) differ, the sentinel unequal to all. */
function lmsDiffer(text: Text, types: Uint8Array, n: number, a: number, b: number): boolean {
  for (let d = 0; ; d++) {
    if (a + d === n || b + d === n) return true;
    if (text[a + d] !== text[b + d] || types[a + d] !== types[b + d]) return true;
    if (d > 0 && (isLms(types, a + d) || isLms(types, b + d))) return false;
  }
}

/**
 * Names the sorted LMS substrings (sa[0..count) after the first induction): equal substrings get
 * equal names. Leaves the reduced text (names in text order) at sa[n - count, n); returns the
 * number of distinct names.
 */
function nameLms(text: Text, sa: Int32Array, types: Uint8Array, n: number): [number, number] {
  let count = 0;
  for (let i = 0; i < n; i++) if (isLms(types, sa[i]!)) sa[count++] = sa[i]!;
  sa.fill(-1, count, n);
  let names = 0;
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const at = sa[i]!;
    if (previous < 0 || lmsDiffer(text, types, n, at, previous)) names++;
    previous = at;
    sa[count + (at >> 1)] = names - 1;
  }
  for (let i = n - 1, j = n - 1; i >= count; i--) if (sa[i]! >= 0) sa[j--] = sa[i]!;
  return [count, names];
}

/** Sorts the LMS suffixes into sa[0..count), by recursion on the reduced text when needed. */
function sortLms(
  text: Text,
  sa: Int32Array,
  types: Uint8Array,
  n: number,
  count: number,
  names: number,
): void {
  const reduced = sa.subarray(n - count, n);
  const order = sa.subarray(0, count);
  if (names < count) sais(reduced, order, count, names);
  else for (let i = 0; i < count; i++) order[reduced[i]!] = i;
  for (let i = 1, j = 0; i < n; i++) if (isLms(types, i)) reduced[j++] = i;
  for (let i = 0; i < count; i++) order[i] = reduced[order[i]!]!;
}

/** sa[0..n) ← the suffixes of text[0..n) in order (the empty suffix left out). */
function sais(text: Text, sa: Int32Array, n: number, alphabet: number): void {
  if (n === 0) return;
  const types = classify(text, n);
  sa.fill(-1, 0, n);
  const tails = buckets(text, n, alphabet, true);
  for (let i = 1; i < n; i++) if (isLms(types, i)) sa[--tails[text[i] as number]!] = i;
  induceL(text, sa, types, n, alphabet);
  induceS(text, sa, types, n, alphabet);
  const [count, names] = nameLms(text, sa, types, n);
  sortLms(text, sa, types, n, count, names);
  sa.fill(-1, count, n);
  const ends = buckets(text, n, alphabet, true);
  for (let i = count - 1; i >= 0; i--) {
    const j = sa[i]!;
    sa[i] = -1;
    sa[--ends[text[j] as number]!] = j;
  }
  induceL(text, sa, types, n, alphabet);
  induceS(text, sa, types, n, alphabet);
}

/**
 * The suffix array of `text` with the empty suffix first, as bsdiff's search expects: n + 1
 * entries, entry 0 is n.
 */
export function suffixArray(text: Uint8Array): Int32Array {
  const n = text.length;
  const sa = new Int32Array(n + 1);
  sa[0] = n;
  sais(text, sa.subarray(1), n, 256);
  return sa;
}
