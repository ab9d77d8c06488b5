/**
 * Processor of `apk-ingest`: verifies an uploaded APK (already encrypted in GridFS under the upload
 * id) and records it. Idempotent and crash-safe, so BullMQ may run it again after a crash at any
 * point:
 * - a decided upload (done/failed) returns its recorded verdict;
 * - the APK record is inserted once (unique upload id), and a record found means "only finish";
 * - the duplicate rule is a unique index (app, sha256), so concurrent twins store exactly one;
 * - a rejected upload's blob is deleted; the blob of an accepted one is kept (it is the record's);
 * - setting the current APK and the version notice are idempotent (see current-apk.ts).
 * Rejections are final (UnrecoverableError, verdict recorded); outages are thrown and retried.
 * A job naming an upload of another account is refused before any write (job-ownership.ts).
 */
import os from 'node:os';
import { UnrecoverableError } from 'bullmq';
import { MongoServerError, ObjectId, type Db } from 'mongodb';
import {
  inspectSource,
  type InspectReport,
  type InspectResult,
} from '../../shared/apk/inspect-apk';
import { setCurrentApk } from '../../shared/rollouts/current-apk';
import type { NoticeSink } from '../../shared/notices/notice-sink';
import type { ApkDoc } from '../../shared/catalog/types';
import { unwrapDataKey } from '../../shared/crypto/data-keys';
import type { KeyRing } from '../../shared/crypto/keys';
import type { ApkIngestPayload } from '../../shared/queues/apk-ingest';
import type { BlobStore } from '../../shared/storage/blob-store';
import { isDiskFull } from '../../shared/storage/disk-full';
import {
  blobCiphertext,
  decryptingSource,
  fileCiphertext,
  localCiphertextCopy,
  watchedCiphertext,
  type CiphertextReader,
} from '../../shared/storage/encrypted-source';
import { judgeApk, signerContinuity, type AcceptableApk } from '../../shared/uploads/judge-apk';
import { rejection, type Verdict } from '../../shared/uploads/verdicts';
import type { JobContext, Processor } from '../processor';
import { upsertApp } from './ingest-app';
import { uploadOfAccount } from '../job-ownership';
import { coerceError } from '../../shared/errors';
import { emitEvent, type EmitDeps } from '../../shared/webhooks/deliveries';
import { uploadActor } from '../../shared/audit/types';
import { rolloutRecorder } from '../../shared/rollouts/changes';
import { underAppLock } from '../../shared/catalog/app-lock';
import { catalogCollections } from '../../shared/catalog/collections';

export interface ApkIngestDeps {
  readonly db: Db;
  readonly blobs: BlobStore;
  readonly keys: KeyRing;
  readonly notices: NoticeSink;
  readonly now: () => Date;
  /** Where the ciphertext is copied for verification (default: the OS temporary directory). */
  readonly tmpDir?: string;
  /** Where `apk.accepted` / `apk.rejected` webhook events go; unset: none. */
  readonly events?: EmitDeps;
}

export function apkIngestProcessor(
  deps: ApkIngestDeps,
): Processor<ApkIngestPayload, { status: string }> {
  const { apks, uploads } = catalogCollections(deps.db);
  const { decide, finish } = verdicts(deps);

  return async (p, ctx) => {
    try {
      return await ingest(p, ctx);
    } catch (err) {
      // Out of retries on an outage: decide now, so the upload neither hangs nor leaves a blob.
      if (!(err instanceof UnrecoverableError) && ctx.attempt >= ctx.maxAttempts) {
        ctx.log.error({ err: coerceError(err) }, 'apk ingest gave up');
        await decide(p, rejection('UPLOAD_FAILED'));
      }
      throw err;
    }
  };

  async function ingest(p: ApkIngestPayload, ctx: JobContext): Promise<{ status: string }> {
    const upload = await uploads.findOne({ _id: p.uploadId });
    uploadOfAccount(upload, p.uploadId, p.accountId);
    if (upload?.verdict) {
      if (upload.verdict.status === 'rejected') throw new UnrecoverableError(upload.verdict.code);
      return { status: upload.status };
    }
    const stored = await apks.findOne({ uploadId: p.uploadId });
    if (stored) return finish(p, stored);
    await uploads.updateOne(
      { _id: p.uploadId },
      { $set: { status: 'processing', updatedAt: deps.now() } },
    );

    const size = await deps.blobs.size(p.uploadId);
    if (size === null) return decide(p, rejection('UPLOAD_FAILED', 'The uploaded bytes are gone.'));
    const dataKey = unwrapDataKey(deps.keys, p.wrappedKey, p.uploadId);
    const inspected = await inspectUpload(deps, p, size, dataKey, ctx);
    const { report, verification } = inspected;
    ctx.log.info(
      {
        uploadId: p.uploadId,
        package: report.package,
        valid: report.valid,
        errors: report.errors.map((e) => e.code),
      },
      'apk inspected',
    );
    const judged = judgeApk(report, p.expectedPackage);
    if (!judged.ok) return decide(p, judged.verdict);
    const apk = judged.apk;
    const lineage = verification?.lineage ?? [];

    const app = await upsertApp(deps.db, p.accountId, apk, report.label, deps.now());
    const continuity = signerContinuity(app.signerSha256, apk.signerSha256, lineage);
    if (continuity === 'mismatch') return decide(p, rejection('APK_SIGNER_MISMATCH'));
    if (await isDuplicate(deps.db, app._id, apk)) return decide(p, rejection('APK_DUPLICATE'));

    const doc = apkRecord(p, app._id, apk, report, lineage, deps.now());
    try {
      await apks.insertOne(doc);
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
      // Our own earlier attempt inserted it, or a concurrent twin won the (app, sha256) index.
      const mine = await apks.findOne({ uploadId: p.uploadId });
      if (mine) return finish(p, mine);
      return decide(p, rejection('APK_DUPLICATE'));
    }
    if (continuity === 'rotated') {
      await underAppLock(deps.db, app._id, () =>
        catalogCollections(deps.db).apps.updateOne(
          { _id: app._id, signerSha256: app.signerSha256 },
          { $set: { signerSha256: apk.signerSha256, updatedAt: deps.now() } },
        ),
      );
    }
    return finish(p, doc);
  }
}

async function isDuplicate(db: Db, appId: ObjectId, apk: AcceptableApk): Promise<boolean> {
  return (
    (await catalogCollections(db).apks.countDocuments(
      { appId, $or: [{ sha256: apk.sha256 }, { md5: apk.md5 }] },
      { limit: 1 },
    )) > 0
  );
}

/** Records an upload's verdict; `finish` first makes an accepted APK current when asked. */
function verdicts(deps: ApkIngestDeps): {
  readonly decide: (p: ApkIngestPayload, verdict: Verdict) => Promise<{ status: string }>;
  readonly finish: (p: ApkIngestPayload, apk: ApkDoc) => Promise<{ status: string }>;
} {
  const { uploads } = catalogCollections(deps.db);
  async function decide(p: ApkIngestPayload, verdict: Verdict): Promise<{ status: string }> {
    const status = verdict.status === 'accepted' ? 'done' : 'failed';
    // Before the verdict is recorded: a retry after a failed emit emits again (same key: once).
    await announce(p, verdict);
    await uploads.updateOne(
      { _id: p.uploadId },
      { $set: { status, verdict, updatedAt: deps.now() } },
    );
    if (verdict.status === 'rejected') {
      await deps.blobs.delete(p.uploadId);
      throw new UnrecoverableError(`${verdict.code}: ${verdict.message}`);
    }
    return { status };
  }

  /** The verdict's webhook event, once per upload (the key is the upload id). */
  async function announce(p: ApkIngestPayload, verdict: Verdict): Promise<void> {
    if (!deps.events) return;
    const apk =
      verdict.status === 'accepted'
        ? await catalogCollections(deps.db).apks.findOne({ uploadId: p.uploadId })
        : null;
    const data = {
      uploadId: p.uploadId,
      package: apk?.package ?? p.expectedPackage,
      ...(apk ? { sha256: apk.sha256, versionCode: apk.versionCode, current: p.current } : {}),
      ...(verdict.status === 'rejected' ? { code: verdict.code, message: verdict.message } : {}),
    };
    const event = verdict.status === 'accepted' ? 'apk.accepted' : 'apk.rejected';
    await emitEvent(deps.events, [p.accountId], event, data, `upload:${p.uploadId}`);
  }

  async function finish(p: ApkIngestPayload, apk: ApkDoc): Promise<{ status: string }> {
    if (p.current) {
      // A rollout this makes obsolete is recorded (audit, webhook) as the upload's doing.
      const record = rolloutRecorder(
        { db: deps.db, now: deps.now, ...(deps.events ? { events: deps.events } : {}) },
        { actor: uploadActor(p.uploadId), address: null },
      );
      await setCurrentApk(deps.db, deps.notices, apk, deps.now(), record);
    }
    return decide(p, { status: 'accepted', apkId: apk._id.toHexString() });
  }
  return { decide, finish };
}

/**
 * Inspects the upload's APK, decrypted on the fly from a local copy of its ciphertext (or from
 * storage when the local disk is full). Throws on a read failure, so the job is retried.
 */
async function inspectUpload(
  deps: ApkIngestDeps,
  p: ApkIngestPayload,
  size: number,
  dataKey: Buffer,
  ctx: JobContext,
): Promise<InspectResult> {
  // An outage while copying throws here, before any verdict: the job is retried. A full local
  // disk is no reason to fail an acknowledged upload (nor to wait): read from storage instead.
  const local = await localCiphertextCopy(
    deps.blobs,
    p.uploadId,
    size,
    deps.tmpDir ?? os.tmpdir(),
  ).catch((err: unknown) => {
    if (!isDiskFull(err)) throw err;
    ctx.log.warn({ err: coerceError(err) }, 'temporary disk full: verifying from storage');
    return null;
  });
  try {
    const reader: CiphertextReader = local
      ? await fileCiphertext(local.path)
      : blobCiphertext(deps.blobs, p.uploadId, size);
    const cipher = watchedCiphertext(reader);
    const source = decryptingSource(cipher, dataKey, Buffer.from(p.noncePrefix, 'base64'));
    const inspected = await inspectSource(source, p.uploadId);
    await source.close();
    if (cipher.failure()) throw cipher.failure(); // a read failure, not a bad APK: retry
    return inspected;
  } finally {
    await local?.cleanup();
  }
}

/** The APK record of an accepted upload (its blob is the upload's, under the same data key). */
function apkRecord(
  p: ApkIngestPayload,
  appId: ObjectId,
  apk: AcceptableApk,
  report: InspectReport,
  lineage: ApkDoc['lineage'],
  uploadedAt: Date,
): ApkDoc {
  const doc: ApkDoc = {
    _id: new ObjectId(),
    appId,
    accountId: p.accountId,
    package: apk.package,
    versionCode: apk.versionCode,
    versionName: report.versionName,
    minSdk: report.minSdk,
    targetSdk: report.targetSdk,
    label: report.label,
    debuggable: report.debuggable === true,
    schemes: report.schemes,
    md5: apk.md5,
    sha256: apk.sha256,
    size: apk.size,
    signerSha256: apk.signerSha256,
    lineage,
    whatsnew: p.whatsnew,
    uploadedAt,
    uploader: p.accountId,
    uploadId: p.uploadId,
    blobId: p.uploadId,
    wrappedKey: p.wrappedKey,
    noncePrefix: p.noncePrefix,
  };
  return doc;
}
