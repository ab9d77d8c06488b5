/**
 * Queue `housekeeping`: periodic clean-up that no request waits for. Today: deleting staging
 * files abandoned by a crashed upload (staging holds only encrypted bytes, but disk is finite).
 * Scheduled hourly by a BullMQ job scheduler, so it runs once per hour however many workers run.
 */
import { asRecord, defineQueue } from './definition';

export interface HousekeepingPayload {
  readonly task: 'purge-staging';
  /** Staging files older than this are abandoned. */
  readonly olderThanMs: number;
}

export interface HousekeepingResult {
  readonly removed: number;
}

export const housekeepingQueue = defineQueue<
  HousekeepingPayload,
  HousekeepingResult,
  'housekeeping'
>({
  name: 'housekeeping',
  concurrency: 1,
  parse(data) {
    const p = asRecord(data, 'housekeeping');
    if (p.task !== 'purge-staging') throw new Error(`housekeeping: unknown task ${String(p.task)}`);
    if (typeof p.olderThanMs !== 'number' || !(p.olderThanMs >= 0)) {
      throw new Error('housekeeping: olderThanMs must be a non-negative number');
    }
    return { task: p.task, olderThanMs: p.olderThanMs };
  },
  jobOptions: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { count: 100 },
    removeOnFail: { count: 100 },
  },
});

export const HOUSEKEEPING_SCHEDULE = {
  id: 'purge-staging-hourly',
  every: 60 * 60 * 1000,
  payload: { task: 'purge-staging', olderThanMs: 24 * 60 * 60 * 1000 } as HousekeepingPayload,
} as const;
