/**
 * The applier on hand-built ARDELTA1 patches (inflated bytes written out field by field in the
 * tests): the record rules of docs/delta-updates.md, old positions outside the file read as 0,
 * and every refusal the format names. Chunk boundaries never matter.
 */
import { hexApplier, applyInMemory } from '../../../../helpers/delta';

const MAGIC = '415244454c544131';
const u64 = (n: number): string => n.toString(16).padStart(16, '0');
/** Two's complement, 64 bits. */
const s64 = (n: bigint): string => BigInt.asUintN(64, n).toString(16).padStart(16, '0');
const rec = (diff: string, extra: string, seek: bigint): string =>
  u64(diff.length / 2) + u64(extra.length / 2) + s64(seek) + diff + extra;

const { apply, refusal } = hexApplier(applyInMemory);

test('diff bytes add to the old bytes modulo 256, extra bytes are copied', async () => {
  // old 10 20 30 ; diff 01 ff 00 → 11 1f 30 ; extra aa bb
  expect(await apply('102030', MAGIC + u64(5) + rec('01ff00', 'aabb', 0n))).toBe('111f30aabb');
});

test('seek moves the old position, backwards too', async () => {
  // record 1: diff 2 bytes at old 0, seek +1 → oldPos 3; record 2: diff 1 at old 3, seek -4 → 0;
  // record 3: 0a + 01
  const patch = MAGIC + u64(4) + rec('0000', '', 1n) + rec('00', '', -4n) + rec('01', '', 0n);
  expect(await apply('0a0b0c0d', patch)).toBe('0a0b0d0b');
});

test('old positions outside the file count as 0', async () => {
  // seek to -2: diff 3 bytes at old -2, -1, 0 (0x03 + 0x77)
  expect(await apply('77', MAGIC + u64(3) + rec('', '', -2n) + rec('010203', '', 0n))).toBe(
    '01027a',
  );
  expect(await apply('77', MAGIC + u64(2) + rec('', '', 5n) + rec('0102', '', 0n))).toBe('0102');
});

test('an empty new file is the header alone', async () => {
  expect(await apply('0102', MAGIC + u64(0))).toBe('');
});

test('one byte at a time gives the same output', async () => {
  const patch = MAGIC + u64(5) + rec('01ff00', 'aabb', 0n);
  expect(await apply('102030', patch, 1)).toBe('111f30aabb');
});

test('refusals', async () => {
  expect(await refusal('00', '415244454c544132' + u64(0))).toBe('magic');
  expect(await refusal('00', MAGIC.slice(0, 10))).toBe('truncated');
  expect(await refusal('00', MAGIC + u64(2) + rec('00', '', 0n))).toBe('truncated');
  expect(await refusal('00', MAGIC + u64(3) + rec('00', '11', 0n).slice(0, -2))).toBe('truncated');
  expect(await refusal('00', MAGIC + u64(1) + rec('00', '', 0n) + '00')).toBe('trailing');
  expect(await refusal('00', MAGIC + u64(0) + rec('', '', 0n))).toBe('trailing');
  expect(await refusal('00', MAGIC + u64(1) + rec('00', '11', 0n))).toBe('overrun');
  expect(await refusal('00', MAGIC + u64(1) + u64(0) + 'ffffffffffffffff' + s64(0n))).toBe(
    'overrun',
  );
  expect(await refusal('00', MAGIC + u64(2) + rec('00', '', 2n ** 62n))).toBe('seek');
  expect(await refusal('00', MAGIC + u64(2) + rec('00', '', -(2n ** 62n) - 2n))).toBe('seek');
});

test('oldPos exactly at ±2^62 is allowed', async () => {
  const past = MAGIC + u64(2) + rec('', '', 2n ** 62n) + rec('', '', 1n);
  expect(await refusal('00', past)).toBe('seek');
  const below = MAGIC + u64(2) + rec('', '', -(2n ** 62n)) + rec('', '', -1n);
  expect(await refusal('00', below)).toBe('seek');
  expect(await apply('00', MAGIC + u64(1) + rec('', '', 2n ** 62n) + rec('', '01', 0n))).toBe('01');
});
