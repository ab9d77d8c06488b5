/**
 * What the receiver does with a form's `apk` part once its key is accepted: store it, encrypted on
 * the fly with a fresh data key, into GridFS under a new upload id. (A part that came before its
 * key waits in pre-auth-hold.ts first.)
 */
import type { Readable } from 'node:stream';
import { newDataKey } from '../../shared/crypto/data-keys';
import { SegmentEncryptor, newNoncePrefix } from '../../shared/crypto/segmented-aead';
import type { BlobStore } from '../../shared/storage/blob-store';
import { newUploadId } from '../../shared/upload-id';
import type { ReceivedFile } from './received';

/**
 * Encrypts `source` on the fly into GridFS under a new upload id. Null: the form was refused
 * meanwhile (`refused()` once stored), and the blob is gone again.
 */
export function storeEncrypted(
  blobs: BlobStore,
  source: Readable,
  refused: () => boolean,
): Promise<ReceivedFile | null> {
  const uploadId = newUploadId();
  const dataKey = newDataKey();
  const noncePrefix = newNoncePrefix();
  let size = 0;
  source.on('data', (chunk: Buffer) => (size += chunk.length));
  const encrypted = source.pipe(new SegmentEncryptor(dataKey, noncePrefix));
  source.on('error', (err) => encrypted.destroy(err));
  // blobs.put attaches its pipeline only after an asynchronous step; a form cut inside the
  // file part errors this stream before that, and an 'error' without a listener would crash
  // the process. put() still rejects with it (its pipeline finds the stream errored).
  encrypted.on('error', () => undefined);
  return blobs.put(uploadId, encrypted, { uploadId }).then(
    async () => {
      if (!refused()) return { uploadId, dataKey, noncePrefix, size };
      await blobs.delete(uploadId);
      return null;
    },
    async (err: unknown) => {
      // Storage failed (a full disk, an outage): the rest of the part is read and dropped, so
      // the form still ends and the client gets its retryable reply instead of a stalled body.
      source.unpipe(encrypted);
      source.resume();
      await blobs.delete(uploadId).catch(() => undefined);
      throw err;
    },
  );
}
