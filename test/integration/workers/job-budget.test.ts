/**
 * Issue 33: a job whose processor never settles must not hold its worker slot. On real Redis and
 * BullMQ: the attempt fails at the queue's budget with JOB_DEADLINE_EXCEEDED and BullMQ's retry
 * runs it again; a job active past its budget is logged by the watchdog, noted in its own log (the
 * queue board shows it) and counted in `apkrelay_jobs_overdue`.
 */
import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { createApiMetrics } from '../../../api/metrics/api-metrics';
import { createLogger } from '../../../shared/log';
import { QUEUES } from '../../../shared/queues';
import { createProducers } from '../../../shared/queues/producers';
import { bullPrefix, closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import type { Processor } from '../../../workers/processor';
import { startWorkerRuntime, type WorkerRuntime } from '../../../workers/runtime';
import { startWatchdog } from '../../../workers/watchdog';
import { eventually } from '../../helpers/eventually';
import { isolation, serviceUrls, useIsolatedMongo } from '../../helpers/services';

const db = useIsolatedMongo();
const PAYLOAD = { task: 'sweep-orphan-blobs', olderThanMs: 0 };

/** A logger whose JSON lines are kept in `lines`. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger('info', {}, sink), lines };
}

/** Every queue's processor never settles; `housekeeping`'s is the test's. */
function processors(housekeeping: Processor<never, unknown>) {
  const never = () => new Promise<never>(() => undefined);
  return {
    ...Object.fromEntries(QUEUES.map((q) => [q.name, never])),
    housekeeping,
  } as Record<string, Processor<never, unknown>>;
}

async function withRuntime(
  options: { housekeeping: Processor<never, unknown>; budgetMs: number },
  use: (at: { queue: Queue; runtime: WorkerRuntime; prefix: string }) => Promise<void>,
  log = capturingLogger().log,
): Promise<void> {
  const { redisUrl } = serviceUrls();
  const { prefix } = isolation();
  const redis = createWorkerRedis(redisUrl, 'test:job-budget');
  const queue = new Queue('housekeeping', { connection: redis, prefix: bullPrefix(redis, prefix) });
  const runtime = await startWorkerRuntime({
    redisUrl,
    prefix,
    log,
    processors: processors(options.housekeeping),
    schedulers: false,
    budgetsMs: { housekeeping: options.budgetMs },
  });
  try {
    await use({ queue, runtime, prefix });
  } finally {
    await runtime.close();
    await queue.close();
    await closeRedis(redis);
  }
}

test('an attempt that never settles fails at the budget with JOB_DEADLINE_EXCEEDED and is retried', async () => {
  const { log, lines } = capturingLogger();
  const signals: AbortSignal[] = [];
  const housekeeping: Processor<never, unknown> = (_p, ctx) => {
    signals.push(ctx.signal);
    return ctx.attempt === 1
      ? new Promise<never>(() => undefined)
      : Promise.resolve({ removed: 0 });
  };
  await withRuntime(
    { housekeeping, budgetMs: 300 },
    async ({ queue }) => {
      const job = await queue.add('stuck', PAYLOAD, { attempts: 2 });
      await eventually('the job completed', async () =>
        (await queue.getJobState(job.id!)) === 'completed' ? true : undefined,
      );
      const done = await queue.getJob(job.id!);
      expect(done?.returnvalue).toEqual({ removed: 0 });
      expect(done?.attemptsMade).toBe(2);
      expect(signals.map((s) => s.aborted)).toEqual([true, false]);
      const failed = lines.filter((l) => l.msg === 'job failed');
      expect(failed.map((l) => [l.queue, l.jobId, l.err])).toEqual([
        [
          'housekeeping',
          job.id,
          `housekeeping job ${job.id}: no result within 300 ms (JOB_DEADLINE_EXCEEDED)`,
        ],
      ]);
    },
    log,
  );
});

test('a job active past its budget is logged once, noted in its log and counted in apkrelay_jobs_overdue', async () => {
  let release: () => void = () => undefined;
  const housekeeping: Processor<never, unknown> = () =>
    new Promise((resolve) => (release = () => resolve({ removed: 0 })));
  await withRuntime({ housekeeping, budgetMs: 60_000 }, async ({ queue, prefix }) => {
    const job = await queue.add('slow', PAYLOAD);
    const processedOn = await eventually('the job active', async () => {
      const j = await queue.getJob(job.id!);
      return (await j?.getState()) === 'active' ? j?.processedOn : undefined;
    });
    const { log, lines } = capturingLogger();
    const redis = createWorkerRedis(serviceUrls().redisUrl, 'test:watchdog');
    const watchdog = startWatchdog({
      connection: redis,
      prefix: bullPrefix(redis, prefix),
      log,
      everyMs: 3_600_000,
      budgetOf: (q) => (q.name === 'housekeeping' ? 60_000 : q.budgetMs),
      now: () => processedOn + 61_000,
    });
    const producers = createProducers(redis, prefix, (err) =>
      log.warn({ err: err.message }, 'queue error'),
    );
    try {
      expect(await watchdog.check()).toEqual([`housekeeping/${job.id}`]);
      expect(await watchdog.check()).toEqual([]); // once per job
      expect(
        lines.filter((l) => l.msg === 'job overdue').map((l) => [l.jobId, l.activeMs]),
      ).toEqual([[job.id, 61_000]]);
      expect((await queue.getJobLogs(job.id!)).logs).toEqual([
        'overdue: active 61 s, budget 60 s (stuck-worker watchdog)',
      ]);
      // `/metrics` applies the queue's own budget (housekeeping: 30 minutes).
      const metrics = createApiMetrics({
        db: db.mongo.db,
        redis,
        prefix,
        producers,
        openStreams: () => ({}),
        uploadsReceiving: () => 0,
        now: () => new Date(processedOn + 30 * 60_000 + 1),
      });
      const text = await metrics.render();
      const overdue = text.split('\n').filter((l) => l.startsWith('apkrelay_jobs_overdue{'));
      expect(overdue.sort()).toEqual(
        QUEUES.map(
          (q) => `apkrelay_jobs_overdue{queue="${q.name}"} ${q.name === 'housekeeping' ? 1 : 0}`,
        ).sort(),
      );
    } finally {
      release();
      await watchdog.stop();
      await producers.close();
      await closeRedis(redis);
    }
  });
});
