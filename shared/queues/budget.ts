/**
 * Job budgets (QueueDefinition.budgetMs) and the one rule that says a job is overdue: active for
 * longer than its queue's budget. A job past its budget should already have failed with
 * JOB_DEADLINE_EXCEEDED (workers/runtime.ts), so an overdue job is a stuck slot: the workers'
 * watchdog logs it and notes it in the job's log on the queue board, and `/metrics` counts it
 * (`apkrelay_jobs_overdue`). Pure: the caller reads the active jobs and the clock.
 */
export const MINUTE_MS = 60_000;

export interface ActiveJob {
  readonly id?: string | undefined;
  /** When the current attempt started (BullMQ's `processedOn`, ms since the epoch). */
  readonly processedOn?: number | undefined;
}

export interface OverdueJob {
  readonly id: string;
  readonly activeMs: number;
}

export function overdueJobs(
  active: readonly ActiveJob[],
  budgetMs: number,
  nowMs: number,
): OverdueJob[] {
  const overdue: OverdueJob[] = [];
  for (const job of active) {
    if (job.id === undefined || job.processedOn === undefined) continue;
    const activeMs = nowMs - job.processedOn;
    if (activeMs > budgetMs) overdue.push({ id: job.id, activeMs });
  }
  return overdue;
}
