/**
 * The blob store port: encrypted APK bytes in MongoDB GridFS. Blobs are stored exactly as given
 * (already ciphertext), written in batches (gridfs-write.ts) and read with the driver's
 * GridFSBucket. A GridFS chunk holds whole cipher segments (BLOB_CHUNK_SEGMENTS of them), so a
 * plaintext byte range maps to whole chunks and reads only those; each file keeps the chunk size
 * it was written with (blobs stored before at one segment per chunk still read).
 */
import { GridFSBucket, ObjectId, type Binary, type Db } from 'mongodb';
import { isObjectIdShaped, isUploadId } from '../upload-id';
import { Transform, pipeline, type Readable, type TransformCallback } from 'node:stream';
import { CIPHER_SEGMENT_SIZE } from '../crypto/segmented-aead';
import { writeGridFsFile } from './gridfs-write';
import { diskFullAsOutage } from './disk-full';
import { AppError, coerceError } from '../errors';

export interface BlobStore {
  /**
   * Stores `ciphertext` under `id`, replacing a partial blob a crashed attempt left behind. A full
   * disk rejects with DEPENDENCY_UNAVAILABLE (it passes once space is freed).
   */
  put(id: string, ciphertext: Readable, metadata: Record<string, unknown>): Promise<number>;
  /**
   * Ciphertext bytes `start..end` (end exclusive); a stream that would end short (a chunk
   * missing) fails with BLOB_INCOMPLETE instead.
   */
  openRange(id: string, start: number, end: number): Readable;
  /**
   * The whole blob, chunk by chunk in order, a few chunks per reply from the server: for one
   * sequential copy (the ingest worker's). A missing chunk fails with BLOB_INCOMPLETE.
   */
  readAll?(id: string): AsyncIterable<Buffer>;
  size(id: string): Promise<number | null>;
  delete(id: string): Promise<void>;
  /** Ids of blobs uploaded before `before` (for orphan sweeps). */
  listBefore(before: Date): Promise<string[]>;
  /**
   * Drops a local copy of the blob, if this store keeps one (blob-cache.ts), so that the next
   * read goes to the database: for a copy whose bytes failed their authentication.
   */
  discardCopy?(id: string): Promise<void>;
}

export const APK_BUCKET = 'apks';

/**
 * Cipher segments per GridFS chunk: 16 (about 1 MiB a chunk). Measured with bench:ingest
 * (docs/benchmarks.md#upload-ingest); a range reads at most one partial chunk at each end.
 */
export const BLOB_CHUNK_SEGMENTS = 16;
export const BLOB_CHUNK_SIZE = BLOB_CHUNK_SEGMENTS * CIPHER_SEGMENT_SIZE;
/** Chunks per insertMany: 4 MiB of them. */
const WRITE_BATCH_BYTES = 4 * BLOB_CHUNK_SIZE;
/**
 * Chunks per reply when reading a whole blob. The driver's download stream leaves the batch to
 * the server, and the embedded store answered a 100 MiB blob's chunks in one reply, which the
 * ingest worker held (twice over) while copying it (docs/benchmarks.md#upload-ingest).
 */
const READ_BATCH_CHUNKS = 4;

/**
 * A blob's GridFS file id: an ObjectId for ids of that shape (older uploads, screenshots), else
 * the id itself (random upload ids, shared/upload-id.ts).
 */
function fileId(id: string): ObjectId {
  if (isObjectIdShaped(id)) return new ObjectId(id);
  if (!isUploadId(id)) throw new Error('not a blob id (an upload id or a 24 hex string)');
  // GridFS takes any value as a file id (the driver's types say ObjectId only).
  return id as unknown as ObjectId;
}

/**
 * Passes a ranged read through and fails it with BLOB_INCOMPLETE when it ends short: the driver's
 * ranged download stream simply ends when the file's last chunk is missing (a middle one it
 * reports), and a download would then send fewer bytes than its Content-Length.
 */
function exactLength(expected: number, what: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      seen += chunk.length;
      done(null, chunk);
    },
    flush(done: TransformCallback) {
      if (seen === expected) return done();
      const message = `${what} ended after ${seen} of ${expected} bytes (a chunk is missing)`;
      done(new AppError('BLOB_INCOMPLETE', { message }));
    },
  });
}

export function gridFsBlobStore(db: Db, bucketName = APK_BUCKET): BlobStore {
  const bucket = new GridFSBucket(db, { bucketName, chunkSizeBytes: BLOB_CHUNK_SIZE });
  const files = db.collection<{ _id: ObjectId | string; length: number; uploadDate: Date }>(
    `${bucketName}.files`,
  );
  const target = {
    files: db.collection(`${bucketName}.files`),
    chunks: db.collection(`${bucketName}.chunks`),
  };
  let indexes: Promise<unknown> | undefined;
  /** The GridFS spec's indexes, as the driver's upload stream would create them (once). */
  const ensureIndexes = () =>
    (indexes ??= Promise.all([
      target.files.createIndex({ filename: 1, uploadDate: 1 }),
      target.chunks.createIndex({ files_id: 1, n: 1 }, { unique: true }),
    ]).catch((err: unknown) => {
      indexes = undefined;
      throw err;
    }));

  async function remove(id: string): Promise<void> {
    try {
      await bucket.delete(fileId(id));
    } catch (err) {
      // Not found: nothing to delete. (A half-written blob has chunks but maybe no files doc.)
      if (!/not found/i.test(coerceError(err).message)) throw err;
    }
    await db.collection(`${bucketName}.chunks`).deleteMany({ files_id: fileId(id) });
  }

  return {
    async put(id, ciphertext, metadata) {
      try {
        await ensureIndexes();
        await remove(id);
        return await writeGridFsFile(target, ciphertext, {
          id: fileId(id),
          filename: id,
          metadata,
          chunkSize: BLOB_CHUNK_SIZE,
          batchBytes: WRITE_BATCH_BYTES,
        });
      } catch (err) {
        throw diskFullAsOutage(err);
      }
    },
    openRange(id, start, end) {
      const exact = exactLength(end - start, `blob ${id}, bytes ${start}-${end}`);
      // pipeline hands the download's own errors on to `exact` (a reader sees one stream).
      return pipeline(bucket.openDownloadStream(fileId(id), { start, end }), exact, () => {});
    },
    async *readAll(id) {
      const chunks = target.chunks.find(
        { files_id: fileId(id) },
        { sort: { n: 1 }, batchSize: READ_BATCH_CHUNKS },
      );
      let n = 0;
      for await (const doc of chunks) {
        if (doc.n !== n) {
          throw new AppError('BLOB_INCOMPLETE', { message: `blob ${id}: chunk ${n} is missing` });
        }
        n++;
        const data = (doc.data as Binary).buffer;
        yield Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      }
    },
    async size(id) {
      const doc = await files.findOne({ _id: fileId(id) });
      return doc ? doc.length : null;
    },
    delete: remove,
    async listBefore(before) {
      const docs = await files
        .find({ uploadDate: { $lt: before } }, { projection: { _id: 1 } })
        .toArray();
      return docs.map((d) => (typeof d._id === 'string' ? d._id : d._id.toHexString()));
    },
  };
}
