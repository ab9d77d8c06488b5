/**
 * Receives an upload form as a stream (busboy): the `apk` file part is encrypted on the fly with a
 * fresh data key and written to GridFS under a new upload id, never buffered whole and never at
 * rest in clear. Fields may come in any order, before or after the file; unknown fields are
 * ignored. Nothing is authenticated here: the caller decides once the form is complete, and
 * discards the blob when the form is refused.
 */
import { isUtf8 } from 'node:buffer';
import busboy from 'busboy';
import type { Request } from 'express';
import { ObjectId } from 'mongodb';
import { newDataKey } from '../../shared/crypto/data-keys';
import { SegmentEncryptor, newNoncePrefix } from '../../shared/crypto/segmented-aead';
import type { BlobStore } from '../../shared/storage/blob-store';
import { closeAfterReply } from '../close-after-reply';
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
/** What a form may add to its APK: every field at its limit, and part headers. */
const FORM_OVERHEAD = FIELD_LIMITS.fields * FIELD_LIMITS.fieldSize + FIELD_LIMITS.parts * 16 * 1024;

/**
 * Busboy decodes text as latin1 (the default for parameters; set for values too), so the bytes
 * can be checked: names, values and filenames must be UTF-8. Text a part declared another charset
 * for is already decoded; a replacement character there means bytes were lost.
 */
function utf8(text: string): string | null {
  if (/[\u0100-\uffff]/.test(text)) return text.includes('\ufffd') ? null : text;
  const bytes = Buffer.from(text, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}

export function receiveUpload(
  req: Request,
  blobs: BlobStore,
  maxApkBytes: number,
): Promise<Received> {
  return new Promise((resolve) => {
    const refuse = (failure: Extract<Received, { ok: false }>) => {
      if (!req.complete) closeAfterReply(req);
      resolve(failure);
    };
    const declared = Number(req.header('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxApkBytes + FORM_OVERHEAD) {
      refuse({
        ok: false,
        reason: 'too-large',
        detail: `the APK is larger than ${maxApkBytes} bytes`,
      });
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defCharset: 'latin1',
        defParamCharset: 'latin1',
        limits: { ...FIELD_LIMITS, files: 2, fileSize: maxApkBytes },
      });
    } catch (err) {
      refuse({ ok: false, reason: 'not-multipart', detail: (err as Error).message });
      return;
    }
    const fields = new Map<string, string>();
    let file: Promise<ReceivedFile | 'too-large'> | null = null;
    let failure: Extract<Received, { ok: false }> | null = null;
    let done = false;

    /** Refuses the form at once: stop parsing, drop the file part, discard the rest. */
    const abort = (reason: 'malformed' | 'too-large' | 'repeated-file', detail: string) => {
      failure ??= { ok: false, reason, detail };
      // Busboy goes on with its own state after emitting: destroy it once it has returned.
      process.nextTick(() => {
        req.unpipe(parser);
        if (req.complete) req.resume();
        else closeAfterReply(req);
        parser.destroy();
        void finish();
      });
    };

    parser.on('field', (rawName, rawValue, info) => {
      const name = utf8(rawName);
      const value = utf8(rawValue);
      if (name === null || value === null) {
        abort('malformed', 'the form is not valid UTF-8');
      } else if (info.nameTruncated || info.valueTruncated) {
        abort(
          'malformed',
          `the field ${name.slice(0, 64)} is longer than ${FIELD_LIMITS.fieldSize} bytes`,
        );
      } else if (!fields.has(name)) {
        fields.set(name, value);
      }
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
      parser.on(limit, () =>
        abort('malformed', `the form has too many parts (at most ${FIELD_LIMITS.parts})`),
      );
    }
    parser.on('file', (rawName, stream, info) => {
      stream.on('error', () => undefined);
      const name = utf8(rawName);
      if (name === null || (info.filename !== undefined && utf8(info.filename) === null)) {
        stream.resume();
        abort('malformed', 'the form is not valid UTF-8');
        return;
      }
      if (name !== 'apk') {
        stream.resume();
        return;
      }
      if (file) {
        stream.resume();
        abort('repeated-file', 'the form carries more than one apk file');
        return;
      }
      const uploadId = new ObjectId().toHexString();
      const dataKey = newDataKey();
      const noncePrefix = newNoncePrefix();
      let size = 0;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      stream.on('limit', () => abort('too-large', `the APK is larger than ${maxApkBytes} bytes`));
      const encrypted = stream.pipe(new SegmentEncryptor(dataKey, noncePrefix));
      stream.on('error', (err) => encrypted.destroy(err));
      // blobs.put attaches its pipeline only after an asynchronous step; a form cut inside the
      // file part errors this stream before that, and an 'error' without a listener would crash
      // the process. put() still rejects with it (its pipeline finds the stream errored).
      encrypted.on('error', () => undefined);
      file = blobs.put(uploadId, encrypted, { uploadId }).then(
        async () => {
          if (!failure) return { uploadId, dataKey, noncePrefix, size };
          await blobs.delete(uploadId);
          return 'too-large' as const;
        },
        async (err: unknown) => {
          await blobs.delete(uploadId).catch(() => undefined);
          throw err;
        },
      );
    });
    async function finish(): Promise<void> {
      if (done) return;
      done = true;
      let stored: ReceivedFile | 'too-large' | null = null;
      let storeError: unknown;
      try {
        stored = file ? await file : null;
      } catch (err) {
        storeError = err;
      }
      if (failure) {
        if (stored && stored !== 'too-large')
          await blobs.delete(stored.uploadId).catch(() => undefined);
        resolve(failure);
      } else if (storeError !== undefined) {
        const reason = isDependencyOutage(storeError) ? 'unavailable' : 'malformed';
        resolve({ ok: false, reason, detail: (storeError as Error).message });
      } else {
        resolve({ ok: true, fields, file: stored === 'too-large' ? null : stored });
      }
    }
    parser.on('close', () => void finish());
    parser.on('error', (err: Error) => {
      failure ??= { ok: false, reason: 'malformed', detail: err.message };
      if (!req.complete) closeAfterReply(req);
      req.unpipe(parser);
      req.resume();
      void finish();
    });
    req.on('aborted', () => {
      // The client went away inside the form: drop the file part (and its blob) at once.
      failure ??= { ok: false, reason: 'malformed', detail: 'the client aborted the upload' };
      parser.destroy();
      void finish();
    });
    req.pipe(parser);
  });
}
