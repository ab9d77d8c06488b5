/**
 * Queue `housekeeping`: periodic clean-up that no request waits for. Today: sweeping encrypted
 * blobs that no APK record owns (an upload whose API process died before enqueueing, or whose job
 * gave up), so storage holds no orphan. Scheduled by a BullMQ job scheduler, so it runs once per
 * period however many workers run.
 */
import { MINUTE_MS } from './budget';
import { asRecord, defineQueue } from './definition';
import { PayloadInvalid } from '../errors';

export interface HousekeepingPayload {
  readonly task: 'sweep-orphan-blobs';
  /** Unowned blobs older than this are orphans (an upload in progress is younger). */
  readonly olderThanMs: number;
}

export interface HousekeepingResult {
  readonly removed: number;
  /** Expired one-time claims deleted (shared/storage/claims.ts). */
  readonly claimsPurged: number;
}

export const housekeepingQueue = defineQueue<
  HousekeepingPayload,
  HousekeepingResult,
  'housekeeping'
>({
  name: 'housekeeping',
  concurrency: 1,
  // Whole-job budget (workers/runtime.ts): purging staged uploads.
  budgetMs: 30 * MINUTE_MS,
  parse(data) {
    const p = asRecord(data, 'housekeeping');
    if (p.task !== 'sweep-orphan-blobs')
      throw new PayloadInvalid('housekeeping', `unknown task ${String(p.task)}`);
    if (typeof p.olderThanMs !== 'number' || !(p.olderThanMs >= 0)) {
      throw new PayloadInvalid('housekeeping', 'olderThanMs must be a non-negative number');
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
  id: 'sweep-orphan-blobs-hourly',
  every: 60 * 60 * 1000,
  payload: { task: 'sweep-orphan-blobs', olderThanMs: 24 * 60 * 60 * 1000 } as HousekeepingPayload,
} as const;
