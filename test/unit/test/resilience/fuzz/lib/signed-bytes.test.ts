/**
 * The signature fuzz's oracle (test/resilience/fuzz/lib/signed-bytes.ts) on a hand-built archive:
 * 10 bytes of entries, an APK Signing Block with one v2 pair, 6 bytes of central directory and a
 * 22-byte end record whose central-directory offset is the block's end. Offsets are literal.
 */
import type { Seed } from '../../../../../resilience/fuzz/lib/corpus';
import {
  changedOutsideBlock,
  signedBase,
  type SignedBase,
} from '../../../../../resilience/fuzz/lib/signed-bytes';

const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

/** A signing block of one pair (id, 4 value bytes): 8 + 16 + 8 + 16 = 48 bytes. */
function block(id: number): Buffer {
  const pair = Buffer.concat([u64(8), u32(id), Buffer.from([1, 2, 3, 4])]);
  const size = pair.length + 8 + 16;
  return Buffer.concat([u64(size), pair, u64(size), Buffer.from('APK Sig Block 42', 'latin1')]);
}

/** Entries [0, 10), block [10, 58), central directory [58, 64), end record [64, 86). */
function apk(id = 0x7109871a, cdOffset = 58): Buffer {
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt32LE(6, 12);
  eocd.writeUInt32LE(cdOffset, 16);
  return Buffer.concat([Buffer.alloc(10, 0xaa), block(id), Buffer.alloc(6, 0xcc), eocd]);
}

function seed(bytes: Buffer, apksigner?: 'ACCEPT' | 'REJECT'): Seed {
  const layout = {
    eocdOffset: 64,
    cdOffset: 58,
    cdSize: 6,
    records: [],
    lfhs: [],
    signingBlock: { offset: 10, size: 48 },
  };
  return { name: 'hand-built', bytes, layout, manifest: null, ...(apksigner && { apksigner }) };
}

const base = signedBase(seed(apk(), 'ACCEPT')) as SignedBase;
const flip = (b: Buffer, at: number) => {
  const c = Buffer.from(b);
  c[at] = (c[at] ?? 0) ^ 0xff;
  return c;
};

test('a seed apksigner accepts with a v2 or v3 pair is a base; others are not', () => {
  expect(base).toMatchObject({ block: [10, 58], cdOffsetField: 80 });
  expect(signedBase(seed(apk(0xf05368c0), 'ACCEPT'))).not.toBeNull();
  expect(signedBase(seed(apk(0x42726577), 'ACCEPT'))).toBeNull(); // padding only
  expect(signedBase(seed(apk(), 'REJECT'))).toBeNull();
  expect(signedBase(seed(apk()))).toBeNull();
});

test('bytes changed outside the block are named; inside it, nothing', () => {
  expect(changedOutsideBlock(apk(), base)).toBeNull();
  expect(changedOutsideBlock(flip(apk(), 3), base)).toBe(3);
  expect(changedOutsideBlock(flip(apk(), 60), base)).toBe(60);
  expect(changedOutsideBlock(flip(apk(), 70), base)).toBe(70);
  expect(changedOutsideBlock(flip(apk(), 30), base)).toBeNull();
});

test('a resized or removed block is inside when the end record follows it', () => {
  const grown = Buffer.concat([apk().subarray(0, 58), Buffer.alloc(4), apk().subarray(58)]);
  grown.writeUInt32LE(62, 84);
  expect(changedOutsideBlock(grown, base)).toBeNull();
  const stale = Buffer.from(grown);
  stale.writeUInt32LE(58, 84);
  expect(changedOutsideBlock(stale, base)).toBe(84);
  const removed = Buffer.concat([apk().subarray(0, 10), apk().subarray(58)]);
  removed.writeUInt32LE(10, 32);
  expect(changedOutsideBlock(removed, base)).toBeNull();
});

test('a cut archive is changed', () => {
  expect(changedOutsideBlock(apk().subarray(0, 80), base)).not.toBeNull();
  expect(changedOutsideBlock(apk().subarray(0, 5), base)).not.toBeNull();
});

test('an end record whose offset is not the block end (ZIP64) may not change at all', () => {
  const zip64 = signedBase(seed(apk(undefined, 0xffffffff), 'ACCEPT')) as SignedBase;
  expect(changedOutsideBlock(apk(undefined, 0xffffffff), zip64)).toBeNull();
  expect(changedOutsideBlock(apk(undefined, 0xfffffffe), zip64)).toBe(80);
});
