/**
 * Deliveries left `pending` with no job to move them on. The delivery processor records each
 * attempt, and its last attempt as `failed`; but a job can end without the processor's verdict:
 * past its whole budget on the last attempt, stalled more often than BullMQ allows, the record
 * itself failing on a store error, or an event whose job was never queued (Redis away between
 * the delivery's insert and its enqueue). Such a delivery would read `pending` forever, with no
 * retry to come. A sweep, repeated by the workers, settles each one quiet for `graceMs`:
 * - its job failed for good: the delivery is `failed`, with the job's reason as a logged attempt;
 * - no job, no attempt yet: it was never queued, so it is queued now (same job id: idempotent);
 * - no job after attempts (the failed job was trimmed from Redis): `failed`.
 * Every change is conditional on the document being as read, so a live attempt wins.
 */
import type { Db } from 'mongodb';
import { webhooksCollections } from './collections';
import type { DeliverySink } from './deliveries';
import type { DeliveryDoc } from './types';

/** What BullMQ says of a job id (`Queue.getJobState`): `unknown` when there is no such job. */
export type JobStateOf = (jobId: string) => Promise<string>;

export interface StrandedDeps {
  readonly db: Db;
  readonly jobState: JobStateOf;
  /** The job's failure, for the log line; undefined when unknown. */
  readonly failedReason: (jobId: string) => Promise<string | undefined>;
  readonly deliveries: DeliverySink;
  readonly now: () => Date;
}

export interface StrandedOutcome {
  readonly failed: string[];
  readonly requeued: string[];
}

/** At most this many deliveries are settled per sweep; the next sweep takes the rest. */
const SWEEP_LIMIT = 200;

/** The job id of a delivery's current round (shared/queues/webhook-delivery.ts). */
export const deliveryJobId = (d: Pick<DeliveryDoc, '_id' | 'redeliveries'>): string =>
  `${d._id.toHexString()}-${d.redeliveries}`;

export async function settleStranded(
  deps: StrandedDeps,
  graceMs: number,
): Promise<StrandedOutcome> {
  const { deliveries } = webhooksCollections(deps.db);
  const quietSince = new Date(deps.now().getTime() - graceMs);
  const candidates = await deliveries
    .find({ state: 'pending', updatedAt: { $lt: quietSince } })
    .sort({ updatedAt: 1 })
    .limit(SWEEP_LIMIT)
    .toArray();
  const outcome: StrandedOutcome = { failed: [], requeued: [] };
  for (const d of candidates) {
    const jobId = deliveryJobId(d);
    const state = await deps.jobState(jobId);
    if (state === 'unknown' && d.attempts.length === 0) {
      await deps.deliveries.enqueue(d._id.toHexString(), d.redeliveries);
      outcome.requeued.push(d._id.toHexString());
    } else if (state === 'unknown' || state === 'failed') {
      const reason = (await deps.failedReason(jobId)) ?? 'the job is gone';
      if (await markFailed(deps, d, reason)) outcome.failed.push(d._id.toHexString());
    }
  }
  return outcome;
}

async function markFailed(deps: StrandedDeps, d: DeliveryDoc, reason: string): Promise<boolean> {
  const at = deps.now();
  const excerpt = `the delivery's job ended without a verdict: ${reason}`.slice(0, 512);
  const r = await webhooksCollections(deps.db).deliveries.updateOne(
    { _id: d._id, state: 'pending', updatedAt: d.updatedAt, redeliveries: d.redeliveries },
    {
      $push: { attempts: { at, statusCode: null, excerpt, durationMs: 0 } },
      $set: { state: 'failed', updatedAt: at },
    },
  );
  return r.modifiedCount === 1;
}
