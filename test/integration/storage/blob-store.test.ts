/**
 * The GridFS blob store on the real MongoDB-protocol server: chunks of whole cipher segments
 * written in batches, each file read at its own chunk size (blobs stored before at one segment
 * per chunk still read), and a small range fetches only the chunk that holds it. The server's
 * replies are counted with the driver's command monitoring.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, MongoClient, ObjectId, type CommandStartedEvent } from 'mongodb';
import { gridFsBlobStore } from '../../../shared/storage/blob-store';
import { isolation, serviceUrls } from '../../helpers/services';

/** 16 cipher segments of 64 KiB + a 16-byte tag (docs/storage.md). */
const CHUNK = 16 * (65_536 + 16);
const OLD_CHUNK = 65_536 + 16;

let client: MongoClient;
const started: CommandStartedEvent[] = [];
const chunkDocsRead: number[] = [];
const database = isolation().database;
beforeAll(async () => {
  client = new MongoClient(serviceUrls().mongoUrl, { monitorCommands: true });
  client.on('commandStarted', (e) => started.push(e));
  client.on('commandSucceeded', (e) => {
    const cursor = (e.reply as { cursor?: { ns?: string; firstBatch?: []; nextBatch?: [] } })
      .cursor;
    if (cursor?.ns?.endsWith('.apks.chunks')) {
      chunkDocsRead.push((cursor.firstBatch ?? cursor.nextBatch ?? []).length);
    }
  });
  await client.connect();
});
afterAll(async () => {
  await client.db(database).dropDatabase();
  await client.close();
});
beforeEach(() => {
  started.length = 0;
  chunkDocsRead.length = 0;
});

const db = () => client.db(database);
async function bytes(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}
/** The source as a stream of small pieces, as an upload arrives. */
const pieces = (data: Buffer) =>
  Readable.from(
    Array.from({ length: Math.ceil(data.length / 40_000) }, (_, i) =>
      data.subarray(i * 40_000, (i + 1) * 40_000),
    ),
  );

test('a blob is stored in chunks of 16 cipher segments, 4 chunks per insert, files doc last', async () => {
  const id = new ObjectId().toHexString();
  const data = randomBytes(10 * CHUNK + 5); // 11 chunks
  const length = await gridFsBlobStore(db()).put(id, pieces(data), { uploadId: id });
  expect(length).toBe(data.length);
  const file = await db()
    .collection('apks.files')
    .findOne({ _id: new ObjectId(id) });
  expect(file).toMatchObject({ length: data.length, chunkSize: CHUNK, metadata: { uploadId: id } });
  const chunks = await db()
    .collection('apks.chunks')
    .find({ files_id: new ObjectId(id) })
    .sort({ n: 1 })
    .toArray();
  expect(chunks.map((c) => (c.data as { buffer: Uint8Array }).buffer.length)).toEqual([
    ...Array<number>(10).fill(CHUNK),
    5,
  ]);
  const inserts = started.filter((e) => e.commandName === 'insert');
  expect(
    inserts.map((e) => [e.command.insert as string, (e.command.documents as unknown[]).length]),
  ).toEqual([
    ['apks.chunks', 4],
    ['apks.chunks', 4],
    ['apks.chunks', 3],
    ['apks.files', 1],
  ]);
  expect((await bytes(gridFsBlobStore(db()).openRange(id, 0, data.length))).equals(data)).toBe(
    true,
  );
});

test('a blob stored at the old chunk size (one segment per chunk) still reads, whole and ranged', async () => {
  const id = new ObjectId();
  const data = randomBytes(5 * OLD_CHUNK + 100);
  const old = new GridFSBucket(db(), { bucketName: 'apks', chunkSizeBytes: OLD_CHUNK });
  await pipeline(Readable.from([data]), old.openUploadStreamWithId(id, id.toHexString()));
  const store = gridFsBlobStore(db());
  expect(await store.size(id.toHexString())).toBe(data.length);
  expect((await bytes(store.openRange(id.toHexString(), 0, data.length))).equals(data)).toBe(true);
  const [start, end] = [2 * OLD_CHUNK + 7, 4 * OLD_CHUNK + 9];
  chunkDocsRead.length = 0;
  const range = await bytes(store.openRange(id.toHexString(), start, end));
  expect(range.equals(data.subarray(start, end))).toBe(true);
  expect(chunkDocsRead.reduce((a, b) => a + b, 0)).toBe(3); // chunks 2, 3 and 4
});

test('a small range reads only the one chunk that holds it', async () => {
  const id = new ObjectId().toHexString();
  const data = randomBytes(6 * CHUNK);
  const store = gridFsBlobStore(db());
  await store.put(id, pieces(data), {});
  chunkDocsRead.length = 0;
  const [start, end] = [3 * CHUNK + 1_000, 3 * CHUNK + 1_100];
  expect((await bytes(store.openRange(id, start, end))).equals(data.subarray(start, end))).toBe(
    true,
  );
  expect(chunkDocsRead).toEqual([1]);
});

test('a source that fails midway leaves no files doc: the blob does not exist', async () => {
  const id = new ObjectId().toHexString();
  const store = gridFsBlobStore(db());
  async function* failing() {
    yield await Promise.resolve(randomBytes(5 * CHUNK));
    throw new Error('connection cut');
  }
  await expect(store.put(id, Readable.from(failing()), {})).rejects.toThrow('connection cut');
  expect(await store.size(id)).toBeNull();
});

test('a whole blob read for a copy comes in order, at most 4 chunks per reply', async () => {
  const id = new ObjectId().toHexString();
  const data = randomBytes(10 * CHUNK + 5); // 11 chunks
  const store = gridFsBlobStore(db());
  await store.put(id, pieces(data), { uploadId: id });
  chunkDocsRead.length = 0;
  const parts: Buffer[] = [];
  for await (const part of store.readAll!(id)) parts.push(part);
  expect(Buffer.concat(parts).equals(data)).toBe(true);
  expect(chunkDocsRead).toEqual([4, 4, 3]);
});

test('a whole blob with a chunk missing fails instead of reading short', async () => {
  const id = new ObjectId().toHexString();
  const store = gridFsBlobStore(db());
  await store.put(id, pieces(randomBytes(3 * CHUNK)), { uploadId: id });
  await db()
    .collection('apks.chunks')
    .deleteOne({ files_id: new ObjectId(id), n: 1 });
  const read = async () => {
    for await (const part of store.readAll!(id)) void part;
  };
  await expect(read()).rejects.toMatchObject({ code: 'BLOB_INCOMPLETE' });
});

// The driver reports a missing middle chunk itself; a missing last chunk just ended its stream.
test.each([
  ['the last chunk', 2, [CHUNK + 10, 2 * CHUNK + 500], { code: 'BLOB_INCOMPLETE' }],
  [
    'the last chunk, the range up to the blob end',
    2,
    [0, 3 * CHUNK - 7],
    { code: 'BLOB_INCOMPLETE' },
  ],
  [
    'a middle chunk',
    1,
    [CHUNK - 10, CHUNK + 10],
    { message: expect.stringMatching(/chunk/i) as unknown },
  ],
] as const)(
  'a ranged read over a missing chunk (%s) fails instead of reading short',
  async (_what, missing, [start, end], failure) => {
    const id = new ObjectId().toHexString();
    const store = gridFsBlobStore(db());
    await store.put(id, pieces(randomBytes(3 * CHUNK - 7)), { uploadId: id });
    await db()
      .collection('apks.chunks')
      .deleteOne({ files_id: new ObjectId(id), n: missing });
    await expect(bytes(store.openRange(id, start, end))).rejects.toMatchObject(failure);
  },
);
