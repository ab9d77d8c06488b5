/**
 * Repeats the stranded-delivery sweep (shared/webhooks/stranded.ts) in every worker process:
 * a delivery whose job ended without the processor's verdict reads `failed` (or is queued, if it
 * never was) within a sweep of going quiet, instead of `pending` forever.
 */
import type { Queue } from 'bullmq';
import type { Db } from 'mongodb';
import type { Logger } from '../../shared/log';
import { queueDeliverySink } from '../../shared/queues/delivery-sink';
import { settleStranded, type StrandedOutcome } from '../../shared/webhooks/stranded';
import { repeat } from '../every';

export interface StrandedWatchOptions {
  readonly db: Db;
  /** The `webhook-delivery` queue. */
  readonly queue: Queue;
  readonly log: Logger;
  readonly everyMs: number;
  /** A pending delivery untouched for this long is looked at. */
  readonly graceMs: number;
  readonly now: () => Date;
}

export interface StrandedWatch {
  /** One sweep now (the timer does the same). */
  check(): Promise<StrandedOutcome>;
  stop(): void;
}

export function startStrandedWatch(options: StrandedWatchOptions): StrandedWatch {
  const { queue } = options;
  const check = async (): Promise<StrandedOutcome> => {
    const outcome = await settleStranded(
      {
        db: options.db,
        jobState: (id) => queue.getJobState(id),
        failedReason: async (id) => (await queue.getJob(id))?.failedReason || undefined,
        deliveries: queueDeliverySink(queue),
        now: options.now,
      },
      options.graceMs,
    );
    if (outcome.failed.length > 0 || outcome.requeued.length > 0) {
      options.log.warn({ ...outcome }, 'stranded webhook deliveries settled');
    }
    return outcome;
  };
  const looks = repeat(options.everyMs, check, (err) =>
    options.log.warn({ err: err.message }, 'stranded webhook deliveries not swept'),
  );
  return { check, stop: () => looks.stop() };
}
