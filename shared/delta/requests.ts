/**
 * Asks for an app's patches whenever its targets change: wraps the notice sink, since every
 * change of what devices should run (an APK made current by the API or by ingest, a rollout
 * started, advanced or halted) sends a version notice. The job is added just before the notice
 * goes out, so a device that asks for its patch at once finds the job and is told "not ready
 * yet" (shared/delta/pending.ts) rather than "not available"; a failed add does not fail the
 * change (patches only save bytes: devices then download the full APK), it is reported to
 * `onError`.
 */
import type { NoticeSink } from '../notices/notice-sink';
import { deltaGenerateQueue, type DeltaGeneratePayload } from '../queues/delta-generate';

export interface DeltaJobQueue {
  add(name: string, data: DeltaGeneratePayload, opts: object): Promise<unknown>;
}

export function requestingDeltas(
  sink: NoticeSink,
  queue: DeltaJobQueue,
  onError: (err: unknown) => void,
): NoticeSink {
  return {
    async publish(notice) {
      const payload = {
        accountId: notice.accountId,
        appId: notice.appId,
        currentVersion: notice.currentVersion,
      };
      const jobId = deltaGenerateQueue.jobId!(payload);
      await queue
        .add('generate', payload, { ...deltaGenerateQueue.jobOptions, jobId })
        .catch(onError);
      await sink.publish(notice);
    },
  };
}
