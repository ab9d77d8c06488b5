/**
 * The generator: a patch for a literal pair has the records bsdiff's loop gives (written out by
 * hand), and on random old/new pairs (edits, insertions, deletions, unrelated files) the
 * generated patch applied to the old file gives exactly the new file.
 */
import { generatePatch } from '../../../../../device-client/protocol/delta/generate-patch';
import { applyInMemory, chunked } from '../../../../helpers/delta';

function generate(old: Uint8Array, target: Uint8Array): Buffer {
  const chunks: Uint8Array[] = [];
  generatePatch(old, target, (c) => chunks.push(c));
  return Buffer.concat(chunks);
}

async function roundTrip(old: Uint8Array, patch: Uint8Array): Promise<Buffer> {
  return (await applyInMemory(chunked(patch), old)).bytes;
}

test('identical files: one record of zero diffs (its seek back to 0, as bsdiff writes it)', () => {
  const old = Buffer.from('0123456789abcdefghij');
  const hex = generate(old, old).toString('hex');
  expect(hex).toBe(
    '415244454c544131' +
      '0000000000000014' +
      '0000000000000014' +
      '0000000000000000' +
      'ffffffffffffffec' +
      '00'.repeat(20),
  );
});

test('an empty new file is the header alone', () => {
  expect(generate(Buffer.from('abc'), new Uint8Array(0)).toString('hex')).toBe(
    '415244454c5441310000000000000000',
  );
});

test('from an empty old file, all of the new file is extra', () => {
  expect(generate(new Uint8Array(0), Buffer.from('xyz')).toString('hex')).toBe(
    '415244454c544131' +
      '0000000000000003' +
      '0000000000000000' +
      '0000000000000003' +
      '0000000000000000' +
      '78797a',
  );
});

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x80000000;
  };
}

/** A new file made from the old one by a few random edits. */
function edited(old: Uint8Array, next: () => number): Uint8Array {
  let bytes = Buffer.from(old);
  const edits = Math.floor(next() * 6);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(next() * (bytes.length + 1));
    const len = Math.floor(next() * 40);
    const fresh = Buffer.from(Array.from({ length: len }, () => Math.floor(next() * 256)));
    const kind = Math.floor(next() * 3);
    if (kind === 0) bytes = Buffer.concat([bytes.subarray(0, at), fresh, bytes.subarray(at)]);
    else if (kind === 1) bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + len)]);
    else bytes = Buffer.concat([bytes.subarray(0, at), fresh, bytes.subarray(at + len)]);
  }
  return bytes;
}

test('random pairs: the patch applied to the old file gives the new file', async () => {
  const next = random(42);
  for (let round = 0; round < 200; round++) {
    const length = Math.floor(next() * (round % 10 === 0 ? 5000 : 300));
    const alphabet = round % 4 === 0 ? 3 : 256;
    const old = Uint8Array.from({ length }, () => Math.floor(next() * alphabet));
    const target =
      round % 7 === 0
        ? Uint8Array.from({ length: Math.floor(next() * 300) }, () => Math.floor(next() * 256))
        : edited(old, next);
    const patch = generate(old, target);
    expect((await roundTrip(old, patch)).equals(Buffer.from(target))).toBe(true);
  }
});

test('a small edit in a large file gives a small patch', () => {
  const next = random(3);
  const old = Uint8Array.from({ length: 100_000 }, () => Math.floor(next() * 256));
  const target = Buffer.from(old);
  target[50_000] = (target[50_000]! + 1) & 0xff;
  const patch = generate(old, target);
  // one record of 100 000 diff bytes (all zero but one) is the whole patch: no extra bytes
  expect(patch.length).toBe(16 + 24 + 100_000);
  expect(patch.subarray(40).filter((b) => b !== 0)).toEqual(Uint8Array.of(1));
});
