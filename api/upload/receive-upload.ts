/**
 * Receives an upload form as a stream (busboy): the `apk` file part is encrypted on the fly with a
 * fresh data key and written to GridFS under a new upload id, never at rest in clear. Nothing of
 * the file is stored before the caller's `authenticate` accepted the form's key: a key field that
 * comes first is checked while the body waits unread; a file that comes before any key is held in
 * memory up to a small bound (PushLink's form puts `apiKey` first; the bound keeps small forms in
 * another order working) and refused past it. Other fields may come in any order; unknown fields
 * are ignored. A refused or failed form leaves no blob behind.
 */
import { isUtf8 } from 'node:buffer';
import busboy from 'busboy';
import type { Request } from 'express';
import { ObjectId } from 'mongodb';
import { Readable } from 'node:stream';
import { newDataKey } from '../../shared/crypto/data-keys';
import { SegmentEncryptor, newNoncePrefix } from '../../shared/crypto/segmented-aead';
import type { BlobStore } from '../../shared/storage/blob-store';
import type { UploadLimits } from '../../shared/uploads/upload-limits';
import { closeAfterReply } from '../close-after-reply';
import { isDependencyOutage } from '../http-errors';
import { watchBodyProgress, type ProgressBounds } from './body-progress';

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
        | 'not-multipart'
        | 'malformed'
        | 'too-large'
        | 'repeated-file'
        | 'unavailable'
        /** The body-progress deadline cut it (`progress`). */
        | 'too-slow';
      readonly detail: string;
    }
  | {
      /** `authenticate` refused the form's key (or its lack of one): `error` is what it threw. */
      readonly ok: false;
      readonly reason: 'refused';
      readonly error: unknown;
      /** No key came before the file outgrew `preAuthBytes`. */
      readonly keyAfterFile: boolean;
      readonly detail: string;
    };

export interface ReceiveOptions {
  readonly maxApkBytes: number;
  /**
   * Checks the form's API key when the caller has not authenticated the request already: called
   * once, with the first `apiKey` (or `api_key`) field, or with undefined when the form ends, or
   * its file outgrows `preAuthBytes`, without one. It rejects to refuse the upload. Until it has
   * resolved nothing of the file is stored: the file waits in memory (at most `preAuthBytes`) or,
   * while the check runs, unread in the socket.
   */
  readonly authenticate?: (presented: string | undefined) => Promise<void>;
  readonly preAuthBytes?: number;
  /** The body-progress deadline (UPLOAD_PROGRESS_*); unset: none. */
  readonly progress?: ProgressBounds;
}

const KEY_FIELDS = ['apiKey', 'api_key'];

/** An apk part received before the key was known, held in memory until the key is checked. */
interface HeldFile {
  readonly held: readonly Buffer[];
}

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
  options: ReceiveOptions,
): Promise<Received> {
  const { maxApkBytes, authenticate, preAuthBytes = 0 } = options;
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
    let file: Promise<ReceivedFile | HeldFile | null> | null = null;
    let failure: Extract<Received, { ok: false }> | null = null;
    let done = false;
    /** Settles once the key was checked (never rejects); null: not asked yet. */
    let authorized: Promise<void> | null = authenticate ? null : Promise.resolve();
    let keyAfterFile = false;

    /** Stops parsing and discards the rest of the body (the reply closes the connection). */
    const halt = () => {
      // Busboy goes on with its own state after emitting: destroy it once it has returned.
      process.nextTick(() => {
        req.unpipe(parser);
        if (req.complete) req.resume();
        else closeAfterReply(req);
        parser.destroy();
        void finish();
      });
    };

    /** Refuses the form at once: stop parsing, drop the file part, discard the rest. */
    const abort = (
      reason: 'malformed' | 'too-large' | 'repeated-file' | 'too-slow',
      detail: string,
    ) => {
      failure ??= { ok: false, reason, detail };
      halt();
    };

    /**
     * Checks `presented` (once). The body is not read meanwhile: a file part that follows waits
     * unread, so nothing of it is stored or buffered before the key is known.
     */
    const check = (presented: string | undefined): Promise<void> => {
      if (authorized) return authorized;
      const reading = !done;
      if (reading) {
        req.unpipe(parser);
        req.pause();
      }
      authorized = authenticate!(presented)
        .then(() => {
          if (keyAfterFile) throw new Error('no API key came before the file');
          if (reading && !failure) req.pipe(parser);
        })
        .catch((error: unknown) => {
          failure ??= {
            ok: false,
            reason: 'refused',
            error,
            keyAfterFile,
            detail: 'the API key was refused',
          };
          halt();
        });
      return authorized;
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
        if (KEY_FIELDS.includes(name) && !failure) void check(value);
      }
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
      parser.on(limit, () =>
        abort('malformed', `the form has too many parts (at most ${FIELD_LIMITS.parts})`),
      );
    }

    /** Encrypts `source` on the fly into GridFS under a new upload id; null: refused meanwhile. */
    const store = (source: Readable): Promise<ReceivedFile | null> => {
      const uploadId = new ObjectId().toHexString();
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
          if (!failure) return { uploadId, dataKey, noncePrefix, size };
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
    };

    /**
     * Holds an apk part that came before any key, up to `preAuthBytes`; past them the upload is
     * refused (and counted as a missing key) without reading further.
     */
    const hold = (stream: Readable): Promise<HeldFile | null> => {
      const held: Buffer[] = [];
      let size = 0;
      return new Promise((resolve, reject) => {
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= preAuthBytes) {
            held.push(chunk);
          } else if (!keyAfterFile) {
            // Stops reading; the refusal (counted as a missing key) then ends the form.
            keyAfterFile = true;
            held.length = 0;
            void check(undefined);
          }
        });
        stream.on('end', () => resolve(keyAfterFile ? null : { held }));
        stream.on('error', reject);
      });
    };

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
      stream.on('limit', () => abort('too-large', `the APK is larger than ${maxApkBytes} bytes`));
      file = authorized
        ? authorized.then(() => {
            if (!failure) return store(stream);
            stream.resume();
            return null;
          })
        : hold(stream);
    });
    async function finish(): Promise<void> {
      if (done) return;
      done = true;
      stopWatch();
      let stored: ReceivedFile | HeldFile | null = null;
      let storeError: unknown;
      try {
        stored = file ? await file : null;
      } catch (err) {
        storeError = err;
      }
      // A form that ended without a key is refused like a wrong key (and counted as one).
      if (!failure && storeError === undefined) await check(undefined);
      else await authorized;
      let kept: ReceivedFile | null = null;
      if (stored && 'held' in stored) {
        if (!failure)
          kept = await store(Readable.from(stored.held)).catch((err: unknown) => {
            storeError = err;
            return null;
          });
      } else {
        kept = stored;
      }
      if (failure) {
        if (kept) await blobs.delete(kept.uploadId).catch(() => undefined);
        resolve(failure);
      } else if (storeError !== undefined) {
        const reason = isDependencyOutage(storeError) ? 'unavailable' : 'malformed';
        resolve({ ok: false, reason, detail: (storeError as Error).message });
      } else {
        resolve({ ok: true, fields, file: kept });
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
    const { progress } = options;
    const stopWatch = progress
      ? watchBodyProgress(req, progress, () =>
          abort(
            'too-slow',
            `the upload was too slow (fewer than ${progress.minBytes} bytes in ${progress.windowMs} ms)`,
          ),
        )
      : () => undefined;
    req.pipe(parser);
  });
}

/** The body-progress deadline of UPLOAD_PROGRESS_BYTES / UPLOAD_PROGRESS_WINDOW_MS. */
export function uploadProgressBounds(limits: UploadLimits): ProgressBounds {
  return { minBytes: limits.progressBytes, windowMs: limits.progressWindowMs };
}
