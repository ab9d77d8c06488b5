/**
 * The ARDELTA2 applier on hand-built patches (the plan written out field by field) and on patches
 * the generator makes from files with deflated ranges: dfOld inflated from the old ranges, dfNew
 * recompressed with each new range's settings, the final bytes exact, and every refusal of the
 * contract with its word. Chunk boundaries never matter.
 */
import { deflateRaw } from 'pako';
import { generatePatch2 } from '../../../../../device-client/protocol/delta/generate-patch2';
import { hexApplier, applyInMemory2 } from '../../../../helpers/delta';

const ascii = (s: string) => Buffer.from(s).toString('hex');
const MAGIC2 = ascii('ARDELTA2');
const u64 = (n: number | bigint): string => BigInt(n).toString(16).padStart(16, '0');
const u32 = (n: number): string => n.toString(16).padStart(8, '0');
const u8 = (n: number): string => n.toString(16).padStart(2, '0');
const rec = (diff: string, extra: string, seek: number): string =>
  u64(diff.length / 2) +
  u64(extra.length / 2) +
  u64(BigInt.asUintN(64, BigInt(seek))) +
  diff +
  extra;

type Old = [offset: number, length: number, inflated: number];
type New = [
  offset: number,
  inflated: number,
  level: number,
  strategy: number,
  mem: number,
  wb: number,
];
function plan(newSize: number, olds: Old[], news: New[], dfNewSize: number): string {
  return (
    MAGIC2 +
    u64(newSize) +
    u32(olds.length) +
    olds.map(([o, l, i]) => u64(o) + u64(l) + u64(i)).join('') +
    u32(news.length) +
    news.map(([o, i, ...p]) => u64(o) + u64(i) + p.map(u8).join('')).join('') +
    u64(dfNewSize)
  );
}

/** 'hello' raw-deflated by zlib 1.2.13 at level 6 (zlib.compress(b'hello') without its frame). */
const HELLO_DEFLATED = 'cb48cdc9c90700';

const { apply, refusal } = hexApplier(applyInMemory2);

test('no ranges: the records alone, as ARDELTA1', async () => {
  expect(await apply(ascii('abc'), plan(3, [], [], 3) + rec('000100', '', 0))).toBe(ascii('acc'));
});

test('an old range is inflated into dfOld: the records read the inflated bytes', async () => {
  // old = "ab" + deflate("hello"); dfOld = "abhello"; copy dfOld[2..7) → "hello"
  const old = ascii('ab') + HELLO_DEFLATED;
  const patch = plan(5, [[2, 7, 5]], [], 5) + rec('', '', 2) + rec('0000000000', '', 0);
  expect(await apply(old, patch)).toBe(ascii('hello'));
});

test('a new range is recompressed with its settings: zlib 1.2.13 bytes', async () => {
  // dfNew = "ab" + "hello"; the final file = "ab" + deflate("hello", level 6)
  const patch = plan(9, [], [[2, 5, 6, 0, 8, 15]], 7) + rec('', ascii('abhello'), 0);
  expect(await apply('', patch)).toBe(ascii('ab') + HELLO_DEFLATED);
  expect(await apply('', patch, 1)).toBe(ascii('ab') + HELLO_DEFLATED);
});

test('an empty new range becomes the empty deflate stream 03 00', async () => {
  const patch = plan(4, [], [[1, 0, 6, 0, 8, 15]], 2) + rec('', ascii('ab'), 0);
  expect(await apply('', patch)).toBe(ascii('a') + '0300' + ascii('b'));
});

function text(n: number, salt: string): Buffer {
  return Buffer.from(
    Array.from(
      { length: n },
      (_, i) => `${salt} entry line ${i} value ${(i * 7919) % 1000}\n`,
    ).join(''),
  );
}

test('generated from files with deflated ranges: gives the new file exactly, in any chunking', async () => {
  const a = text(400, 'classes');
  const a2 = Buffer.concat([a.subarray(0, 5000), Buffer.from('CHANGED'), a.subarray(5000)]);
  const b = text(200, 'resources');
  const dA = deflateRaw(a, { level: 6 });
  const dA2 = deflateRaw(a2, { level: 9 });
  const dB = deflateRaw(b, { level: 1, strategy: 1 });
  const old = Buffer.concat([Buffer.from('HEAD'), dA, Buffer.from('MID'), dB, Buffer.from('TAIL')]);
  const next = Buffer.concat([
    Buffer.from('HEAD'),
    dA2,
    Buffer.from('MID'),
    dB,
    Buffer.from('TAIL2'),
  ]);
  const chunks: Uint8Array[] = [];
  const choice = {
    old: [{ offset: 4, length: dA.length }],
    new: [
      {
        offset: 4,
        length: dA2.length,
        params: { level: 9, strategy: 0, memLevel: 8, windowBits: 15 },
      },
    ],
  };
  generatePatch2(old, next, choice, (c) => chunks.push(c));
  const patch = Buffer.concat(chunks).toString('hex');
  expect(await apply(old.toString('hex'), patch)).toBe(next.toString('hex'));
  expect(await apply(old.toString('hex'), patch, 7)).toBe(next.toString('hex'));
});

describe('refusals', () => {
  const old = ascii('ab') + HELLO_DEFLATED;
  test.each([
    ['an ARDELTA1 patch', ascii('ARDELTA1') + u64(0), 'magic'],
    ['ends inside the plan', plan(1, [[2, 7, 5]], [], 1).slice(0, 60), 'truncated'],
    ['an old range outside the old file', plan(0, [[2, 8, 5]], [], 0), 'plan'],
    [
      'old ranges overlapping',
      plan(
        0,
        [
          [0, 2, 1],
          [1, 1, 1],
        ],
        [],
        0,
      ),
      'plan',
    ],
    [
      'old ranges going backwards',
      plan(
        0,
        [
          [2, 7, 5],
          [0, 1, 1],
        ],
        [],
        0,
      ),
      'plan',
    ],
    ['an old range that is not deflate data', plan(0, [[0, 2, 5]], [], 0), 'plan'],
    ['an old range that inflates to another length', plan(0, [[2, 7, 4]], [], 0), 'plan'],
    ['an old range ending inside its stream', plan(0, [[2, 6, 5]], [], 0), 'plan'],
    ['more than 65,535 old ranges', MAGIC2 + u64(0) + u32(65536), 'plan'],
    ['an inflated length over 2^31', plan(0, [], [[0, 2 ** 31 + 1, 6, 0, 8, 15]], 2 ** 32), 'plan'],
    ['level 0', plan(0, [], [[0, 1, 0, 0, 8, 15]], 1), 'plan'],
    ['strategy 5', plan(0, [], [[0, 1, 6, 5, 8, 15]], 1), 'plan'],
    ['memLevel 10', plan(0, [], [[0, 1, 6, 0, 10, 15]], 1), 'plan'],
    ['windowBits 8', plan(0, [], [[0, 1, 6, 0, 8, 8]], 1), 'plan'],
    [
      'new ranges overlapping',
      plan(
        0,
        [],
        [
          [0, 3, 6, 0, 8, 15],
          [2, 1, 6, 0, 8, 15],
        ],
        4,
      ),
      'plan',
    ],
    [
      'two empty new ranges at one offset',
      plan(
        0,
        [],
        [
          [1, 0, 6, 0, 8, 15],
          [1, 0, 6, 0, 8, 15],
        ],
        2,
      ),
      'plan',
    ],
    ['a new range past dfNew', plan(0, [], [[0, 5, 6, 0, 8, 15]], 3), 'plan'],
    [
      'a final file shorter than announced',
      plan(10, [], [[2, 5, 6, 0, 8, 15]], 7) + rec('', ascii('abhello'), 0),
      'size',
    ],
    [
      'a final file longer than announced',
      plan(8, [], [[2, 5, 6, 0, 8, 15]], 7) + rec('', ascii('abhello'), 0),
      'size',
    ],
    ['bytes after the last record', plan(1, [], [], 1) + rec('', 'aa', 0) + '00', 'trailing'],
    ['a record past dfNew', plan(1, [], [], 1) + rec('', 'aabb', 0), 'overrun'],
    ['no record for dfNew', plan(1, [], [], 1), 'truncated'],
    [
      'a seek too far',
      plan(1, [], [], 1) + rec('', '', 2 ** 62) + rec('', '', 2) + rec('00', '', 0),
      'seek',
    ],
  ])('%s', async (_name, patch, word) => {
    expect(await refusal(old, patch)).toBe(word);
  });
});

test('an old range going past the end of its deflate stream: plan', async () => {
  const old = ascii('ab') + HELLO_DEFLATED + '00';
  expect(await refusal(old, plan(0, [[2, 8, 5]], [], 0))).toBe('plan');
  // the same file with the range ending where the stream does: dfOld = "ab" "hello" 00
  const copyAll = plan(8, [[2, 7, 5]], [], 8) + rec('0000000000000000', '', 0);
  expect(await apply(old, copyAll)).toBe(ascii('abhello') + '00');
});
