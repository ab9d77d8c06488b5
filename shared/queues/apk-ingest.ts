/**
 * Queue `apk-ingest`: one job per upload, id from the upload id (a retried enqueue is a no-op). The
 * API has already streamed the APK, encrypted, into GridFS under the same id; the worker verifies
 * it and records it. The payload carries the data key only wrapped by the master key.
 */
import { MINUTE_MS } from './budget';
import { isUploadId } from '../upload-id';
import { asRecord, defineQueue } from './definition';
import { PayloadInvalid } from '../errors';

export interface ApkIngestPayload {
  readonly uploadId: string;
  readonly accountId: string;
  readonly wrappedKey: string;
  readonly noncePrefix: string;
  readonly current: boolean;
  readonly whatsnew: string | null;
  /** Set by the JSON route: the APK must be of this package. */
  readonly expectedPackage: string | null;
}

export const apkIngestQueue = defineQueue<ApkIngestPayload, { status: string }, 'apk-ingest'>({
  name: 'apk-ingest',
  // Verification is CPU-bound; two per process keeps a 2-core machine busy without thrashing.
  concurrency: 2,
  // Whole-job budget (workers/runtime.ts): copying and verifying an APK of up to the upload limit.
  budgetMs: 30 * MINUTE_MS,
  parse(data) {
    const p = asRecord(data, 'apk-ingest');
    const str = (k: string) => {
      if (typeof p[k] !== 'string') throw new PayloadInvalid('apk-ingest', `${k} must be a string`);
      return p[k];
    };
    const uploadId = str('uploadId');
    if (!isUploadId(uploadId)) throw new PayloadInvalid('apk-ingest', 'uploadId is no upload id');
    const optional = (k: string) => (p[k] === null || p[k] === undefined ? null : str(k));
    return {
      uploadId,
      accountId: str('accountId'),
      wrappedKey: str('wrappedKey'),
      noncePrefix: str('noncePrefix'),
      current: p.current === true,
      whatsnew: optional('whatsnew'),
      expectedPackage: optional('expectedPackage'),
    };
  },
  // BullMQ refuses all-digit custom ids; a prefix rules that out.
  jobId: (p) => `upload-${p.uploadId}`,
  jobOptions: {
    // An acknowledged upload must survive an outage (its bytes are safe in GridFS): retry for
    // about an hour (2 s doubling: 2 s ... 34 min). A short budget gave up within a minute of
    // MongoDB being down, and its last attempt could not even record UPLOAD_FAILED, leaving the
    // upload undecided.
    attempts: 12,
    backoff: { type: 'exponential', delay: 2_000 },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  },
});
