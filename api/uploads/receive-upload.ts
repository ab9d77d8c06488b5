/**
 * Receives an upload form as a stream (busboy): the `apk` file part is encrypted on the fly with a
 * fresh data key and written to GridFS under a new upload id, never at rest in clear. Nothing of
 * the file is stored before the caller's `authenticate` accepted the form's key: a key field that
 * comes first is checked while the body waits unread; a file that comes before any key is held in
 * memory up to a small bound (PushLink's form puts `apiKey` first; the bound keeps small forms in
 * another order working) and refused past it. Other fields may come in any order; unknown fields
 * are ignored. A refused or failed form leaves no blob behind.
 *
 * This module refuses what can be refused before parsing (a declared length past the bound, a body
 * that is not multipart); form-reception.ts is the state machine that receives the form.
 */
import busboy from 'busboy';
import type { Request } from 'express';
import type { BlobStore } from '../../shared/storage/blob-store';
import type { UploadLimits } from '../../shared/uploads/upload-limits';
import { closeAfterReply } from '../close-after-reply';
import type { ProgressBounds } from './body-progress';
import { FIELD_LIMITS, FormReception } from './form-reception';
import type { ReceiveOptions, Received, Refusal } from './received';
import { coerceError } from '../../shared/errors';

export type { ReceiveOptions, Received, ReceivedFile } from './received';

/** What a form may add to its APK: every field at its limit, and part headers. */
const FORM_OVERHEAD = FIELD_LIMITS.fields * FIELD_LIMITS.fieldSize + FIELD_LIMITS.parts * 16 * 1024;

export function receiveUpload(
  req: Request,
  blobs: BlobStore,
  options: ReceiveOptions,
): Promise<Received> {
  const { maxApkBytes } = options;
  return new Promise((resolve) => {
    const refuse = (failure: Refusal) => {
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
      refuse({ ok: false, reason: 'not-multipart', detail: coerceError(err).message });
      return;
    }
    new FormReception(req, parser, blobs, options, resolve).start();
  });
}

/** The body-progress deadline of UPLOAD_PROGRESS_BYTES / UPLOAD_PROGRESS_WINDOW_MS. */
export function uploadProgressBounds(limits: UploadLimits): ProgressBounds {
  return { minBytes: limits.progressBytes, windowMs: limits.progressWindowMs };
}
