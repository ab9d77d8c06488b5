/**
 * Screenshots of exception reports in the GridFS bucket `screenshots`. The file id is derived from
 * the report id (first 12 bytes of its SHA-256), so a retried job finds its earlier copy. Small
 * port so the worker and the API never touch GridFS directly.
 */
import { createHash } from 'node:crypto';
import { GridFSBucket, MongoServerError, ObjectId, type Db } from 'mongodb';
import type { Readable } from 'node:stream';
import { withDeadline } from '../deadline';
import { SCREENSHOT_BUCKET } from './collections';

/** A screenshot is at most a few hundred KB: seconds when the store is healthy. */
export const SCREENSHOT_WRITE_DEADLINE_MS = 30_000;

export interface ScreenshotStore {
  /** Stores `bytes` for report `reportId` unless a complete copy is there; returns the file id. */
  put(reportId: string, bytes: Buffer, metadata: Record<string, unknown>): Promise<string>;
  /** Null when there is no screenshot with this file id. */
  open(fileId: string): Promise<{ length: number; stream: Readable } | null>;
}

export function screenshotIdOf(reportId: string): ObjectId {
  return new ObjectId(createHash('sha256').update(reportId).digest().subarray(0, 12));
}

export function gridFsScreenshots(db: Db): ScreenshotStore {
  let bucket: GridFSBucket | undefined;
  const get = () => (bucket ??= new GridFSBucket(db, { bucketName: SCREENSHOT_BUCKET }));
  const files = () =>
    db.collection<{ _id: ObjectId; length: number }>(`${SCREENSHOT_BUCKET}.files`);
  return {
    async put(reportId, bytes, metadata) {
      const id = screenshotIdOf(reportId);
      const existing = await files().findOne({ _id: id });
      if (existing?.length === bytes.length) return id.toHexString();
      const write = () =>
        withDeadline({ ms: SCREENSHOT_WRITE_DEADLINE_MS, what: 'screenshot write' }, (signal) => {
          const upload = get().openUploadStreamWithId(id, `${reportId}.jpg`, {
            metadata: { ...metadata, reportId, contentType: 'image/jpeg' },
          });
          signal.addEventListener('abort', () => upload.destroy(), { once: true });
          return new Promise<void>((resolve, reject) => {
            upload.once('error', reject);
            upload.once('finish', () => resolve());
            upload.end(bytes);
          });
        });
      if (!existing) {
        try {
          await write();
          return id.toHexString();
        } catch (err) {
          // Chunks a crashed attempt left behind collide with the unique (files_id, n) index.
          if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
        }
      }
      // Only after a crash: clear the partial copy (this scans the chunks), then write again.
      await files().deleteOne({ _id: id });
      await db.collection(`${SCREENSHOT_BUCKET}.chunks`).deleteMany({ files_id: id });
      await write();
      return id.toHexString();
    },
    async open(fileId) {
      if (!ObjectId.isValid(fileId)) return null;
      const id = new ObjectId(fileId);
      const doc = await files().findOne({ _id: id });
      if (!doc) return null;
      return { length: doc.length, stream: get().openDownloadStream(id) };
    },
  };
}
