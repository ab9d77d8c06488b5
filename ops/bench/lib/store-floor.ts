/**
 * The store's own floor for bench:ingest: a raw GridFS put and get of the same bytes through the
 * `mongodb` driver's GridFSBucket (its upload stream: one insert per chunk), at the chunk size
 * the blob store writes, into a database of its own on the deployment's MongoDB-protocol server.
 * No TLS, no encryption, no verification: what storing and reading the bytes costs by themselves.
 */
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, MongoClient } from 'mongodb';
import { BLOB_CHUNK_SIZE } from '../../../shared/storage/blob-store';

export interface StoreFloor {
  readonly chunkSize: number;
  readonly putSeconds: number;
  readonly getSeconds: number;
}

const FLOOR_DATABASE = 'bench_store_floor';

const since = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

export async function measureStoreFloor(mongoUrl: string, file: string): Promise<StoreFloor> {
  const client = await MongoClient.connect(mongoUrl);
  try {
    const db = client.db(FLOOR_DATABASE);
    const bucket = new GridFSBucket(db, { bucketName: 'floor', chunkSizeBytes: BLOB_CHUNK_SIZE });
    const putStart = process.hrtime.bigint();
    const upload = bucket.openUploadStream('floor');
    await pipeline(createReadStream(file, { highWaterMark: BLOB_CHUNK_SIZE }), upload);
    const putSeconds = since(putStart);
    const getStart = process.hrtime.bigint();
    let read = 0;
    for await (const chunk of bucket.openDownloadStream(upload.id))
      read += (chunk as Buffer).length;
    const getSeconds = since(getStart);
    if (read !== upload.length) throw new Error(`store floor: read ${read} of ${upload.length}`);
    await db.dropDatabase();
    return { chunkSize: BLOB_CHUNK_SIZE, putSeconds, getSeconds };
  } finally {
    await client.close();
  }
}
