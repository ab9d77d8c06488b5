/**
 * The SA-IS suffix array against literal answers and against the definition (every suffix
 * sorted by plain comparison) on random texts, including long runs that force recursion.
 */
import { suffixArray } from '../../../../../device-client/protocol/delta/suffix-array';

/** The definition: suffixes sorted as byte strings, the empty one first. */
function naive(text: Uint8Array): number[] {
  const starts = Array.from({ length: text.length + 1 }, (_, i) => i);
  return starts.sort((a, b) => Buffer.compare(text.subarray(a), text.subarray(b)));
}

test('literal texts', () => {
  expect(Array.from(suffixArray(new Uint8Array(0)))).toEqual([0]);
  expect(Array.from(suffixArray(Buffer.from('a')))).toEqual([1, 0]);
  // banana: "", a, ana, anana, banana, na, nana
  expect(Array.from(suffixArray(Buffer.from('banana')))).toEqual([6, 5, 3, 1, 0, 4, 2]);
  // mississippi: "", i, ippi, issippi, ississippi, mississippi, pi, ppi, sippi, sissippi, ssippi, ssissippi
  expect(Array.from(suffixArray(Buffer.from('mississippi')))).toEqual([
    11, 10, 7, 4, 1, 0, 9, 8, 6, 3, 5, 2,
  ]);
  expect(Array.from(suffixArray(Buffer.from('aaaa')))).toEqual([4, 3, 2, 1, 0]);
});

test('random texts agree with the definition', () => {
  let seed = 7;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  for (let round = 0; round < 300; round++) {
    const length = Math.floor(random() * 200);
    const alphabet = 1 + Math.floor(random() * (round % 3 === 0 ? 2 : 256));
    const text = Uint8Array.from({ length }, () => Math.floor(random() * alphabet));
    expect(Array.from(suffixArray(text))).toEqual(naive(text));
  }
});

test('periodic texts (deep recursion) agree with the definition', () => {
  for (const unit of ['ab', 'abc', 'aab', 'abaab']) {
    const text = Buffer.from(unit.repeat(97) + 'x' + unit.repeat(13));
    expect(Array.from(suffixArray(text))).toEqual(naive(text));
  }
});
