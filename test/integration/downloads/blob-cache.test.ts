/**
 * The download cache in front of the GridFS blob store (real MongoDB-protocol server, real files):
 * the same bytes for every range, one copy however many concurrent misses, reads from the file
 * once copied, a size bound with least-recently-read eviction, and nothing left behind when a copy
 * cannot be made.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ObjectId } from 'mongodb';
import { createLogger } from '../../../shared/log';
import { cachedBlobStore } from '../../../shared/storage/blob-cache';
import { gridFsBlobStore } from '../../../shared/storage/blob-store';
import { useIsolatedMongo } from '../../helpers/services';
import { countedBlobs } from '../../helpers/counted-blobs';

const db = useIsolatedMongo();
let dir: string;
const log = createLogger('silent');
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-blob-cache-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function bytes(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

async function storedBlob(size: number): Promise<{ id: string; data: Buffer }> {
  const id = new ObjectId().toHexString();
  const data = randomBytes(size);
  await gridFsBlobStore(db.mongo.db).put(id, Readable.from([data]), {});
  return { id, data };
}

test('same bytes for every range; concurrent misses make one copy; later reads use the file', async () => {
  const { id, data } = await storedBlob(300_000);
  const store = countedBlobs(gridFsBlobStore(db.mongo.db));
  const cache = cachedBlobStore(store, { dir, maxBytes: 10 * 1024 ** 2, log });

  const ranges: Array<[number, number]> = [
    [0, data.length],
    [65_552, 131_104],
    [1, 2],
    [299_000, 300_000],
  ];
  const first = await Promise.all(ranges.map(([s, e]) => bytes(cache.openRange(id, s, e))));
  first.forEach((got, i) => expect(got.equals(data.subarray(...ranges[i]!))).toBe(true));
  expect(store.reads).toEqual([[0, data.length]]); // one copy for four concurrent misses
  expect(await readdir(dir)).toEqual([id]);

  // Chunks gone from the database: the cached file still serves.
  await db.mongo.db.collection('apks.chunks').deleteMany({ files_id: new ObjectId(id) });
  expect((await bytes(cache.openRange(id, 10, 70_000))).equals(data.subarray(10, 70_000))).toBe(
    true,
  );
  expect(store.reads).toHaveLength(1);

  await cache.delete(id);
  expect(await readdir(dir)).toEqual([]);
});

test('stays under its bound: the least recently read file goes first; too big is never cached', async () => {
  const a = await storedBlob(400_000);
  const b = await storedBlob(400_000);
  const c = await storedBlob(400_000);
  const huge = await storedBlob(1_100_000);
  const cache = cachedBlobStore(gridFsBlobStore(db.mongo.db), { dir, maxBytes: 1_000_000, log });
  await bytes(cache.openRange(a.id, 0, 10));
  await bytes(cache.openRange(b.id, 0, 10));
  // a was read longer ago than b (mtime marks the last read).
  await utimes(path.join(dir, a.id), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  await bytes(cache.openRange(c.id, 0, 10)); // copied, then the cache trimmed
  expect((await readdir(dir)).sort()).toEqual([b.id, c.id].sort());

  const got = await bytes(cache.openRange(huge.id, 5, 1_000_005));
  expect(got.equals(huge.data.subarray(5, 1_000_005))).toBe(true);
  expect(await readdir(dir)).not.toContain(huge.id);
});

test('a copy that fails leaves no file, and the read falls back to the store', async () => {
  const { id } = await storedBlob(4_000_000);
  // A chunk missing (the second of four, about 1 MiB each): the copy fails part-way, and so does the store's
  // own read.
  await db.mongo.db.collection('apks.chunks').deleteMany({ files_id: new ObjectId(id), n: 1 });
  const cache = cachedBlobStore(gridFsBlobStore(db.mongo.db), {
    dir,
    maxBytes: 10 * 1024 ** 2,
    log,
  });
  await expect(bytes(cache.openRange(id, 0, 4_000_000))).rejects.toThrow(/chunk/i);
  expect(await readdir(dir)).toEqual([]);

  // An id that is not an ObjectId never names a file: it goes to the store, which refuses it.
  expect(() => cache.openRange('../../etc/passwd', 0, 10)).toThrow(/hex string/);
  expect(await readdir(dir)).toEqual([]);
});

test('a read asked while a damaged copy is being dropped reads the store, never that file', async () => {
  const { id, data } = await storedBlob(300_000);
  const cache = cachedBlobStore(gridFsBlobStore(db.mongo.db), {
    dir,
    maxBytes: 10 * 1024 ** 2,
    log,
  });
  await bytes(cache.openRange(id, 0, 10)); // copied
  await writeFile(path.join(dir, id), randomBytes(data.length)); // the copy damaged
  for (let i = 0; i < 20; i++) {
    // The download that found the damage drops the copy; a client's retry arrives at once.
    const dropping = cache.discardCopy!(id);
    const again = await bytes(cache.openRange(id, 0, data.length));
    expect(again.equals(data)).toBe(true);
    await dropping;
    await writeFile(path.join(dir, id), randomBytes(data.length)); // damaged again
  }
});
