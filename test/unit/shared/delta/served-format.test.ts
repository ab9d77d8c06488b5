/**
 * The `formats` parameter and the patch served (docs/delta-updates.md, "Asking for it"), on
 * literal inputs: absent is `1`; a malformed list or one naming no known format is refused; the
 * smallest ready patch of an accepted format wins, a document without `format` being ARDELTA1.
 */
import { awaitsFormat, choosePatch, parseFormats } from '../../../../shared/delta/served-format';

test.each([
  [undefined, [1]],
  ['1', [1]],
  ['2', [2]],
  ['2,1', [2, 1]],
  ['1,2', [1, 2]],
  ['3,2', [2]],
  ['2,2,1', [2, 1]],
])('formats=%s accepts %j', (raw, accepted) => {
  expect(parseFormats(raw)).toEqual(accepted);
});

test.each(['', '3', '9,7', '2,', ',1', '1;2', '1, 2', 'x', '-1', '1.0'])(
  'formats=%j is refused',
  (raw) => {
    expect(parseFormats(raw)).toBeNull();
  },
);

const docs = [
  { id: 'a', status: 'ready', size: 900 }, // no format field: ARDELTA1
  { id: 'b', status: 'ready', format: 2, size: 300 },
  { id: 'c', status: 'too-large', format: 2, size: 100 },
];

test('the smallest ready patch of an accepted format', () => {
  expect(choosePatch(docs, [2, 1])?.id).toBe('b');
  expect(choosePatch(docs, [1])?.id).toBe('a');
  expect(choosePatch(docs, [2])?.id).toBe('b');
  expect(
    choosePatch([{ id: 'd', status: 'ready', format: 1, size: 50 }, ...docs], [2, 1])?.id,
  ).toBe('d');
});

test('nothing ready of an accepted format: none', () => {
  expect(choosePatch(docs.slice(1), [1])).toBeNull();
  expect(choosePatch([docs[2]!], [2, 1])).toBeNull();
  expect(choosePatch([], [1])).toBeNull();
});

// [documents of the pair, accepted formats, whether a patch may still come]
test.each([
  ['none yet', [], [2, 1], true],
  ['ARDELTA1 too large, ARDELTA2 not made yet', [{ status: 'too-large', size: 9 }], [2, 1], true],
  ['ARDELTA1 too large, the client takes only 1', [{ status: 'too-large', size: 9 }], [1], false],
  ['ARDELTA1 ready', [{ status: 'ready', size: 9 }], [2, 1], false],
  [
    'both formats decided, neither ready',
    [
      { status: 'too-large', size: 9 },
      { status: 'none', format: 2, size: 0 },
    ],
    [2, 1],
    false,
  ],
] as const)('%s: awaits %p -> %p', (_name, pairDocs, accepted, awaits) => {
  expect(awaitsFormat(pairDocs, accepted)).toBe(awaits);
});
