/**
 * Issue 24, finding 4: the queue board is read-only but for retrying failed jobs. Every write route
 * of the installed bull-board (listed here by hand from `@bull-board/api/dist/routes.js` 9.10.1)
 * is refused for an operator and changes nothing; retrying one failed job and every failed job is
 * allowed. A bull-board upgrade that adds a write route fails the coverage check below until the
 * route is listed here (and refused by the gate).
 */
import { Queue } from 'bullmq';
import { closeRedis, createWorkerRedis, type Redis } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import type { AuditEntry } from '../../helpers/audit-log';
import { eventually, eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';

jest.setTimeout(90_000);

/** The installed bull-board's own route table (its package exports no types for this file). */
interface BoardRoute {
  readonly method: string;
  readonly route: string | readonly string[];
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { appRoutes } = require('@bull-board/api/dist/routes') as {
  appRoutes: { api: BoardRoute[] };
};

const Q = 'exception-ingest';

/** Every non-GET route of bull-board 9.10.1, written out by hand. */
const WRITE_ROUTES: ReadonlyArray<readonly [method: string, route: string]> = [
  ['put', '/api/queues/pause'],
  ['put', '/api/queues/resume'],
  ['post', '/api/queues/:queueName/add'],
  ['put', '/api/queues/:queueName/retry/:queueStatus'],
  ['put', '/api/queues/:queueName/promote'],
  ['put', '/api/queues/:queueName/clean/:queueStatus'],
  ['put', '/api/queues/:queueName/pause'],
  ['put', '/api/queues/:queueName/resume'],
  ['put', '/api/queues/:queueName/concurrency'],
  ['put', '/api/queues/:queueName/rate-limit'],
  ['put', '/api/queues/:queueName/rate-limit/release'],
  ['put', '/api/queues/:queueName/empty'],
  ['put', '/api/queues/:queueName/obliterate'],
  ['put', '/api/queues/:queueName/job-schedulers/:schedulerId/remove'],
  ['patch', '/api/queues/:queueName/job-schedulers/:schedulerId'],
  ['put', '/api/queues/:queueName/job-schedulers/:schedulerId/run'],
  ['put', '/api/queues/:queueName/:jobId/retry'],
  ['put', '/api/queues/:queueName/:jobId/clean'],
  ['put', '/api/queues/:queueName/:jobId/promote'],
  ['patch', '/api/queues/:queueName/:jobId/update-data'],
  ['patch', '/api/queues/:queueName/:jobId/delay'],
  ['patch', '/api/queues/:queueName/:jobId/priority'],
  ['put', '/api/queues/:queueName/:jobId/remove-unprocessed-children'],
  // Only mounted with a history provider (apkrelay configures none): must be refused anyway.
  ['post', '/api/metrics/history/purge'],
];

/** The two retry shapes the board keeps, for failed jobs only. */
const ALLOWED = new Set([
  'put /api/queues/:queueName/:jobId/retry',
  'put /api/queues/:queueName/retry/:queueStatus',
]);

let stack: TestStack;
let redis: Redis;
let queue: Queue;
let operatorKey: string;

beforeAll(async () => {
  stack = await startStack();
  redis = createWorkerRedis(stack.redisUrl, 'test:board');
  queue = new Queue(Q, { connection: redis, prefix: stack.prefix });
  const operator = await newAccount(stack);
  await stack.mongo.db
    .collection('accounts')
    .updateOne({ email: operator.email }, { $set: { roles: ['owner', 'operator'] } });
  operatorKey = operator.apiKey;
});
afterAll(async () => {
  await queue.close();
  await closeRedis(redis);
  await stack.close();
});

const call = (method: string, path: string, json?: unknown) =>
  request(`${stack.urls.admin}/ops/queues${path}`, {
    method: method.toUpperCase(),
    headers: { authorization: `Bearer ${operatorKey}` },
    ...(json === undefined ? {} : { json }),
    ca: stack.ca,
  });

/** A job the real worker fails for good (a payload no version can read). */
async function failedJob(name: string): Promise<string> {
  const job = await queue.add(name, { not: 'a report' }, { attempts: 1 });
  await eventually(`job ${job.id} to fail`, async () => (await job.getState()) === 'failed');
  return job.id!;
}

async function snapshot() {
  return {
    paused: await queue.isPaused(),
    counts: await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed'),
    globalConcurrency: await queue.getGlobalConcurrency(),
  };
}

test('the hand-written list covers every write route of the installed bull-board', () => {
  const installed = appRoutes.api
    .filter((r) => r.method !== 'get')
    .flatMap((r) => [r.route].flat().map((route) => `${r.method} ${route}`));
  const listed = WRITE_ROUTES.map(([m, r]) => `${m} ${r}`);
  expect(installed.filter((r) => !listed.includes(r))).toEqual([]);
  expect(installed.length).toBeGreaterThan(15);
});

test('every board write route is refused for an operator and changes nothing', async () => {
  const jobId = await failedJob('victim');
  const before = await snapshot();
  const fill = (route: string) =>
    route
      .replace(':queueName', Q)
      .replace(':jobId', jobId)
      .replace(':queueStatus', 'failed')
      .replace(':schedulerId', 'nightly-backup');
  const refused: string[] = [];
  const accepted: string[] = [];
  for (const [method, route] of WRITE_ROUTES) {
    if (ALLOWED.has(`${method} ${route}`)) continue;
    const body = route.endsWith('/add')
      ? { name: 'forged', data: { accountId: 'someone-else' } }
      : { concurrency: 1, max: 1, duration: 1000, data: {}, delay: 1, priority: 1, confirm: Q };
    const reply = await call(method, fill(route), body);
    const code = reply.headers['content-type']?.includes('json')
      ? reply.json<{ error?: { code?: string } }>().error?.code
      : undefined;
    (reply.status === 405 && code === 'METHOD_NOT_ALLOWED' ? refused : accepted).push(
      `${method} ${route} -> ${reply.status}`,
    );
  }
  // Methods bull-board never uses are refused too, not passed on.
  for (const method of ['delete', 'post', 'put']) {
    const reply = await call(method, `/api/queues/${Q}`);
    (reply.status === 405 ? refused : accepted).push(`${method} /api/queues/:queueName`);
  }
  // Retrying completed jobs runs finished work again: not a retry of a failure.
  const completed = await call('put', `/api/queues/${Q}/retry/completed`);
  (completed.status === 405 ? refused : accepted).push('put retry/completed');
  expect(accepted).toEqual([]);
  expect(refused).toHaveLength(WRITE_ROUTES.length - ALLOWED.size + 4);
  expect(await snapshot()).toEqual(before);
  expect(await queue.getJobState(jobId)).toBe('failed');
  // Reading still works.
  expect((await call('get', '/api/queues')).status).toBe(200);
  expect((await call('get', `/api/queues/${Q}/${jobId}`)).status).toBe(200);
});

test('retrying one failed job and every failed job is allowed', async () => {
  const one = await failedJob('retry-one');
  const attempts = async (id: string) => (await queue.getJob(id))!.attemptsStarted;
  const startedBefore = await attempts(one);
  expect((await call('put', `/api/queues/${Q}/${one}/retry`)).status).toBe(204);
  await eventually(
    'the retried job to run again',
    async () => (await attempts(one)) !== startedBefore,
  );

  const all = await failedJob('retry-all');
  await eventually(
    'the retried job to fail again',
    async () => (await queue.getJobState(one)) === 'failed',
  );
  const reply = await call('put', `/api/queues/${Q}/retry/failed`);
  expect(reply.status).toBe(200);
  expect(reply.json<{ retried: number }>().retried).toBeGreaterThanOrEqual(2);
  expect(await queue.getJob(all)).toBeDefined();

  // Both retries are in the operator's own audit log, newest first; nothing else was.
  const log = await eventuallyValue(
    'the two retries in the audit log',
    async () => {
      const r = await request(`${stack.urls.admin}/api/v2/audit?action=queue.retried`, {
        headers: { authorization: `Bearer ${operatorKey}` },
        ca: stack.ca,
      });
      return r.json<{ entries: AuditEntry[] }>().entries;
    },
    (entries) => entries.length >= 2,
  );
  expect(log.map((e) => [e.action, e.resource, e.details, e.actor.kind])).toEqual([
    ['queue.retried', { kind: 'queue', id: Q }, { job: 'all failed' }, 'account-key'],
    ['queue.retried', { kind: 'queue', id: Q }, { job: one }, 'account-key'],
  ]);
});

test('retrying a completed job is refused: it would run finished work again', async () => {
  const housekeeping = new Queue('housekeeping', { connection: redis, prefix: stack.prefix });
  try {
    const job = await housekeeping.add('sweep', {
      task: 'sweep-orphan-blobs',
      olderThanMs: 24 * 60 * 60 * 1000,
    });
    await eventually(
      'the housekeeping job to complete',
      async () => (await job.getState()) === 'completed',
    );
    const reply = await call('put', `/api/queues/housekeeping/${job.id}/retry`);
    expect(reply.status).toBe(405);
    expect(reply.json<{ error: { code: string } }>().error.code).toBe('METHOD_NOT_ALLOWED');
    expect(await housekeeping.getJobState(job.id!)).toBe('completed');
  } finally {
    await housekeeping.close();
  }
});
