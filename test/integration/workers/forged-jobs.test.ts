/**
 * Issue 24, finding 4: a job enqueued straight into Redis (through BullMQ, as the board's "add"
 * did) that names an app or upload of another account is refused by the real worker: failed at
 * once with a non-retryable `JOB_ACCOUNT_MISMATCH`, and the victim's data is unchanged.
 */
import { Queue, type Job } from 'bullmq';
import { ObjectId } from 'mongodb';
import { redisKeys } from '../../../shared/redis-keys';
import { closeRedis, createWorkerRedis, type Redis } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { eventuallyValue } from '../../helpers/eventually';
import { startStack, type TestStack } from '../../helpers/stack';
import { seedApp, stackTrace } from '../exceptions/fixtures';

jest.setTimeout(90_000);

let stack: TestStack;
let redis: Redis;
const queues: Queue[] = [];

beforeAll(async () => {
  stack = await startStack();
  redis = createWorkerRedis(stack.redisUrl, 'test:forged');
});
afterAll(async () => {
  for (const q of queues) await q.close();
  await closeRedis(redis);
  await stack.close();
});

function queue(name: string): Queue {
  const q = new Queue(name, { connection: redis, prefix: stack.prefix });
  queues.push(q);
  return q;
}

/** Waits for the job to settle; a retryable failure shows as `delayed`, which this test refuses. */
async function settled(
  q: Queue,
  job: Job,
): Promise<{ state: string; reason: string; attempts: number }> {
  const state = await eventuallyValue(
    `job ${job.id} to settle`,
    () => job.getState(),
    (s) => s === 'failed' || s === 'completed' || s === 'delayed',
  );
  const fresh = (await q.getJob(job.id!))!;
  return { state, reason: fresh.failedReason ?? '', attempts: fresh.attemptsMade };
}

async function victimAndAttacker() {
  const victim = await newAccount(stack);
  const attacker = await newAccount(stack);
  const app = await seedApp(stack, victim.id);
  const apk = await stack.mongo.db.collection('apks').findOne({ appId: new ObjectId(app.appId) });
  return { victim, attacker, app, apkId: apk!._id.toHexString() };
}

test('exception-ingest naming another account’s app is refused and nothing is written', async () => {
  const { victim, attacker, app, apkId } = await victimAndAttacker();
  const reportId = `${'ab'.repeat(16)}-${Date.now()}`;
  const q = queue('exception-ingest');
  const job = await q.add(
    'forged',
    {
      reportId,
      accountId: attacker.id,
      appId: app.appId,
      apkId,
      version: '1.7 (7)',
      admittedAt: Date.now(),
      report: {
        package: app.package,
        hash: app.md5,
        deviceId: 'forged-device',
        stack: stackTrace('forged report'),
        log: [],
        metadata: [],
        extra: [],
        screen: Buffer.from([0xff, 0xd8, 0xff, 0xe0]).toString('base64'),
        handled: false,
      },
    },
    { jobId: `exc-${reportId}`, attempts: 12, backoff: { type: 'fixed', delay: 60_000 } },
  );
  const outcome = await settled(q, job);
  expect(outcome).toMatchObject({ state: 'failed', attempts: 1 });
  expect(outcome.reason).toMatch(/^JOB_ACCOUNT_MISMATCH: /);
  const db = stack.mongo.db;
  expect(await db.collection('exceptions').countDocuments({ appId: app.appId })).toBe(0);
  expect(await db.collection('exceptions').countDocuments({ _id: reportId as never })).toBe(0);
  expect(await db.collection('exception_groups').countDocuments({ appId: app.appId })).toBe(0);
  expect(await db.collection('exceptions').countDocuments({ accountId: victim.id })).toBe(0);
  expect(await db.collection('screenshots.files').countDocuments({})).toBe(0);
  expect(await redis.exists(redisKeys(stack.prefix).exceptionStored(reportId))).toBe(0);
});

test('apk-ingest naming another account’s upload is refused and the upload is untouched', async () => {
  const { victim, attacker } = await victimAndAttacker();
  const uploadId = new ObjectId().toHexString();
  const created = new Date('2026-11-25T10:00:00.000Z');
  const upload = {
    _id: uploadId,
    accountId: victim.id,
    status: 'queued',
    verdict: null,
    createdAt: created,
    updatedAt: created,
  };
  await stack.mongo.db.collection('uploads').insertOne(upload as never);
  const q = queue('apk-ingest');
  const job = await q.add(
    'forged',
    {
      uploadId,
      accountId: attacker.id,
      wrappedKey: 'AAAA',
      noncePrefix: 'AAAA',
      current: true,
      whatsnew: null,
      expectedPackage: null,
    },
    { jobId: `upload-${uploadId}`, attempts: 12, backoff: { type: 'fixed', delay: 60_000 } },
  );
  const outcome = await settled(q, job);
  expect(outcome).toMatchObject({ state: 'failed', attempts: 1 });
  expect(outcome.reason).toMatch(/^JOB_ACCOUNT_MISMATCH: /);
  expect(await stack.mongo.db.collection('uploads').findOne({ _id: uploadId as never })).toEqual(
    upload,
  );
});
