/**
 * The blob store port: encrypted APK bytes in MongoDB GridFS (the driver's GridFSBucket, successor
 * of gridfs-stream). Blobs are stored exactly as given (already ciphertext) with one GridFS chunk
 * per cipher segment, so a plaintext byte range maps to whole chunks and reads only those.
 */
import { GridFSBucket, ObjectId, type Db } from 'mongodb';
import { isObjectIdShaped, isUploadId } from '../upload-id';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CIPHER_SEGMENT_SIZE } from '../crypto/segmented-aead';
import { diskFullAsOutage } from './disk-full';
import { coerceError } from '../errors';

export interface BlobStore {
  /**
   * Stores `ciphertext` under `id`, replacing a partial blob a crashed attempt left behind. A full
   * disk rejects with DEPENDENCY_UNAVAILABLE (it passes once space is freed).
   */
  put(id: string, ciphertext: Readable, metadata: Record<string, unknown>): Promise<number>;
  /** Ciphertext bytes `start..end` (end exclusive). */
  openRange(id: string, start: number, end: number): Readable;
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
 * A blob's GridFS file id: an ObjectId for ids of that shape (older uploads, screenshots), else
 * the id itself (random upload ids, shared/upload-id.ts).
 */
function fileId(id: string): ObjectId {
  if (isObjectIdShaped(id)) return new ObjectId(id);
  if (!isUploadId(id)) throw new Error('not a blob id (an upload id or a 24 hex string)');
  // GridFS takes any value as a file id (the driver's types say ObjectId only).
  return id as unknown as ObjectId;
}

export function gridFsBlobStore(db: Db, bucketName = APK_BUCKET): BlobStore {
  const bucket = new GridFSBucket(db, { bucketName, chunkSizeBytes: CIPHER_SEGMENT_SIZE });
  const files = db.collection<{ _id: ObjectId | string; length: number; uploadDate: Date }>(
    `${bucketName}.files`,
  );

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
        await remove(id);
        const upload = bucket.openUploadStreamWithId(fileId(id), id, { metadata });
        await pipeline(ciphertext, upload);
        return upload.length;
      } catch (err) {
        throw diskFullAsOutage(err);
      }
    },
    openRange(id, start, end) {
      return bucket.openDownloadStream(fileId(id), { start, end });
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
