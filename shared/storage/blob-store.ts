/**
 * The blob store port: encrypted APK bytes in MongoDB GridFS (the driver's GridFSBucket, successor
 * of gridfs-stream). Blobs are stored exactly as given (already ciphertext) with one GridFS chunk
 * per cipher segment, so a plaintext byte range maps to whole chunks and reads only those.
 */
import { GridFSBucket, ObjectId, type Db } from 'mongodb';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CIPHER_SEGMENT_SIZE } from '../crypto/segmented-aead';

export interface BlobStore {
  /** Stores `ciphertext` under `id`, replacing a partial blob a crashed attempt left behind. */
  put(id: string, ciphertext: Readable, metadata: Record<string, unknown>): Promise<number>;
  /** Ciphertext bytes `start..end` (end exclusive). */
  openRange(id: string, start: number, end: number): Readable;
  size(id: string): Promise<number | null>;
  delete(id: string): Promise<void>;
  /** Ids of blobs uploaded before `before` (for orphan sweeps). */
  listBefore(before: Date): Promise<string[]>;
}

export const APK_BUCKET = 'apks';
/** Chunks fetched per query when streaming: bounded queries give a fast first byte. */
const WINDOW_CHUNKS = 16;

export function gridFsBlobStore(db: Db, bucketName = APK_BUCKET): BlobStore {
  const bucket = new GridFSBucket(db, { bucketName, chunkSizeBytes: CIPHER_SEGMENT_SIZE });
  const files = db.collection<{ _id: ObjectId; length: number; uploadDate: Date }>(
    `${bucketName}.files`,
  );
  const chunks = db.collection<{ files_id: ObjectId; n: number; data: { buffer: Uint8Array } }>(
    `${bucketName}.chunks`,
  );

  /**
   * Bytes `start..end` (end exclusive) read in windows of chunks. The driver's download stream
   * queries every remaining chunk at once, which a server may materialise before sending the
   * first batch (FerretDB does): a 50 MB download then waits seconds for its first byte.
   */
  async function* range(id: string, start: number, end: number): AsyncGenerator<Buffer> {
    const filesId = new ObjectId(id);
    const size = CIPHER_SEGMENT_SIZE;
    const last = Math.floor((end - 1) / size);
    for (let from = Math.floor(start / size); from <= last; from += WINDOW_CHUNKS) {
      const to = Math.min(last, from + WINDOW_CHUNKS - 1);
      const docs = await chunks
        .find({ files_id: filesId, n: { $gte: from, $lte: to } })
        .sort({ n: 1 })
        .toArray();
      if (docs.length !== to - from + 1)
        throw new Error(`blob ${id}: chunks ${from}..${to} incomplete`);
      for (const [i, doc] of docs.entries()) {
        const n = from + i;
        if (doc.n !== n) throw new Error(`blob ${id}: chunk ${n} missing`);
        const data = Buffer.from(doc.data.buffer);
        yield data.subarray(Math.max(0, start - n * size), Math.min(data.length, end - n * size));
      }
    }
  }

  async function remove(id: string): Promise<void> {
    try {
      await bucket.delete(new ObjectId(id));
    } catch (err) {
      // Not found: nothing to delete. (A half-written blob has chunks but maybe no files doc.)
      if (!/not found/i.test((err as Error).message)) throw err;
    }
    await db.collection(`${bucketName}.chunks`).deleteMany({ files_id: new ObjectId(id) });
  }

  return {
    async put(id, ciphertext, metadata) {
      await remove(id);
      const upload = bucket.openUploadStreamWithId(new ObjectId(id), id, { metadata });
      await pipeline(ciphertext, upload);
      return upload.length;
    },
    openRange(id, start, end) {
      return Readable.from(range(id, start, end), { objectMode: false });
    },
    async size(id) {
      const doc = await files.findOne({ _id: new ObjectId(id) });
      return doc ? doc.length : null;
    },
    delete: remove,
    async listBefore(before) {
      const docs = await files
        .find({ uploadDate: { $lt: before } }, { projection: { _id: 1 } })
        .toArray();
      return docs.map((d) => d._id.toHexString());
    },
  };
}
