/**
 * A report is counted once in its issue however its `exception-ingest` job fails and is retried.
 * The processor runs on the real Redis and MongoDB-protocol server. Its first run reaches them
 * through a TCP proxy that cuts the network when one write is sent (that write never arrives): the
 * report insert, after the group was counted; or the Redis marker, after the report was stored.
 * A second run on direct connections, as a restarted worker does it, finishes the job. The issue's
 * count, and the app's hourly count that makes a spike webhook (docs/webhooks.md), must then equal
 * the number of distinct reports stored.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { ExceptionIngestPayload } from '../../../shared/queues/exception-ingest';
import { connectMongo } from '../../../shared/storage/mongo';
import { closeRedis } from '../../../shared/storage/redis';
import { redisKeys } from '../../../shared/redis-keys';
import { exceptionIngestProcessor } from '../../../workers/exceptions/ingest-processor';
import { jobContext } from '../../helpers/job-context';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, useIsolatedMongo } from '../../helpers/services';
import { startTcpProxy } from '../../helpers/tcp-proxy';
import { seedApp, stackTrace, type SeededApp } from './fixtures';

jest.setTimeout(60_000);

const ctx = jobContext(1, 12);
const isolated = useIsolatedMongo();
const { prefix } = isolation();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function redisAt(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  closers.push(track('redis', () => closeRedis(client)));
  return client;
}

/** Connections to the test services; the one `cut` names goes through a proxy cut at `when`. */
async function connections(cut: 'mongo' | 'redis', when: (chunk: Buffer) => boolean) {
  const { mongoUrl, redisUrl } = serviceUrls();
  const target = new URL(cut === 'mongo' ? mongoUrl : redisUrl);
  const proxy = await startTcpProxy(Number(target.port));
  closers.push(() => proxy.close());
  // Refused long after the run gives up: the write cut never arrives by another way.
  proxy.cutWhen(when, 120_000);
  const through = (url: string) => url.replace(`:${target.port}`, `:${proxy.port}`);
  const mongo = await connectMongo(
    cut === 'mongo' ? through(mongoUrl) : mongoUrl,
    isolated.mongo.db.databaseName,
  );
  closers.push(() => mongo.close());
  return { db: mongo.db, redis: redisAt(cut === 'redis' ? through(redisUrl) : redisUrl) };
}

let reports = 0;
function payload(accountId: string, app: SeededApp, deviceId: string): ExceptionIngestPayload {
  const admittedAt = Date.now() + ++reports;
  return {
    reportId: `${randomBytes(16).toString('hex')}-${admittedAt}`,
    accountId,
    appId: app.appId,
    apkId: 'a'.repeat(24),
    version: '1.7 (7)',
    admittedAt,
    report: {
      package: app.package,
      hash: app.md5,
      deviceId,
      stack: stackTrace(`report ${reports}`),
      log: [],
      metadata: [],
      extra: [],
      screen: null,
      handled: false,
    },
  };
}

/** Webhook events on, with no endpoint to deliver to and a spike threshold never reached. */
const events = () => ({
  events: {
    db: isolated.mongo.db,
    deliveries: {
      enqueue: () => Promise.reject(new Error('no webhook endpoint exists in this test')),
    },
    now: () => new Date(),
  },
  spike: { min: 1_000_000, factor: 3 },
});

/** The reports of `jobs`' app counted towards a spike, over the hours they were admitted in. */
async function hourlyCount(jobs: ExceptionIngestPayload[]): Promise<number> {
  const redis = redisAt(serviceUrls().redisUrl);
  const keys = new Set(
    jobs.map((j) => redisKeys(prefix).exceptionHour(j.appId, Math.floor(j.admittedAt / 3_600_000))),
  );
  let n = 0;
  for (const key of keys) n += await redis.scard(key);
  return n;
}

async function stateOf(groupId: string, accountId: string) {
  const db = isolated.mongo.db;
  const group = await db.collection<{ _id: string; count: number }>('exception_groups').findOne({
    _id: groupId,
  });
  return {
    count: group?.count ?? 0,
    stored: await db.collection('exceptions').countDocuments({ accountId }),
  };
}

/**
 * Runs a report's job through a processor whose `cut` connection is cut at `when` (the run must
 * fail), then another report of the same issue and the first one again on direct connections.
 */
async function failOnceThenRetry(cut: 'mongo' | 'redis', when: (chunk: Buffer) => boolean) {
  const accountId = `account-${randomBytes(4).toString('hex')}`;
  const app = await seedApp(isolated, accountId);
  const job = payload(accountId, app, 'device-1');
  const first = exceptionIngestProcessor({
    ...(await connections(cut, when)),
    prefix,
    events: events(),
  });
  await expect(first(job, ctx)).rejects.toThrow();

  const worker = exceptionIngestProcessor({
    db: isolated.mongo.db,
    redis: redisAt(serviceUrls().redisUrl),
    prefix,
    events: events(),
  });
  const other = payload(accountId, app, 'device-2');
  const groupId = (await worker(other, ctx)).groupId;
  const afterFault = await stateOf(groupId, accountId);
  await expect(worker(job, jobContext(2, 12))).resolves.toEqual({ stored: true, groupId });
  await expect(worker(job, jobContext(3, 12))).resolves.toEqual({ stored: false, groupId });
  const final = { ...(await stateOf(groupId, accountId)), hourly: await hourlyCount([job, other]) };
  return { afterFault, final };
}

/** ioredis sends command names in lower case. */
const has = (chunk: Buffer, ...parts: string[]) => parts.every((p) => chunk.includes(p));

test('the network to MongoDB is cut when the report insert is sent: the retry stores the report and counts it once', async () => {
  const { afterFault, final } = await failOnceThenRetry('mongo', (chunk) =>
    has(chunk, 'insert\0', 'exceptions\0'),
  );
  // The fault hit the window: the first run counted its report but did not store it.
  expect(afterFault).toEqual({ count: 2, stored: 1 });
  expect(final).toEqual({ count: 2, stored: 2, hourly: 2 });
});

test('the network to Redis is cut when the stored marker is sent: the retry counts nothing more', async () => {
  const { afterFault, final } = await failOnceThenRetry('redis', (chunk) =>
    has(chunk, '\r\nset\r\n', ':exceptions:stored:'),
  );
  // The first run counted and stored its report; only its marker (and the job's success) was lost.
  expect(afterFault).toEqual({ count: 2, stored: 2 });
  expect(final).toEqual({ count: 2, stored: 2, hourly: 2 });
});
