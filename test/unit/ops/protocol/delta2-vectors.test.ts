/**
 * The ARDELTA2 shared vectors (device-client/protocol/vectors/delta2-vectors.json, read by the
 * Java core too): the committed file is what ops/protocol/delta2-vectors.ts writes today, it holds
 * the cases the contract requires (names, range counts and refusal words written here by hand),
 * and every vector behaves as it says through the TS applier: the exact bytes and hashes, or the
 * named refusal.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { DELTA2_VECTORS_FILE, delta2VectorsText } from '../../../../ops/protocol/delta2-vectors';
import { inflatePatch } from '../../../../device-client/node/inflater';
import { applyInMemory2, chunked, vectorTests, type DeltaVector } from '../../../helpers/delta';

const text = readFileSync(join(__dirname, '../../../..', DELTA2_VECTORS_FILE), 'utf8');
const file = JSON.parse(text) as { format: string; vectors: DeltaVector[] };
const named = new Map(file.vectors.map((v) => [v.name, v]));

async function apply(v: DeltaVector): Promise<Buffer> {
  const patch = inflatePatch(chunked(Buffer.from(v.patch, 'base64'), 64));
  return (await applyInMemory2(patch, Buffer.from(v.old, 'base64'))).bytes;
}

/** [old ranges, new ranges] a vector's plan announces. */
function rangeCounts(v: DeltaVector): [number, number] {
  const plan = inflateSync(Buffer.from(v.patch, 'base64'));
  const oldCount = plan.readUInt32BE(16);
  return [oldCount, plan.readUInt32BE(20 + oldCount * 24)];
}

test('the committed vectors are what the generator writes (run npm run protocol:vectors)', async () => {
  expect(text).toBe(await delta2VectorsText());
});

test('the vectors cover the cases of the contract', () => {
  expect(file.format).toBe('ARDELTA2');
  expect(file.vectors.map((v) => [v.name, v.error ?? null])).toEqual([
    ['changed, unchanged and stored entries', null],
    ['levels 1 and 9, filtered, huffman-only, rle and fixed', null],
    ['a new entry and an empty one', null],
    ['a hand-made plan: inflate "hello", copy it, recompress it at level 6', null],
    ['an ARDELTA1 magic', 'magic'],
    ['truncated: ends inside the plan', 'truncated'],
    ['an old range outside the old file', 'plan'],
    ['an old range inflating to another length', 'plan'],
    ['an old range ending inside its stream', 'plan'],
    ['an old range that is not deflate data', 'plan'],
    ['level 0', 'plan'],
    ['new ranges overlapping', 'plan'],
    ['a new range past dfNew', 'plan'],
    ['a final file of another size than announced', 'size'],
    ['a record past dfNew', 'overrun'],
    ['trailing bytes after the last record', 'trailing'],
    ['corrupt zlib', 'corrupt'],
    ['oldPos beyond 2^62', 'seek'],
  ]);
});

test('the generated patches go file by file: the changed deflated entries are ranges', () => {
  // one changed dex; five changed entries of five settings, four of them file by file (fixed codes
  // are never chosen: pako and zlib 1.2.13 can differ there); a changed dex, a new and an empty entry
  expect(rangeCounts(named.get('changed, unchanged and stored entries')!)).toEqual([1, 1]);
  expect(rangeCounts(named.get('levels 1 and 9, filtered, huffman-only, rle and fixed')!)).toEqual([
    4, 4,
  ]);
  expect(rangeCounts(named.get('a new entry and an empty one')!)).toEqual([1, 3]);
});

test('literal outcome of the hand-made plan', () => {
  const v = named.get('a hand-made plan: inflate "hello", copy it, recompress it at level 6')!;
  expect(Buffer.from(v.new!, 'base64').toString('hex')).toBe('6162cb48cdc9c90700');
});

vectorTests(file.vectors, apply);
