/**
 * Bulk CI traffic: asynchronous uploads with a status URL, the JSON upload route, concurrent
 * uploads of the same APK (exactly one stored) and of 50 different ones (all done, all listed).
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { redisKeys } from '../../../shared/redis-keys';
import { closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';

const fixtures = path.resolve(__dirname, '../../fixtures/apks');
jest.setTimeout(180_000);

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

interface Status {
  jobId: string;
  status: string;
  verdict: { code: string; message: string } | null;
  apk: { package: string; versionCode: number; md5: string } | null;
}

function waitDone(statusUrl: string, apiKey: string): Promise<Status> {
  return eventuallyValue(
    `upload ${statusUrl} to finish`,
    async () => {
      const reply = await request(statusUrl, {
        headers: { authorization: `Bearer ${apiKey}` },
        ca: stack.ca,
      });
      expect(reply.status).toBe(200);
      return reply.json<Status>();
    },
    (body) => body.status === 'done' || body.status === 'failed',
    { intervalMs: 100 },
  );
}

test('async=true answers 202 with a status URL that ends done with the APK record', async () => {
  const { apiKey } = await newAccount(stack);
  const reply = await postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: apiKey },
      { name: 'async', value: 'true' },
      {
        name: 'apk',
        filename: 'v1.apk',
        data: await readFile(path.join(fixtures, 'version-1.apk')),
      },
    ],
    { ca: stack.ca },
  );
  expect(reply.status).toBe(202);
  const { jobId, statusUrl } = reply.json<{ jobId: string; statusUrl: string }>();
  expect(statusUrl).toBe(`${stack.urls.admin}/api/v2/uploads/${jobId}`);
  const done = await waitDone(statusUrl, apiKey);
  expect(done).toMatchObject({
    status: 'done',
    verdict: { code: 'ACCEPTED' },
    apk: { package: 'dev.apkrelay.sample', versionCode: 1 },
  });
  // Another account cannot see it.
  const other = await newAccount(stack);
  const hidden = await request(statusUrl, {
    headers: { authorization: `Bearer ${other.apiKey}` },
    ca: stack.ca,
  });
  expect(hidden.status).toBe(404);
});

test('Prefer: respond-async does the same; a rejected upload ends failed with its code', async () => {
  const { apiKey } = await newAccount(stack);
  const reply = await postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: apiKey },
      { name: 'apk', filename: 'x.apk', data: await readFile(path.join(fixtures, 'unsigned.apk')) },
    ],
    { ca: stack.ca, headers: { prefer: 'respond-async' } },
  );
  expect(reply.status).toBe(202);
  const done = await waitDone(reply.json<{ statusUrl: string }>().statusUrl, apiKey);
  expect(done).toMatchObject({ status: 'failed', verdict: { code: 'APK_INVALID' }, apk: null });
});

test('POST /api/v2/apps/{package}/apks: 202, done; a wrong package ends APK_PACKAGE_MISMATCH', async () => {
  const { apiKey } = await newAccount(stack);
  const post = async (pkg: string, file: string) =>
    postMultipart(
      `${stack.urls.admin}/api/v2/apps/${pkg}/apks`,
      [
        { name: 'current', value: 'true' },
        { name: 'apk', filename: file, data: await readFile(path.join(fixtures, file)) },
      ],
      { ca: stack.ca, headers: { authorization: `Bearer ${apiKey}` } },
    );
  const ok = await post('dev.apkrelay.other', 'other-package.apk');
  expect(ok.status).toBe(202);
  expect(await waitDone(ok.json<{ statusUrl: string }>().statusUrl, apiKey)).toMatchObject({
    status: 'done',
  });
  const wrong = await post('dev.apkrelay.elsewhere', 'version-2.apk');
  expect(await waitDone(wrong.json<{ statusUrl: string }>().statusUrl, apiKey)).toMatchObject({
    status: 'failed',
    verdict: { code: 'APK_PACKAGE_MISMATCH' },
  });
  const anonymous = await postMultipart(
    `${stack.urls.admin}/api/v2/apps/dev.apkrelay.other/apks`,
    [],
    {
      ca: stack.ca,
    },
  );
  expect(anonymous.status).toBe(401);
  expect(anonymous.json<{ error: { code: string } }>().error.code).toBe('UNAUTHENTICATED');
});

test('setting an APK current appends one version notice to the app stream', async () => {
  const { apiKey, id } = await newAccount(stack);
  const data = await readFile(path.join(fixtures, 'version-2.apk'));
  const parts = [
    { name: 'apiKey', value: apiKey },
    { name: 'current', value: 'true' },
    { name: 'apk', filename: 'v2.apk', data },
  ];
  expect(
    (await postMultipart(`${stack.urls.admin}/apps/api_upload`, parts, { ca: stack.ca })).text,
  ).toBe('deploy successful');
  const app = await stack.mongo.db.collection('apps').findOne({ accountId: id });
  // Through the product's factory: the URL may name a cluster (APKRELAY_TEST_REDIS=cluster).
  const redis = createWorkerRedis(stack.redisUrl, 'test:notice-stream');
  try {
    const stream = redisKeys(stack.prefix).noticeStream(app!._id.toHexString());
    const entries = await eventuallyValue(
      'a notice in the stream',
      () => redis.xrange(stream, '-', '+'),
      (found) => found.length > 0,
    );
    expect(entries).toHaveLength(1);
    const fields = entries[0]![1];
    const notice = JSON.parse(fields[fields.indexOf('n') + 1]!) as Record<string, unknown>;
    expect(notice).toMatchObject({
      accountId: id,
      package: 'dev.apkrelay.sample',
      currentVersion: 1,
    });
  } finally {
    await closeRedis(redis);
  }
});

test('the same APK uploaded twice at once: exactly one stored, one duplicate reply', async () => {
  const { apiKey, id } = await newAccount(stack);
  const data = await readFile(path.join(fixtures, 'version-3.apk'));
  const send = () =>
    postMultipart(
      `${stack.urls.admin}/apps/api_upload`,
      [
        { name: 'apiKey', value: apiKey },
        { name: 'apk', filename: 'v3.apk', data },
      ],
      { ca: stack.ca },
    );
  const replies = await Promise.all([send(), send()]);
  expect(replies.map((r) => r.text).sort()).toEqual([
    'deploy fails, this APK hash is the same of another APK uploaded',
    'deploy successful',
  ]);
  expect(await stack.mongo.db.collection('apks').countDocuments({ accountId: id })).toBe(1);
  // Both uploads staged a blob; only the stored APK's remains.
  const uploads = await stack.mongo.db
    .collection<{ _id: string }>('uploads')
    .find({ accountId: id })
    .toArray();
  expect(uploads).toHaveLength(2);
  const blobIds = uploads.map((u) => u._id as never);
  const files = await stack.mongo.db
    .collection('apks.files')
    .find({ _id: { $in: blobIds } })
    .toArray();
  const apk = await stack.mongo.db.collection('apks').findOne({ accountId: id });
  expect(files.map((f) => String(f._id))).toEqual([apk?.blobId]);
});

test('50 concurrent async uploads of different APKs all end done and are all listed', async () => {
  const { apiKey, id } = await newAccount(stack);
  const dir = path.join(fixtures, 'bulk');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.apk')).sort();
  expect(files).toHaveLength(50);
  const replies = await Promise.all(
    files.map(async (file) =>
      postMultipart(
        `${stack.urls.admin}/apps/api_upload`,
        [
          { name: 'apiKey', value: apiKey },
          { name: 'async', value: 'true' },
          { name: 'apk', filename: file, data: await readFile(path.join(dir, file)) },
        ],
        { ca: stack.ca },
      ),
    ),
  );
  expect(replies.map((r) => r.status)).toEqual(files.map(() => 202));
  const results = await Promise.all(
    replies.map((r) => waitDone(r.json<{ statusUrl: string }>().statusUrl, apiKey)),
  );
  expect(results.map((r) => r.status)).toEqual(files.map(() => 'done'));
  const codes = (await stack.mongo.db.collection('apks').find({ accountId: id }).toArray())
    .map((a) => a.versionCode as number)
    .sort((a, b) => a - b);
  expect(codes).toEqual(files.map((_f, i) => i + 1));
});
