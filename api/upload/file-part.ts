/**
 * The two things the receiver does with a form's `apk` part: store it (encrypted on the fly with
 * a fresh data key, into GridFS under a new upload id) once the key is accepted, or hold it in
 * memory, up to a bound, while the key is not known yet.
 */
import type { Readable } from 'node:stream';
import { newDataKey } from '../../shared/crypto/data-keys';
import { SegmentEncryptor, newNoncePrefix } from '../../shared/crypto/segmented-aead';
import type { BlobStore } from '../../shared/storage/blob-store';
import { newUploadId } from '../../shared/uploads/upload-id';
import type { ReceivedFile } from './received';

/** An apk part received before the key was known, held in memory until the key is checked. */
export interface HeldFile {
  readonly held: readonly Buffer[];
}

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

/**
 * Holds `stream` in memory up to `maxBytes`. Past them what was held is dropped and `onOutgrown`
 * is called (once): the caller refuses the upload, which ends the form; the result is then null.
 */
export function holdInMemory(
  stream: Readable,
  maxBytes: number,
  onOutgrown: () => void,
): Promise<HeldFile | null> {
  const held: Buffer[] = [];
  let size = 0;
  let outgrown = false;
  return new Promise((resolve, reject) => {
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) {
        held.push(chunk);
      } else if (!outgrown) {
        outgrown = true;
        held.length = 0;
        onOutgrown();
      }
    });
    stream.on('end', () => resolve(outgrown ? null : { held }));
    stream.on('error', reject);
  });
}
