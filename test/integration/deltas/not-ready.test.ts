/**
 * `GET /download/delta` while a pair's patch is being made (docs/delta-updates.md, "Not ready
 * yet"), over real HTTPS with real Redis queues and real APKs: the version notice goes out before
 * the patch exists, so a device asking at once gets `503 Delta not ready yet.` with Retry-After
 * while the app's generation job is queued or running, and the patch once it is ready. A job
 * that crashed (its lock gone) or failed for good no longer holds the pair at 503; another
 * account never sees this account's pair as pending.
 */
import { createHash } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { ObjectId } from 'mongodb';
import { catalogCollections } from '../../../shared/catalog/collections';
import { deltaCollections } from '../../../shared/delta/collections';
import { deltaGenerateQueue } from '../../../shared/queues/delta-generate';
import { bullPrefix } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';

let stack: TestStack;
let redis: Redis;
let v1: Buffer;
let v2: Buffer;
const md5 = (x: Buffer) => createHash('md5').update(x).digest('hex');
const sha256 = (x: Buffer) => createHash('sha256').update(x).digest('hex');
const PKG = 'dev.apkrelay.sample';
const NOT_READY = 'Delta not ready yet.';
type Account = { apiKey: string; id: string };
const fleets: Account[] = [];

/** An account whose device runs v1, then v2 made current (its patch job is added, not run). */
async function fleetOnV2(): Promise<Account> {
  const account = await newAccount(stack);
  await uploadFixture(stack, account.apiKey, 'version-1.apk');
  const target = { baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, package: PKG };
  await registerDevices(target, ['till-1'], md5(v1));
  await uploadFixture(stack, account.apiKey, 'version-2.apk');
  return account;
}

beforeAll(async () => {
  stack = await startStack({ workers: false });
  redis = new Redis(stack.redisUrl, { maxRetriesPerRequest: null });
  [v1, v2] = [await fixture('version-1.apk'), await fixture('version-2.apk')];
  // Uploads need the workers (ingest); the generation jobs they cause are held (queue paused),
  // then the workers stop: every generation job stays queued until a test takes it or starts them.
  const queue = new Queue(deltaGenerateQueue.name, {
    connection: redis,
    prefix: bullPrefix(redis, stack.prefix),
  });
  await queue.pause();
  const workers = await stack.startWorkers();
  for (let i = 0; i < 3; i++) fleets.push(await fleetOnV2());
  const b = await newAccount(stack);
  await uploadFixture(stack, b.apiKey, 'version-1.apk');
  fleets.push(b);
  await workers.close();
  await queue.resume();
  await queue.close();
});
afterAll(async () => {
  redis.disconnect();
  await stack.close();
});

function ask(apiKey: string, from = md5(v1)) {
  const query = { package: PKG, api_key: apiKey, deviceId: 'till-1', from, to: sha256(v2) };
  const url = `${stack.urls.web}/download/delta?${new URLSearchParams(query).toString()}`;
  return request(url, { ca: stack.ca });
}

async function expectNotReady(apiKey: string) {
  const reply = await ask(apiKey);
  expect(reply.status).toBe(503);
  expect(reply.headers['content-type']).toMatch(/^text\/plain/);
  expect(reply.text).toBe(NOT_READY);
  const retryAfter = Number(reply.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

async function expectNotAvailable(apiKey: string, from = md5(v1)) {
  const reply = await ask(apiKey, from);
  expect(reply.status).toBe(404);
  expect(reply.text).toBe('Delta not available.');
}

/** Takes the account's queued generation job as a worker would, without running it. */
async function takeJob(accountId: string, lockMs: number) {
  const app = await catalogCollections(stack.mongo.db).apps.findOne({ accountId, package: PKG });
  const jobId = deltaGenerateQueue.jobId!({
    accountId,
    appId: app!._id.toHexString(),
    currentVersion: app!.currentVersion,
  });
  const worker = new Worker(deltaGenerateQueue.name, null, {
    connection: redis,
    prefix: bullPrefix(redis, stack.prefix),
    lockDuration: lockMs,
    autorun: false,
  });
  const token = new ObjectId().toHexString();
  // Other accounts' jobs may be queued too: put back every job that is not this one.
  for (;;) {
    const job = await worker.getNextJob(token);
    if (!job) throw new Error(`job ${jobId} not queued`);
    if (job.id === jobId) return { worker, job, token };
    await job.moveToDelayed(Date.now(), token);
  }
}

test('a pair whose job is crashed (lock gone) is not held at 503', async () => {
  const account = fleets[0]!;
  await expectNotReady(account.apiKey);
  const { worker } = await takeJob(account.id, 2_000);
  // The worker "crashes": it never renews its lock, so the job is active with no live owner.
  await eventually('the crashed job no longer holds the pair', async () => {
    const reply = await ask(account.apiKey);
    return reply.status === 404 && reply.text === 'Delta not available.';
  });
  await worker.close(true);
});

test('a pair whose job failed for good is not held at 503', async () => {
  const account = fleets[1]!;
  await expectNotReady(account.apiKey);
  const { worker, job, token } = await takeJob(account.id, 60_000);
  await expectNotReady(account.apiKey); // running
  job.discard(); // no attempt left: the failure is final
  await job.moveToFailed(new Error('generation failed'), token);
  await expectNotAvailable(account.apiKey);
  await worker.close(true);
});

test('queued: 503 with Retry-After; another account never sees it; then the patch', async () => {
  const [a, b] = [fleets[2]!, fleets[3]!];
  await expectNotReady(a.apiKey);
  // B's own job is queued too, but A's pair is not B's: B gets no 503 (nor A's patch).
  await expectNotAvailable(b.apiKey);
  // A version the account has no APK of is no pair any job can make.
  await expectNotAvailable(a.apiKey, 'f'.repeat(32));
  await stack.startWorkers();
  const reply = await eventually('the patch served', async () => {
    const r = await ask(a.apiKey);
    return r.status === 200 ? r : null;
  });
  expect(reply.headers['x-apkrelay-delta-from']).toBe(md5(v1));
  const doc = await deltaCollections(stack.mongo.db).deltas.findOne({ accountId: a.id, format: 1 });
  expect(doc?.status).toBe('ready');
  // The job listed the pair it would make before making it (what the endpoint reads while it runs).
  const queue = new Queue(deltaGenerateQueue.name, {
    connection: redis,
    prefix: bullPrefix(redis, stack.prefix),
  });
  const job = await queue.getJob(`delta-${doc!.appId.toHexString()}-2`);
  await queue.close();
  expect(job?.progress).toEqual({ deltaPairs: [`${md5(v1)}/${sha256(v2)}`] });
  expect(reply.headers['etag']).toBe(`"${sha256(reply.body)}"`);
  await expectNotAvailable(b.apiKey);
});
