/**
 * Builds the BullMQ Workers (one per registered queue) around plain processors, installs the
 * job schedulers, and closes everything in order. Refuses to start when a queue has no processor;
 * a start that fails part-way closes what it made before throwing (docs/operations.md).
 * Every attempt runs under its queue's budget (a slot is never held forever), and the stuck-worker
 * watchdog (watchdog.ts) reports jobs active past it.
 */
import { DelayedError, UnrecoverableError, Worker, type Job, type Queue } from 'bullmq';
import type { Logger } from '../shared/log';
import { QUEUES } from '../shared/queues';
import type { QueueDefinition } from '../shared/queues/definition';
import { listenedConnection, listenedQueue } from '../shared/queues/listened-connection';
import { HOUSEKEEPING_SCHEDULE, housekeepingQueue } from '../shared/queues/housekeeping';
import { ADOPTION_SCHEDULE, adoptionSampleQueue } from '../shared/queues/adoption-sample';
import { BACKUP_SCHEDULER_ID, backupQueue } from '../shared/queues/backup';
import { ROLLOUT_HEALTH_SCHEDULER_ID, rolloutHealthQueue } from '../shared/queues/rollout-health';
import { recordJobDuration } from '../shared/metrics/job-durations';
import {
  bullPrefix,
  closeRedis,
  createWorkerRedis,
  endRedis,
  type Redis,
} from '../shared/storage/redis';
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
  connection.on('error', (err: Error) =>
    options.log.warn({ err: err.message }, 'redis (workers) connection error'),
  );
  const links = withDuplicates(connection);
  // All or nothing: the Workers take no job until every step succeeded, and a step that throws
  // closes what was made before it (within the close grace) before the caller sees the error.
  const workers: Worker[] = [];
  try {
    for (const definition of QUEUES) {
      workers.push(
        buildWorker(
          definition,
          options.processors[definition.name] as Processor<unknown, unknown>,
          connection,
          options,
        ),
      );
    }
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    if (options.schedulers ?? true) await installSchedulers(connection, options);
  } catch (err) {
    options.log.error({ err: coerceError(err).message }, 'workers did not start; closing them');
    await closeWorkers(workers, links, options.log);
    throw err;
  }
  // As BullMQ's autorun does: a run that fails is the Worker's error (logged by buildWorker).
  for (const worker of workers) worker.run().catch((err: Error) => worker.emit('error', err));
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
        await watchdog.stop();
        // A closing worker aborts its delta generations (minutes of work, retried) rather than
        // wait for them; other queues' jobs are left to finish within the grace.
        QUEUES.forEach((q, i) => q.abortOnClose && workers[i]?.cancelAllJobs('worker closing'));
        await closeWorkers(workers, links, options.log);
      })()),
  };
}

/** How long workers may take to finish their jobs and close before being cut off. */
const WORKER_CLOSE_GRACE_MS = 10_000;

/** `connection` and the duplicates BullMQ makes of it (each Worker's blocking connection). */
interface Links {
  readonly connection: Redis;
  all(): Redis[];
}

function withDuplicates(connection: Redis): Links {
  const duplicates: Redis[] = [];
  // BullMQ duplicates through the instance's own `duplicate` (a Redis's or a Cluster's).
  const duplicate = connection.duplicate.bind(connection) as (...args: unknown[]) => Redis;
  Object.assign(connection, {
    duplicate: (...args: unknown[]) => {
      const made = duplicate(...args);
      duplicates.push(made);
      return made;
    },
  });
  return { connection, all: () => [...duplicates, connection] };
}

/** Whether `work` settled within `ms` (its failure counts as settled). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, ms, false);
    timer.unref();
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes `workers`, then their connections. With Redis up, active jobs may finish within the
 * grace; past it (a worker whose Redis node died in a cluster failover) every connection is ended.
 * With Redis down nothing can finish gracefully (a job's result cannot be stored, BullMQ's close
 * would wait for Redis): the workers are closed without waiting for their jobs and every
 * connection is ended at once; the jobs' locks expire and they run again elsewhere.
 */
async function closeWorkers(workers: readonly Worker[], links: Links, log: Logger) {
  const up = links.connection.status === 'ready';
  if (!up) log.warn('Redis is unavailable: closing the workers at once');
  const closed = Promise.all(workers.map((w) => w.close(!up)));
  if (!up || !(await within(closed, WORKER_CLOSE_GRACE_MS))) {
    if (up) log.warn('workers did not close in time; disconnecting them');
    for (const client of links.all()) endRedis(client);
    if (!(await within(closed, WORKER_CLOSE_GRACE_MS))) log.warn('workers still closing; left');
  }
  await closeRedis(links.connection);
  // BullMQ stops a Worker's stalled-job check at the end of close(); a check whose command was
  // still pending then (Redis down, its command rejected when its connection ended) arms its
  // next wait (a ref'd timer of the lock's length) after that: once it has, stop it again.
  await new Promise((resolve) => setImmediate(resolve));
  for (const worker of workers) stopStalledCheck(worker);
}

/** Ends a Worker's wait between stalled-job checks (BullMQ's own stopper, private in its typings). */
function stopStalledCheck(worker: Worker): void {
  (worker as unknown as { stalledCheckStopper?: () => void }).stalledCheckStopper?.();
}

/**
 * Installs the periodic job schedulers, upserted by id: every worker process installs the same
 * ones, so one job runs per period however many run. Each scheduler's queue is closed whatever
 * its upsert did.
 */
async function installSchedulers(connection: Redis, options: WorkerRuntimeOptions): Promise<void> {
  const onError = (err: Error) => options.log.warn({ err: err.message }, 'queue (workers) error');
  const at = { connection, prefix: bullPrefix(connection, options.prefix), onError };
  await upsertEvery(at, housekeepingQueue, HOUSEKEEPING_SCHEDULE, 'purge-staging');
  await upsertEvery(at, adoptionSampleQueue, ADOPTION_SCHEDULE, 'sample-adoption');
  if (options.rolloutEveryMs) {
    const schedule = {
      id: ROLLOUT_HEALTH_SCHEDULER_ID,
      every: options.rolloutEveryMs,
      payload: { task: 'evaluate' as const },
    };
    await upsertEvery(at, rolloutHealthQueue, schedule, 'evaluate');
  }
  if (options.backupSchedule) {
    const { pattern, tz } = options.backupSchedule;
    await upsertScheduler(at, backupQueue.name, (backups) =>
      backups.upsertJobScheduler(
        BACKUP_SCHEDULER_ID,
        { pattern, tz },
        { name: 'backup', data: { task: 'backup' }, opts: backupQueue.jobOptions },
      ),
    );
  }
}

interface SchedulerTarget {
  readonly connection: Redis;
  readonly prefix: string;
  readonly onError: (err: Error) => void;
}

/** Runs `upsert` on a queue of its own, closed afterwards whether the upsert worked or threw. */
async function upsertScheduler(
  at: SchedulerTarget,
  queueName: string,
  upsert: (queue: Queue) => Promise<unknown>,
): Promise<void> {
  const queue = listenedQueue(queueName, at, at.onError);
  try {
    await upsert(queue);
  } finally {
    await queue.close();
  }
}

/** Installs a scheduler running `schedule.payload` every `schedule.every` ms (upserted by id). */
async function upsertEvery<P>(
  at: SchedulerTarget,
  definition: QueueDefinition<P, unknown>,
  schedule: { readonly id: string; readonly every: number; readonly payload: P },
  name: string,
): Promise<void> {
  await upsertScheduler(at, definition.name, (queue) =>
    queue.upsertJobScheduler(
      schedule.id,
      { every: schedule.every },
      { name, data: schedule.payload, opts: definition.jobOptions },
    ),
  );
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
      // Started by startWorkerRuntime once every step of its start-up succeeded.
      autorun: false,
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
