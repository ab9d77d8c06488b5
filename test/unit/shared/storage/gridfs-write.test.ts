/**
 * The GridFS write path's chunk buffers (a fake collection pair; the real server's layout is
 * test/integration/storage/blob-store.test.ts): buffers are reused across batches, and never while
 * an insert that holds them is still under way.
 */
import type { Collection, Document, ObjectId } from 'mongodb';
import { writeGridFsFile } from '../../../../shared/storage/gridfs-write';

interface Chunk {
  n: number;
  data: Buffer;
}

/** A chunks collection whose inserts read their documents' bytes only when they finish. */
function slowChunks() {
  const stored: Array<{ n: number; bytes: Buffer }> = [];
  const buffers = new Set<ArrayBufferLike>();
  const chunks = {
    async insertMany(docs: Chunk[]) {
      for (const d of docs) buffers.add(d.data.buffer);
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (const d of docs) stored.push({ n: d.n, bytes: Buffer.from(d.data) });
      return { insertedCount: docs.length };
    },
  };
  const files = { insertOne: () => Promise.resolve({ acknowledged: true }) };
  return { stored, buffers, files, chunks };
}

/** Chunks of 64 KiB (larger than Node's shared pool serves): 10 full ones and 300 bytes. */
const CHUNK = 65_536;
const SOURCE = Buffer.from(Array.from({ length: 10 * CHUNK + 300 }, (_, i) => i % 251));

async function* pieces(): AsyncGenerator<Buffer> {
  for (let i = 0; i < SOURCE.length; i += 40_000) {
    yield SOURCE.subarray(i, i + 40_000);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('each chunk holds its own bytes until its insert is done, from at most two batches of buffers', async () => {
  const fake = slowChunks();
  const length = await writeGridFsFile(
    {
      files: fake.files as unknown as Collection<Document>,
      chunks: fake.chunks as unknown as Collection<Document>,
    },
    pieces(),
    {
      id: 'f' as unknown as ObjectId,
      filename: 'f',
      metadata: {},
      chunkSize: CHUNK,
      batchBytes: 2 * CHUNK,
    },
  );
  expect(length).toBe(10 * 65_536 + 300);
  expect(fake.stored.map((c) => c.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(Buffer.concat(fake.stored.map((c) => c.bytes)).equals(SOURCE)).toBe(true);
  // 11 chunks, 2 per insert, one insert in flight while the next batch fills: 2 batches and the
  // chunk being filled, not a buffer per chunk.
  expect(fake.buffers.size).toBeLessThanOrEqual(5);
});
