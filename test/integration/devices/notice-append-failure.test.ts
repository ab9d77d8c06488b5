/**
 * Making an APK current appends its version notice straight to the app's Redis stream (no queue in
 * between), so a failed append fails whoever made the change: the owner's request is answered
 * with an error and the same request made again sends the notice; an ingest job fails, BullMQ
 * retries it, and the upload's verdict waits for the append. The failure is a real Redis error:
 * the app's notice stream key holds a string (WRONGTYPE) until the test deletes it.
 */
import { Queue } from 'bullmq';
import { freePort } from '../../../ops/services/child';
import { redisNoticeSink } from '../../../shared/notices/notice-sink';
import { apkIngestQueue, type ApkIngestPayload } from '../../../shared/queues/apk-ingest';
import { redisKeys } from '../../../shared/redis-keys';
import {
  bullPrefix,
  closeRedis,
  createProducerRedis,
  createWorkerRedis,
  surelyNotSent,
  type Redis,
} from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';

jest.setTimeout(180_000);

const SAMPLE = 'dev.apkrelay.sample';
let stack: TestStack;
let redis: Redis;
let ingest: Queue<ApkIngestPayload>;

beforeAll(async () => {
  stack = await startStack();
  redis = createWorkerRedis(stack.redisUrl, 'test:notice-append-failure');
  ingest = new Queue<ApkIngestPayload>(apkIngestQueue.name, {
    connection: redis,
    prefix: bullPrefix(redis, stack.prefix),
  });
});
afterAll(async () => {
  await ingest.close();
  await closeRedis(redis);
  await stack.close();
});

/** The app's id, and the APK ids by version code. */
async function appOf(accountId: string) {
  const db = stack.mongo.db;
  const app = await db.collection('apps').findOne({ accountId, package: SAMPLE });
  const apks = await db.collection('apks').find({ accountId }).toArray();
  const byVersion = new Map(apks.map((a) => [a.versionCode as number, String(a._id)]));
  return { appId: String(app!._id), apkId: (v: number) => byVersion.get(v)! };
}

/** The apkId of the app's latest notice in its stream, or null when it has none. */
async function lastNoticeApk(appId: string): Promise<string | null> {
  const [last] = await redis.xrevrange(
    redisKeys(stack.prefix).noticeStream(appId),
    '+',
    '-',
    'COUNT',
    1,
  );
  if (!last) return null;
  const fields = last[1];
  return (JSON.parse(fields[fields.indexOf('n') + 1]!) as { apkId: string }).apkId;
}

function makeCurrent(apiKey: string, versionCode: number) {
  return request(`${stack.urls.admin}/api/v2/apps/${SAMPLE}/current`, {
    method: 'PUT',
    json: { versionCode },
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
}

test('an owner making an APK current whose notice cannot be appended gets an error; asked again, the notice goes out', async () => {
  const owner = await newAccount(stack);
  await uploadFixture(stack, owner.apiKey, 'version-1.apk');
  await uploadFixture(stack, owner.apiKey, 'version-2.apk', { current: false });
  const { appId, apkId } = await appOf(owner.id);
  const streamKey = redisKeys(stack.prefix).noticeStream(appId);
  expect(await lastNoticeApk(appId)).toBe(apkId(1));

  await redis.del(streamKey);
  await redis.set(streamKey, 'not a stream');
  const failed = await makeCurrent(owner.apiKey, 2);
  expect(failed.status).toBe(500);
  expect(failed.json<{ error: { code: string } }>().error.code).toBe('INTERNAL');

  await redis.del(streamKey);
  const again = await makeCurrent(owner.apiKey, 2);
  expect(again.status).toBe(200);
  expect(await lastNoticeApk(appId)).toBe(apkId(2));
});

test('an ingest job whose notice cannot be appended fails and is retried; the verdict waits for the append', async () => {
  const owner = await newAccount(stack);
  await uploadFixture(stack, owner.apiKey, 'version-1.apk');
  const { appId } = await appOf(owner.id);
  const streamKey = redisKeys(stack.prefix).noticeStream(appId);
  await redis.del(streamKey);
  await redis.set(streamKey, 'not a stream');

  const upload = postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: owner.apiKey },
      { name: 'current', value: 'true' },
      { name: 'apk', filename: 'version-3.apk', data: await fixture('version-3.apk') },
    ],
    { ca: stack.ca },
  );
  const retried = await eventually('an ingest attempt failed by the append', async () => {
    const jobs = await ingest.getJobs(['delayed', 'waiting', 'active', 'failed']);
    return jobs.find(
      (j) =>
        j.data.accountId === owner.id && j.attemptsMade >= 1 && /WRONGTYPE/.test(j.failedReason),
    );
  });
  expect(await retried.getState()).not.toBe('failed'); // a retry is due, not a final failure
  const pending = await stack.mongo.db
    .collection('uploads')
    .findOne({ _id: retried.data.uploadId as never });
  expect(pending?.verdict ?? null).toBeNull();

  await redis.del(streamKey);
  expect((await upload).text).toBe('deploy successful');
  expect(await lastNoticeApk(appId)).toBe((await appOf(owner.id)).apkId(3));
});

test('with the API’s Redis unreachable the append is refused at once as DEPENDENCY_UNAVAILABLE, surely unsent', async () => {
  const dead = createProducerRedis(`redis://127.0.0.1:${await freePort()}`, 'test:dead-notices');
  dead.on('error', () => undefined);
  try {
    const sink = redisNoticeSink({ redis: dead, prefix: stack.prefix, failFast: true });
    const notice = {
      accountId: 'a'.repeat(24),
      appId: 'b'.repeat(24),
      package: SAMPLE,
      apkId: 'c'.repeat(24),
      currentVersion: 1,
    };
    const err = await sink.publish(notice).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      message: 'Redis is unavailable (appending a version notice)',
    });
    expect(surelyNotSent(err)).toBe(true);
  } finally {
    dead.disconnect();
  }
});

test('a version-notice job left in Redis by an older version is ignored: workers start and ingest goes on', async () => {
  const stale = new Queue('version-notice', {
    connection: redis,
    prefix: bullPrefix(redis, stack.prefix),
  });
  try {
    const owner = await newAccount(stack);
    await uploadFixture(stack, owner.apiKey, 'version-1.apk');
    const { appId, apkId } = await appOf(owner.id);
    const job = await stale.add('notice', {
      accountId: owner.id,
      appId,
      package: SAMPLE,
      apkId: apkId(1),
      currentVersion: 1,
    });
    await stack.startWorkers();
    // The marker: an upload made current after the workers started, through the new path.
    await uploadFixture(stack, owner.apiKey, 'version-2.apk');
    expect(await lastNoticeApk(appId)).toBe((await appOf(owner.id)).apkId(2));
    expect(await job.getState()).toBe('waiting');
  } finally {
    await stale.close();
  }
});
