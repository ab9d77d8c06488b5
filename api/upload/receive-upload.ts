/**
 * Receives an upload form as a stream (busboy): the `apk` file part is encrypted on the fly with a
 * fresh data key and written to GridFS under a new upload id, never buffered whole and never at
 * rest in clear. Fields may come in any order, before or after the file; unknown fields are
 * ignored. Nothing is authenticated here: the caller decides once the form is complete, and
 * discards the blob when the form is refused.
 */
import busboy from 'busboy';
import type { Request } from 'express';
import { ObjectId } from 'mongodb';
import { newDataKey } from '../../shared/crypto/data-keys';
import { SegmentEncryptor, newNoncePrefix } from '../../shared/crypto/segmented-aead';
import type { BlobStore } from '../../shared/storage/blob-store';
import { isDependencyOutage } from '../http-errors';

export interface ReceivedFile {
  readonly uploadId: string;
  readonly dataKey: Buffer;
  readonly noncePrefix: Buffer;
  readonly size: number;
}

export type Received =
  | {
      readonly ok: true;
      readonly fields: ReadonlyMap<string, string>;
      readonly file: ReceivedFile | null;
    }
  | {
      readonly ok: false;
      readonly reason:
        'not-multipart' | 'malformed' | 'too-large' | 'repeated-file' | 'unavailable';
      readonly detail: string;
    };

const FIELD_LIMITS = { fields: 32, fieldSize: 64 * 1024, parts: 40, headerPairs: 64 };

export function receiveUpload(
  req: Request,
  blobs: BlobStore,
  maxApkBytes: number,
): Promise<Received> {
  return new Promise((resolve) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { ...FIELD_LIMITS, files: 2, fileSize: maxApkBytes },
      });
    } catch (err) {
      resolve({ ok: false, reason: 'not-multipart', detail: (err as Error).message });
      return;
    }
    const fields = new Map<string, string>();
    let file: Promise<ReceivedFile | 'too-large'> | null = null;
    let failure: Extract<Received, { ok: false }> | null = null;

    parser.on('field', (name, value) => {
      if (!fields.has(name)) fields.set(name, value);
    });
    parser.on('file', (name, stream) => {
      if (name !== 'apk') {
        stream.resume();
        return;
      }
      if (file) {
        failure ??= {
          ok: false,
          reason: 'repeated-file',
          detail: 'the form carries more than one apk file',
        };
        stream.resume();
        return;
      }
      const uploadId = new ObjectId().toHexString();
      const dataKey = newDataKey();
      const noncePrefix = newNoncePrefix();
      let size = 0;
      let truncated = false;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      stream.on('limit', () => (truncated = true));
      const encrypted = stream.pipe(new SegmentEncryptor(dataKey, noncePrefix));
      stream.on('error', (err) => encrypted.destroy(err));
      // blobs.put attaches its pipeline only after an asynchronous step; a form cut inside the
      // file part errors this stream before that, and an 'error' without a listener would crash
      // the process. put() still rejects with it (its pipeline finds the stream errored).
      encrypted.on('error', () => undefined);
      file = blobs.put(uploadId, encrypted, { uploadId }).then(
        async () => {
          if (!truncated) return { uploadId, dataKey, noncePrefix, size };
          await blobs.delete(uploadId);
          return 'too-large' as const;
        },
        async (err: unknown) => {
          await blobs.delete(uploadId).catch(() => undefined);
          throw err;
        },
      );
    });
    const finish = async () => {
      try {
        const stored = file ? await file : null;
        if (stored === 'too-large') {
          resolve({
            ok: false,
            reason: 'too-large',
            detail: `the APK is larger than ${maxApkBytes} bytes`,
          });
        } else if (failure) {
          if (stored) await blobs.delete(stored.uploadId);
          resolve(failure);
        } else {
          resolve({ ok: true, fields, file: stored });
        }
      } catch (err) {
        const reason = isDependencyOutage(err) ? 'unavailable' : 'malformed';
        resolve({ ok: false, reason, detail: (err as Error).message });
      }
    };
    parser.on('close', () => void finish());
    parser.on('error', (err: Error) => {
      failure ??= { ok: false, reason: 'malformed', detail: err.message };
      req.unpipe(parser);
      req.resume();
      void finish();
    });
    req.on('aborted', () => {
      failure ??= { ok: false, reason: 'malformed', detail: 'the client aborted the upload' };
    });
    req.pipe(parser);
  });
}
