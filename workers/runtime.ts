/**
 * Builds the BullMQ Workers (one per registered queue) around plain processors, installs the
 * job schedulers, and closes everything in order. Refuses to start when a queue has no processor.
 * Every attempt runs under its queue's budget (a slot is never held forever), and the stuck-worker
 * watchdog (watchdog.ts) reports jobs active past it.
 */
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from '../shared/log';
import { QUEUES } from '../shared/queues';
import type { QueueDefinition } from '../shared/queues/definition';
import { listenedConnection, listenedQueue } from '../shared/queues/listened-connection';
import { HOUSEKEEPING_SCHEDULE, housekeepingQueue } from '../shared/queues/housekeeping';
import { ADOPTION_SCHEDULE, adoptionSampleQueue } from '../shared/queues/adoption-sample';
import { BACKUP_SCHEDULER_ID, backupQueue } from '../shared/queues/backup';
import { ROLLOUT_HEALTH_SCHEDULER_ID, rolloutHealthQueue } from '../shared/queues/rollout-health';
import { recordJobDuration } from '../shared/metrics/job-durations';
import { bullPrefix, closeRedis, createWorkerRedis, type Redis } from '../shared/storage/redis';
import type { Processor } from './processor';
import { coerceError } from '../shared/errors';
import { withDeadline } from '../shared/deadline';
import { startWatchdog } from './watchdog';

export interface WorkerRuntime {
  readonly queueNames: readonly string[];
  close(): Promise<void>;
}

export interface WorkerRuntimeOptions {
  readonly redisUrl: string;
  readonly prefix: string;
  readonly log: Logger;
  readonly processors: Readonly<Record<string, Processor<never, unknown> | undefined>>;
  /** Install the periodic job schedulers (idempotent: BullMQ upserts them by id). */
  readonly schedulers?: boolean;
  /** Lock on active jobs (JOB_LOCK_MS; a queue's `lockMs` is its floor); a crashed worker's jobs are retried after it expires. */
  readonly lockMs?: number;
  /** The backup schedule (BACKUP_CRON in BACKUP_TZ); installed with the other schedulers. */
  readonly backupSchedule?: { readonly pattern: string; readonly tz: string };
  /** How often the rollout health gate runs (ROLLOUT_EVALUATION_SECONDS); unset: not scheduled. */
  readonly rolloutEveryMs?: number;
  /** How often the stuck-worker watchdog looks at active jobs (watchdog.ts); default 15 s. */
  readonly watchdogEveryMs?: number;
  /** Job budgets by queue name in place of the queues' own (tests use short ones). */
  readonly budgetsMs?: Readonly<Record<string, number>>;
}

/** A queue's job budget: the runtime's override or the queue's own. */
function budgetOf(options: WorkerRuntimeOptions, definition: { name: string; budgetMs: number }) {
  return options.budgetsMs?.[definition.name] ?? definition.budgetMs;
}

/** JOB_LOCK_MS, but never shorter than the queue's own floor (a job that blocks its worker). */
export function lockOf(options: { readonly lockMs?: number }, definition: { lockMs?: number }) {
  return Math.max(options.lockMs ?? 30_000, definition.lockMs ?? 0);
}

export function missingProcessors(
  queues: readonly { name: string }[],
  processors: Readonly<Record<string, unknown>>,
): string[] {
  return queues.map((q) => q.name).filter((name) => typeof processors[name] !== 'function');
}

export async function startWorkerRuntime(options: WorkerRuntimeOptions): Promise<WorkerRuntime> {
  const missing = missingProcessors(QUEUES, options.processors);
  if (missing.length > 0) {
    throw new Error(`refusing to start: no processor for queue(s) ${missing.join(', ')}`);
  }
  const connection: Redis = createWorkerRedis(options.redisUrl);
  const onError = (err: Error) => options.log.warn({ err: err.message }, 'queue (workers) error');
  connection.on('error', (err: Error) =>
    options.log.warn({ err: err.message }, 'redis (workers) connection error'),
  );
  const workers = QUEUES.map((definition) =>
    buildWorker(
      definition as QueueDefinition<unknown, unknown>,
      options.processors[definition.name] as Processor<unknown, unknown>,
      connection,
      options,
    ),
  );
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  if (options.schedulers ?? true) {
    const every = { connection, prefix: bullPrefix(connection, options.prefix), onError };
    await upsertEvery(every, housekeepingQueue, HOUSEKEEPING_SCHEDULE, 'purge-staging');
    await upsertEvery(every, adoptionSampleQueue, ADOPTION_SCHEDULE, 'sample-adoption');
    if (options.rolloutEveryMs) {
      const schedule = {
        id: ROLLOUT_HEALTH_SCHEDULER_ID,
        every: options.rolloutEveryMs,
        payload: { task: 'evaluate' as const },
      };
      await upsertEvery(every, rolloutHealthQueue, schedule, 'evaluate');
    }
    if (options.backupSchedule) {
      // Upserted under one id by every worker: one job per period, however many workers run.
      const backups = listenedQueue(backupQueue.name, every, onError);
      await backups.upsertJobScheduler(
        BACKUP_SCHEDULER_ID,
        { pattern: options.backupSchedule.pattern, tz: options.backupSchedule.tz },
        { name: 'backup', data: { task: 'backup' }, opts: backupQueue.jobOptions },
      );
      await backups.close();
    }
  }
  const watchdog = startWatchdog({
    connection,
    prefix: bullPrefix(connection, options.prefix),
    log: options.log,
    everyMs: options.watchdogEveryMs ?? 15_000,
    budgetOf: (definition) => budgetOf(options, definition),
  });
  options.log.info({ queues: QUEUES.map((q) => q.name) }, 'workers started');
  let closing: Promise<void> | undefined;
  return {
    queueNames: QUEUES.map((q) => q.name),
    close: () =>
      (closing ??= (async () => {
        // A worker whose Redis node died (a cluster failover) may never finish closing: after
        // the grace its connections are cut, so the process still stops.
        await watchdog.stop();
        QUEUES.forEach((q, i) => q.abortOnClose && workers[i]?.cancelAllJobs('worker closing'));
        const closed = Promise.all(workers.map((w) => w.close())).then(() => true);
        const grace = new Promise<false>((resolve) => {
          setTimeout(resolve, WORKER_CLOSE_GRACE_MS, false).unref();
        });
        if (!(await Promise.race([closed, grace]))) {
          options.log.warn('workers did not close in time; disconnecting them');
          await Promise.all(workers.map((w) => w.disconnect().catch(() => undefined)));
        }
        await closeRedis(connection);
      })()),
  };
}

/** How long workers may take to finish their jobs and close before being cut off. */
const WORKER_CLOSE_GRACE_MS = 10_000;

/** Installs a scheduler running `schedule.payload` every `schedule.every` ms (upserted by id). */
async function upsertEvery<P>(
  at: {
    readonly connection: Redis;
    readonly prefix: string;
    readonly onError: (err: Error) => void;
  },
  definition: QueueDefinition<P, unknown>,
  schedule: { readonly id: string; readonly every: number; readonly payload: P },
  name: string,
): Promise<void> {
  const queue = listenedQueue(definition.name, at, at.onError);
  try {
    await queue.upsertJobScheduler(
      schedule.id,
      { every: schedule.every },
      { name, data: schedule.payload, opts: definition.jobOptions },
    );
  } finally {
    await queue.close();
  }
}

function buildWorker(
  definition: QueueDefinition<unknown, unknown>,
  processor: Processor<unknown, unknown>,
  connection: Redis,
  options: WorkerRuntimeOptions,
): Worker {
  const onError = (err: Error) =>
    options.log.error({ queue: definition.name, err: err.message }, 'worker error');
  const worker = new Worker(
    definition.name,
    async (job: Job, token?: string, signal?: AbortSignal) => {
      let payload: unknown;
      try {
        payload = definition.parse(job.data);
      } catch (err) {
        // A payload no version of this code can read will never succeed: do not retry it.
        throw new UnrecoverableError(`invalid payload: ${coerceError(err).message}`);
      }
      const log = options.log.child({ queue: definition.name, jobId: job.id });
      // The whole attempt runs under the queue's budget: past it, the attempt fails with
      // JOB_DEADLINE_EXCEEDED (BullMQ retries it with its backoff) and the slot is free again,
      // whatever the processor still waits for.
      const budget = {
        ms: budgetOf(options, definition),
        what: `${definition.name} job ${job.id ?? '?'}`,
        code: 'JOB_DEADLINE_EXCEEDED' as const,
      };
      return withDeadline(budget, (expired) =>
        processor(payload, {
          jobId: job.id ?? '',
          attempt: job.attemptsMade + 1,
          maxAttempts: job.opts.attempts ?? 1,
          log,
          signal: signal ? AbortSignal.any([expired, signal]) : expired,
          defer: async (delayMs) => {
            await job.moveToDelayed(Date.now() + delayMs, token);
            throw new DelayedError();
          },
          progress: (data) => job.updateProgress(data),
        }),
      );
    },
    {
      connection,
      prefix: bullPrefix(connection, options.prefix),
      concurrency: definition.concurrency,
      lockDuration: lockOf(options, definition),
      stalledInterval: lockOf(options, definition),
      // A job whose worker crashed is retried; one that kills its worker repeatedly fails.
      maxStalledCount: 2,
      autorun: true,
      name: `apkrelay-${process.pid}`,
    },
    listenedConnection(onError),
  );
  worker.on('failed', (job, err) =>
    options.log.warn({ queue: definition.name, jobId: job?.id, err: err.message }, 'job failed'),
  );
  for (const event of ['completed', 'failed'] as const) {
    worker.on(event, (job?: Job) => {
      if (!job?.processedOn || !job.finishedOn) return;
      const seconds = (job.finishedOn - job.processedOn) / 1000;
      recordJobDuration(connection, options.prefix, definition.name, seconds).catch((err: Error) =>
        options.log.warn({ err: err.message }, 'job duration not recorded'),
      );
    });
  }
  worker.on('error', onError);
  return worker;
}
