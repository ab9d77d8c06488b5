/**
 * Issue 33, "every process stops cleanly": a worker runtime whose start-up fails part-way leaves
 * nothing running. On real Redis and BullMQ, a scheduler's upsert is refused for real (the
 * scheduler's key holds a string, so BullMQ's script gets WRONGTYPE) after the runtime made its
 * Workers: the caller sees that error, and no Worker of this runtime is left connected (BullMQ's
 * `getWorkers()`, asked from another connection) nor any queue it opened for a scheduler left open.
 */
import { Queue } from 'bullmq';
import { QUEUES } from '../../../shared/queues';
import {
  bullPrefix,
  closeRedis,
  createWorkerRedis,
  type Redis,
} from '../../../shared/storage/redis';
import type { Processor } from '../../../workers/processor';
import { startWorkerRuntime, type WorkerRuntimeOptions } from '../../../workers/runtime';
import { eventuallyValue } from '../../helpers/eventually';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, testLogger } from '../../helpers/services';

jest.setTimeout(120_000);

let redis: Redis;
let closeProbe: () => Promise<void>;
beforeAll(() => {
  redis = createWorkerRedis(serviceUrls().redisUrl, 'test:start-up-failure');
  closeProbe = track('probe redis', () => closeRedis(redis));
});
afterAll(() => closeProbe());

/** Every queue's processor; none is given a job here. */
const processors = Object.fromEntries(
  QUEUES.map((q) => [q.name, () => Promise.resolve(undefined)]),
) as Record<string, Processor<never, unknown>>;

function options(prefix: string, more: Partial<WorkerRuntimeOptions> = {}): WorkerRuntimeOptions {
  return {
    redisUrl: serviceUrls().redisUrl,
    prefix,
    log: testLogger(),
    processors,
    ...more,
  };
}

/** The Workers connected to each registered queue under `prefix`, as another client sees them. */
async function workersOn(prefix: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { name } of QUEUES) {
    const queue = new Queue(name, { connection: redis, prefix: bullPrefix(redis, prefix) });
    try {
      counts[name] = (await queue.getWorkers()).length;
    } finally {
      await queue.close();
    }
  }
  return counts;
}

const none = () => Object.fromEntries(QUEUES.map((q) => [q.name, 0]));
const noWorker = (counts: Record<string, number>) => Object.values(counts).every((n) => n === 0);
const oneEach = () => Object.fromEntries(QUEUES.map((q) => [q.name, 1]));

/**
 * Starts a runtime whose scheduler upsert on `refused` is refused; expects the start to fail with
 * Redis's refusal, and returns each queue the runtime upserted a scheduler on (seen by a spy that
 * calls through) with whether it was closed.
 */
async function failedStart(
  refused: string,
  more: Partial<WorkerRuntimeOptions> = {},
): Promise<{ prefix: string; schedulerQueues: Array<[string, boolean]> }> {
  const { prefix } = isolation();
  await redis.set(`${bullPrefix(redis, prefix)}:${refused}:repeat`, 'not a sorted set');
  const spy = jest.spyOn(Queue.prototype, 'upsertJobScheduler');
  try {
    await expect(startWorkerRuntime(options(prefix, more))).rejects.toThrow(/WRONGTYPE/);
    const queues = spy.mock.contexts as Queue[];
    return { prefix, schedulerQueues: queues.map((q) => [q.name, q.closing !== undefined]) };
  } finally {
    spy.mockRestore();
  }
}

test('the probe sees a started runtime: one Worker on each queue, none once it is closed', async () => {
  const { prefix } = isolation();
  const runtime = await startWorkerRuntime(options(prefix, { schedulers: false }));
  const close = track('runtime', () => runtime.close());
  try {
    expect(await workersOn(prefix)).toEqual(oneEach());
  } finally {
    await close();
  }
  expect(await eventuallyValue('no Worker left', () => workersOn(prefix), noWorker)).toEqual(
    none(),
  );
});

test('a refused scheduler upsert fails the start and leaves no Worker and no open queue', async () => {
  const { prefix, schedulerQueues } = await failedStart('housekeeping');
  expect(schedulerQueues).toEqual([['housekeeping', true]]);
  expect(await eventuallyValue('no Worker left', () => workersOn(prefix), noWorker)).toEqual(
    none(),
  );
});

test('a refused backup schedule fails the start and closes its queue and every Worker', async () => {
  const backupSchedule = { pattern: '0 3 * * *', tz: 'UTC' };
  const { prefix, schedulerQueues } = await failedStart('backup', {
    backupSchedule,
    rolloutEveryMs: 60_000,
  });
  // Every scheduler before the backup's was installed, then the backup's refused.
  expect(schedulerQueues).toEqual([
    ['housekeeping', true],
    ['adoption-sample', true],
    ['rollout-health', true],
    ['backup', true],
  ]);
  expect(await eventuallyValue('no Worker left', () => workersOn(prefix), noWorker)).toEqual(
    none(),
  );
});
