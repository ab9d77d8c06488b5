/**
 * The API's side of the ingest queue: record the upload, enqueue its job, and (for the legacy
 * endpoint) wait for the worker's verdict. The verdict is read from the upload document, which
 * the worker writes before the job completes; BullMQ's completion event only wakes the waiter
 * early, so a missed event (Redis restart) costs latency, never a wrong or lost answer. A Mongo
 * outage while waiting is waited out too: at worst the caller gets "still processing" (202).
 */
import type { Queue, QueueEvents } from 'bullmq';
import type { Db } from 'mongodb';
import type { EventEmitter } from 'node:events';
import type { UploadDoc } from '../../shared/catalog/types';
import { wrapDataKey } from '../../shared/crypto/data-keys';
import type { KeyRing } from '../../shared/crypto/keys';
import { apkIngestQueue, type ApkIngestPayload } from '../../shared/queues/apk-ingest';
import type { BlobStore } from '../../shared/storage/blob-store';
import { diskFullAsOutage } from '../../shared/storage/disk-full';
import { surelyNotSent } from '../../shared/storage/redis';
import type { Verdict } from '../../shared/uploads/verdicts';
import { isDependencyOutage } from '../http-errors';
import type { ReceivedFile } from './received';
import { catalogCollections } from '../../shared/catalog/collections';

export interface IngestClient {
  /**
   * Records the upload and enqueues its ingest job. On a failure nothing of it remains, unless
   * the job may have landed: then it resolves when Redis shows the job, and keeps the upload
   * (rejecting) when Redis cannot say.
   */
  submit(
    accountId: string,
    file: ReceivedFile,
    options: { current: boolean; whatsnew: string | null; expectedPackage: string | null },
  ): Promise<string>;
  /** The verdict, or null when none came within `timeoutMs` or the API began to stop. */
  waitForVerdict(uploadId: string, timeoutMs: number): Promise<Verdict | null>;
  find(accountId: string, uploadId: string): Promise<UploadDoc | null>;
}

const POLL_MS = 1_000;

export interface IngestClientDeps {
  db: Db;
  blobs: BlobStore;
  keys: KeyRing;
  queue: Pick<Queue, 'add' | 'getJob'>;
  events: QueueEvents;
  /**
   * Aborted when the API stops: waiters answer at once ("still processing", 202). Their uploads
   * are acknowledged by then (queued in Redis), so the workers finish them, now or after a restart.
   */
  stopping?: AbortSignal;
}

export function createIngestClient(deps: IngestClientDeps): IngestClient {
  const { uploads } = catalogCollections(deps.db);
  return {
    async submit(accountId, file, options) {
      const payload: ApkIngestPayload = {
        uploadId: file.uploadId,
        accountId,
        wrappedKey: wrapDataKey(deps.keys, file.dataKey, file.uploadId),
        noncePrefix: file.noncePrefix.toString('base64'),
        current: options.current,
        whatsnew: options.whatsnew,
        expectedPackage: options.expectedPackage,
      };
      const jobId = apkIngestQueue.jobId!(payload);
      const now = new Date();
      let adding = false;
      try {
        await uploads.insertOne({
          _id: file.uploadId,
          accountId,
          status: 'queued',
          verdict: null,
          package: options.expectedPackage,
          createdAt: now,
          updatedAt: now,
        });
        adding = true;
        await deps.queue.add('ingest', payload, { ...apkIngestQueue.jobOptions, jobId });
      } catch (err) {
        const job = adding ? await enqueued(deps.queue, jobId, err) : 'absent';
        // The job is in Redis: the upload is acknowledged, its job will run.
        if (job === 'present') return file.uploadId;
        if (job === 'absent') {
          // Unacknowledged: leave no trace, the client gets a retryable error (a full disk too).
          await uploads.deleteOne({ _id: file.uploadId }).catch(() => undefined);
          await deps.blobs.delete(file.uploadId).catch(() => undefined);
        }
        // 'unknown': a job may have landed and needs both; if none did, the housekeeping sweep
        // fails the upload and removes its blob once it is stale.
        throw diskFullAsOutage(err);
      }
      return file.uploadId;
    },

    waitForVerdict: (uploadId, timeoutMs) => waitForVerdict(deps, uploadId, timeoutMs),

    find: (accountId, uploadId) => uploads.findOne({ _id: uploadId, accountId }),
  };
}

/**
 * Whether a failed add left its job in Redis: surely not when the add was never sent
 * (storage/redis.ts), else as Redis answers now; 'unknown' when it cannot answer.
 */
async function enqueued(
  queue: IngestClientDeps['queue'],
  jobId: string,
  err: unknown,
): Promise<'present' | 'absent' | 'unknown'> {
  if (surelyNotSent(err)) return 'absent';
  try {
    return (await queue.getJob(jobId)) ? 'present' : 'absent';
  } catch {
    return 'unknown';
  }
}

/** Polls the upload's verdict until `timeoutMs`, woken early by its job's end or by `stopping`. */
async function waitForVerdict(
  deps: IngestClientDeps,
  uploadId: string,
  timeoutMs: number,
): Promise<Verdict | null> {
  const { uploads } = catalogCollections(deps.db);
  const deadline = Date.now() + timeoutMs;
  // Woken early by the job's completion event. Not BullMQ's Job.waitUntilFinished: its
  // promise executor is async, so a Redis command failing inside it (Redis going away just
  // then) was an unhandled rejection, which ends the API process.
  const jobId = apkIngestQueue.jobId!({ uploadId } as ApkIngestPayload);
  const finished = [`completed:${jobId}`, `failed:${jobId}`];
  const events = deps.events as unknown as EventEmitter;
  let woken = false;
  let wake: (() => void) | undefined;
  const onFinished = () => {
    woken = true;
    wake?.();
  };
  for (const name of finished) events.on(name, onFinished);
  deps.stopping?.addEventListener('abort', onFinished);
  try {
    while (Date.now() < deadline) {
      // The upload is acknowledged (its job is queued): an outage while waiting must not turn
      // into a 503, which tells the client to send again what will be stored anyway.
      const doc = await uploads
        .findOne({ _id: uploadId }, { projection: { verdict: 1 } })
        .catch((err: unknown) => {
          if (isDependencyOutage(err)) return null;
          throw err;
        });
      if (doc?.verdict) return doc.verdict;
      if (deps.stopping?.aborted) return null;
      if (woken) {
        woken = false; // finished meanwhile: read the verdict again at once
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
    return null;
  } finally {
    for (const name of finished) events.off(name, onFinished);
    deps.stopping?.removeEventListener('abort', onFinished);
  }
}
