/**
 * The ARDELTA1 shared vectors (device-client/protocol/vectors/delta-vectors.json, read by the
 * Java core too): the committed file is what ops/protocol/delta-vectors.ts writes today, it holds
 * the cases the contract requires (names and refusal words written here by hand), and every
 * vector behaves as it says through the server's applier: the exact bytes and hashes, or the
 * named refusal.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DELTA_VECTORS_FILE, deltaVectorsText } from '../../../../ops/protocol/delta-vectors';
import { inflatePatch } from '../../../../device-client/node/inflater';
import { applyInMemory, chunked, vectorTests, type DeltaVector } from '../../../helpers/delta';

const text = readFileSync(join(__dirname, '../../../..', DELTA_VECTORS_FILE), 'utf8');
const file = JSON.parse(text) as { format: string; vectors: DeltaVector[] };

async function apply(v: DeltaVector): Promise<Buffer> {
  const patch = inflatePatch(chunked(Buffer.from(v.patch, 'base64')));
  return (await applyInMemory(patch, Buffer.from(v.old, 'base64'))).bytes;
}

test('the committed vectors are what the generator writes (run npm run protocol:vectors)', () => {
  expect(text).toBe(deltaVectorsText());
});

test('the vectors cover the cases of the contract', () => {
  expect(file.format).toBe('ARDELTA1');
  expect(file.vectors.map((v) => [v.name, v.error ?? null])).toEqual([
    ['identical files', null],
    ['one byte changed', null],
    ['insertion in the middle', null],
    ['new file shorter', null],
    ['new file longer', null],
    ['empty new file', null],
    ['empty old file', null],
    ['unrelated files', null],
    ['old positions outside the file read as 0', null],
    ['wrong magic', 'magic'],
    ['truncated: ends inside a record', 'truncated'],
    ['truncated: no record for the announced size', 'truncated'],
    ['trailing bytes after the last record', 'trailing'],
    ['a record past the new size', 'overrun'],
    ['corrupt zlib', 'corrupt'],
    ['not zlib at all', 'corrupt'],
    ['oldPos beyond 2^62', 'seek'],
  ]);
});

test('literal outcomes', () => {
  const named = new Map(file.vectors.map((v) => [v.name, v]));
  expect(named.get('empty new file')?.newMd5).toBe('d41d8cd98f00b204e9800998ecf8427e');
  expect(named.get('empty new file')?.newSha256).toBe(
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  );
  expect(
    Buffer.from(named.get('old positions outside the file read as 0')!.new!, 'base64'),
  ).toEqual(Buffer.from([0x01, 0x42, 0x43]));
  expect(Buffer.from(named.get('identical files')!.new!, 'base64')).toEqual(
    Buffer.from(named.get('identical files')!.old, 'base64'),
  );
});

vectorTests(file.vectors, apply);
