/**
 * Divination against the reference: entries deflated by Debian's zlib 1.2.13 (python3's zlib, as
 * the JDK's) at a known setting are found at the first setting of the contract's order that zlib
 * itself makes the same bytes with (the expectations below are written by hand from the contract's
 * order and zlib's own outputs), and streams zlib 1.2.13 does not make are not reproducible.
 */
import { execFileSync } from 'node:child_process';
import { deflateRawSync } from 'node:zlib';
import { DIVINATION_ORDER, divine, reproduces } from '../../../../shared/delta/divine';

/** 7,638 bytes of text (the same formula in the Python below). */
const TEXT = Buffer.from(
  Array.from(
    { length: 300 },
    (_, i) => `line ${i}: ${(i * i) % 97} apkrelay ${'abcdefghij'[i % 10]!.repeat(i % 7)}\n`,
  ).join(''),
);

/** `data` raw-deflated by Debian's zlib (python3) with level, strategy, memLevel, windowBits 15. */
function zlib1213(data: Buffer, level: number, strategy: number, memLevel: number): Buffer {
  const script =
    'import sys, zlib; d = sys.stdin.buffer.read(); ' +
    `c = zlib.compressobj(${level}, zlib.DEFLATED, -15, ${memLevel}, ${strategy}); ` +
    'sys.stdout.buffer.write(c.compress(d) + c.flush())';
  return execFileSync('python3', ['-c', script], { input: data });
}

test('python3 is zlib 1.2.13, the reference', () => {
  const version = execFileSync('python3', ['-c', 'import zlib; print(zlib.ZLIB_RUNTIME_VERSION)']);
  expect(version.toString().trim()).toBe('1.2.13');
});

test('the order is the contract: memLevel 8 then 9; strategy 0-3; level 6, 9, 1-5, 7, 8', () => {
  expect(DIVINATION_ORDER).toHaveLength(72);
  expect(DIVINATION_ORDER.slice(0, 10)).toEqual(
    [6, 9, 1, 2, 3, 4, 5, 7, 8]
      .map((level) => ({ level, strategy: 0, memLevel: 8, windowBits: 15 }))
      .concat([{ level: 6, strategy: 1, memLevel: 8, windowBits: 15 }]),
  );
  expect(DIVINATION_ORDER[36]).toEqual({ level: 6, strategy: 0, memLevel: 9, windowBits: 15 });
  expect(DIVINATION_ORDER.some((p) => p.level === 0)).toBe(false);
  // Fixed codes: pako 2.1.0 and zlib 1.2.13 can differ there (docs/delta-updates.md).
  expect(DIVINATION_ORDER.some((p) => p.strategy === 4)).toBe(false);
});

// [what zlib made, level, strategy, memLevel, the first setting that zlib reproduces it with]
test.each([
  ['level 1', 1, 0, 8, { level: 1, strategy: 0 }],
  ['level 2', 2, 0, 8, { level: 2, strategy: 0 }],
  ['level 9 filtered', 9, 1, 8, { level: 9, strategy: 1 }],
  ['huffman-only (any level is level 6)', 6, 2, 8, { level: 6, strategy: 2 }],
  ['rle at level 4 (rle ignores the level)', 4, 3, 8, { level: 6, strategy: 3 }],
  ['memLevel 9 at level 6 (the same bytes as memLevel 8 here)', 6, 0, 9, { level: 6, strategy: 0 }],
] as const)('%s: found', (_name, level, strategy, memLevel, first) => {
  const compressed = zlib1213(TEXT, level, strategy, memLevel);
  expect(divine(TEXT, compressed)).toEqual({ ...first, memLevel: 8, windowBits: 15 });
});

test('memLevel 9 where it differs (267 KB of the same text): found at memLevel 9', () => {
  const long = Buffer.from(
    Array.from(
      { length: 10_000 },
      (_, i) => `line ${i}: ${(i * i) % 97} apkrelay ${'abcdefghij'[i % 10]!.repeat(i % 7)}\n`,
    ).join(''),
  );
  // python3: no memLevel 8 setting gives these bytes
  const compressed = zlib1213(long, 6, 0, 9);
  expect(divine(long, compressed)).toEqual({ level: 6, strategy: 0, memLevel: 9, windowBits: 15 });
});

test('a tiny entry every level makes alike is found at the first setting, level 6', () => {
  const compressed = zlib1213(Buffer.from('hello'), 1, 0, 8);
  expect(divine(Buffer.from('hello'), compressed)).toEqual({
    level: 6,
    strategy: 0,
    memLevel: 8,
    windowBits: 15,
  });
});

test('an empty entry (zlib writes 03 00) is found', () => {
  expect(divine(Buffer.alloc(0), Buffer.from('0300', 'hex'))).toEqual({
    level: 6,
    strategy: 0,
    memLevel: 8,
    windowBits: 15,
  });
});

test('fixed codes (strategy 4) are never tried: the entry stays compressed', () => {
  expect(divine(TEXT, zlib1213(TEXT, 6, 4, 8))).toBeNull();
});

test("Node's zlib (Chromium's fork) at level 6 makes other bytes: not reproducible", () => {
  const chromium = deflateRawSync(TEXT, { level: 6 });
  expect(chromium.equals(zlib1213(TEXT, 6, 0, 8))).toBe(false);
  expect(divine(TEXT, chromium)).toBeNull();
});

test('a hand-made stream of one stored block (as a 7-zip-like tool may write): not reproducible', () => {
  const data = Buffer.from('stored, not deflated');
  const stored = Buffer.concat([
    Buffer.from([0x01, data.length, 0, ~data.length & 0xff, 0xff]),
    data,
  ]);
  expect(divine(data, stored)).toBeNull();
});

test('the right bytes with one more byte after them are not reproduced', () => {
  const compressed = zlib1213(TEXT, 6, 0, 8);
  const setting = { level: 6, strategy: 0, memLevel: 8, windowBits: 15 };
  expect(reproduces(setting, TEXT, compressed)).toBe(true);
  expect(reproduces(setting, TEXT, Buffer.concat([compressed, Buffer.of(0)]))).toBe(false);
  expect(reproduces(setting, TEXT, compressed.subarray(0, compressed.length - 1))).toBe(false);
});
