/**
 * Queue `backup`: one job per backup run. The nightly run comes from a BullMQ job scheduler
 * (`BACKUP_CRON` in `BACKUP_TZ`), upserted by every worker process under one id, so a period
 * produces exactly one job however many workers run. A job writes one archive to `BACKUP_DIR`,
 * then applies retention (`BACKUP_KEEP_DAYS`).
 */
import { MINUTE_MS } from './budget';
import { asRecord, defineQueue } from './definition';
import { PayloadInvalid } from '../errors';

export interface BackupPayload {
  readonly task: 'backup';
}

export interface BackupJobResult {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly files: number;
  /** Archives deleted by retention after this one was written. */
  readonly removed: readonly string[];
}

export const backupQueue = defineQueue<BackupPayload, BackupJobResult, 'backup'>({
  name: 'backup',
  concurrency: 1,
  // Whole-job budget (workers/runtime.ts): a dump of every collection and blob.
  budgetMs: 2 * 60 * MINUTE_MS,
  parse(data) {
    const p = asRecord(data, 'backup');
    if (p.task !== 'backup') throw new PayloadInvalid('backup', `unknown task ${String(p.task)}`);
    return { task: 'backup' };
  },
  jobOptions: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 30_000 },
    removeOnComplete: { count: 100 },
    removeOnFail: { count: 100 },
  },
});

export const BACKUP_SCHEDULER_ID = 'nightly-backup';

/**
 * The instant a scheduled job is for: BullMQ names scheduler jobs `repeat:<id>:<millis>`. A retry
 * of that job gets the same instant, so it rewrites the same archive instead of adding one.
 */
export function scheduledInstant(jobId: string): Date | null {
  const millis = /^repeat:.+:(\d{10,16})$/.exec(jobId)?.[1];
  return millis ? new Date(Number(millis)) : null;
}
