/**
 * Issue 10, must hold 4: a full run's logs carry request ids and job ids but no API key, password,
 * master key, metrics token or data key. One stack (API and workers) logs at debug level into a
 * captured pino destination while the test drives sign-up, uploads (legacy form, Bearer, a
 * rejected APK, a wrong key), downloads (key in the query string), the listing, installations,
 * exceptions (form and JSON), metrics, the queue board and webhook deliveries (the endpoint's
 * secret signs them); then every secret used, in every encoding a log could carry it, is searched
 * for in the captured output. Issue 20: device keys and CI tokens are used the same ways (a CI
 * token's legacy upload, a device key's download, registration and exception, wrong ones of
 * each), and are searched for in the logs and in every value Redis holds under the stack's prefix
 * (the job payloads).
 */
import { createKeyRing } from '../../../shared/crypto/keys';
import { unwrapDataKey } from '../../../shared/crypto/data-keys';
import { createLogger } from '../../../shared/log';
import { closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { eventually as waitFor } from '../../helpers/eventually';
import { startStack, testTls, type TestStack } from '../../helpers/stack';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';
import { fixture, uploadFixture } from '../../helpers/uploads';
import { drained, encodeForm, eventually, postForm, stackTrace } from '../exceptions/fixtures';

jest.setTimeout(90_000);
const TOKEN = 'metrics-token-for-the-log-test-42';
const captured: string[] = [];
let stack: TestStack;
let receiver: Receiver;

beforeAll(async () => {
  const log = createLogger(
    'debug',
    { role: 'test' },
    { write: (line: string) => captured.push(line) },
  );
  receiver = await startReceiver();
  stack = await startStack({
    log,
    metricsToken: TOKEN,
    webhooks: { allowPrivate: true, disableAfterDays: 3, timeoutMs: 5_000, ca: testTls().cert },
  });
});
afterAll(async () => {
  await stack.close();
  await receiver.close();
});

test('logs of a full run contain request and job ids, and no secret', async () => {
  const { apiKey, id } = await newAccount(stack);
  const password = 'password-123'; // what newAccount signs up with
  const other = await request(`${stack.urls.admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'second@example.com', password: 'Zq-second-secret-77' },
    ca: stack.ca,
  });
  const apiKey2 = other.json<{ apiKey: string }>().apiKey;
  const bearer = { authorization: `Bearer ${apiKey}` };
  const hook = await request(`${stack.urls.admin}/api/v2/webhooks`, {
    method: 'POST',
    headers: bearer,
    json: { url: receiver.url, events: ['apk.accepted', 'apk.rejected', 'exception.group.new'] },
    ca: stack.ca,
  });
  const webhookSecret = hook.json<{ secret: string }>().secret;

  await uploadFixture(stack, apiKey, 'large.apk');
  const rejected = await postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: apiKey },
      { name: 'apk', filename: 'unsigned.apk', data: await fixture('unsigned.apk') },
    ],
    { ca: stack.ca },
  );
  expect(rejected.status).toBe(422);
  const wrongKey = await postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: `${apiKey2}x` },
      { name: 'apk', filename: 'a.apk', data: await fixture('signed-v2-only.apk') },
    ],
    { ca: stack.ca },
  );
  expect(wrongKey.status).toBe(401);
  const asyncUpload = await postMultipart(
    `${stack.urls.admin}/api/v2/apps/dev.apkrelay.large/apks`,
    [{ name: 'apk', filename: 'l.apk', data: await fixture('large.apk') }],
    { ca: stack.ca, headers: bearer },
  );
  expect(asyncUpload.status).toBe(202);

  const q = `package=dev.apkrelay.large&api_key=${encodeURIComponent(apiKey)}`;
  expect((await request(`${stack.urls.web}/download?${q}`, { ca: stack.ca })).status).toBe(200);
  await request(`${stack.urls.admin}/download?package=x&api_key=${apiKey2}`, { ca: stack.ca });
  await request(
    `${stack.urls.admin}/apps/api_list_json?packageName=dev.apkrelay.large&apiKey=${apiKey}`,
    { ca: stack.ca },
  );
  await request(`${stack.urls.admin}/api/v2/account`, { headers: bearer, ca: stack.ca });
  await request(`${stack.urls.push}/api/v2/installations`, {
    method: 'POST',
    headers: bearer,
    json: { package: 'dev.apkrelay.large', deviceId: 'log-device' },
    ca: stack.ca,
  });
  const apk = await stack.mongo.db.collection('apks').findOne({ accountId: id });
  const report = {
    package: 'dev.apkrelay.large',
    api_key: apiKey,
    hash: String(apk?.md5),
    deviceId: 'log-device',
    st: stackTrace('logs'),
  };
  expect((await postForm(stack.urls.admin, stack.ca, encodeForm(report))).status).toBe(200);
  await request(`${stack.urls.admin}/api/v2/exceptions`, {
    method: 'POST',
    headers: bearer,
    json: { package: report.package, hash: report.hash, deviceId: 'd2', stack: report.st },
    ca: stack.ca,
  });
  await request(`${stack.urls.admin}/metrics`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    ca: stack.ca,
  });
  await request(`${stack.urls.admin}/metrics`, {
    headers: { authorization: `Bearer ${TOKEN}x` },
    ca: stack.ca,
  });
  await request(`${stack.urls.admin}/ops/queues/api/queues`, { headers: bearer, ca: stack.ca });
  const kinds = await useKeyKinds(apiKey, String(apk?.md5));
  await eventually(() => stack.mongo.db.collection('exceptions').countDocuments({}), 2);
  await drained(stack);
  await waitFor('the webhook deliveries', () => receiver.received.length >= 4);

  const keys = createKeyRing(stack.masterKey);
  const apks = await stack.mongo.db.collection('apks').find({}).toArray();
  expect(apks.length).toBeGreaterThanOrEqual(1);
  const dataKeys = apks.map((a) => unwrapDataKey(keys, String(a.wrappedKey), String(a.blobId)));
  const secrets: Record<string, string[]> = {
    apiKey: [apiKey, apiKey2, encodeURIComponent(apiKey)],
    keyKinds: kinds.flatMap((k) => [k, encodeURIComponent(k), k.slice(3)]),
    password: [password, 'Zq-second-secret-77'],
    masterKey: [stack.masterKey.toString('base64'), stack.masterKey.toString('hex')],
    metricsToken: [TOKEN],
    dataKey: dataKeys.flatMap((k) => [k.toString('base64'), k.toString('hex')]),
    webhookSecret: [webhookSecret, webhookSecret.slice('whsec_'.length)],
  };

  const output = captured.join('');
  expect(captured.length).toBeGreaterThan(20);
  for (const [what, values] of Object.entries(secrets)) {
    for (const value of values) {
      if (output.includes(value)) throw new Error(`a log line contains the ${what} ${value}`);
    }
  }
  const redisValues = await everyRedisValue();
  expect(redisValues).toContain('dev.apkrelay.large'); // the job payloads were read
  for (const value of [apiKey, apiKey2, ...kinds]) {
    if (redisValues.includes(value)) throw new Error(`Redis holds the key or token ${value}`);
  }
  const lines = captured.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines.filter((l) => typeof l.requestId === 'string').length).toBeGreaterThan(10);
  expect(lines.some((l) => l.jobId !== undefined && l.queue === 'apk-ingest')).toBe(true);
  expect(lines.some((l) => l.msg === 'request' && l.path === '/download')).toBe(true);
});

/**
 * Creates a device key and a CI token and uses them where keys travel (form fields, query
 * strings, Bearer headers), wrong ones too; returns the secrets, right and wrong.
 */
async function useKeyKinds(apiKey: string, md5: string): Promise<string[]> {
  const create = async (kind: string) =>
    (
      await request(`${stack.urls.admin}/api/v2/account/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        json: { kind, name: `log ${kind}`, apps: ['dev.apkrelay.large'] },
        ca: stack.ca,
      })
    ).json<{ secret: string }>().secret;
  const [dk, ct] = [await create('device-key'), await create('ci-token')];
  const ciUpload = await postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: ct },
      { name: 'apk', filename: 'l.apk', data: await fixture('large.apk') },
    ],
    { ca: stack.ca },
  );
  expect(ciUpload.status).toBe(409); // the same APK again: the token was taken
  const q = `package=dev.apkrelay.large&api_key=${encodeURIComponent(dk)}`;
  expect((await request(`${stack.urls.web}/download?${q}`, { ca: stack.ca })).status).toBe(200);
  await request(`${stack.urls.web}/download?package=dev.apkrelay.large&api_key=${dk}x`, {
    ca: stack.ca,
  });
  await request(`${stack.urls.admin}/api/v2/apps`, {
    headers: { authorization: `Bearer ${ct}` },
    ca: stack.ca,
  });
  await request(`${stack.urls.push}/api/v2/installations`, {
    method: 'POST',
    json: { apiKey: dk, package: 'dev.apkrelay.large', deviceId: 'log-device-2' },
    ca: stack.ca,
  });
  const report = {
    package: 'dev.apkrelay.large',
    api_key: dk,
    hash: md5,
    deviceId: 'log-device-2',
    st: stackTrace('device key logs'),
  };
  expect((await postForm(stack.urls.admin, stack.ca, encodeForm(report))).text).toBe(
    'Exception sent.',
  );
  return [dk, ct, `${dk}x`];
}

/** Every string value Redis holds under the stack's prefix (job hashes, lists, sets). */
async function everyRedisValue(): Promise<string> {
  const redis = createWorkerRedis(stack.redisUrl, 'test:no-secrets');
  try {
    const values: string[] = [];
    for (const key of await redis.keys(`${stack.prefix}:*`)) {
      const type = await redis.type(key);
      if (type === 'hash') values.push(...Object.values(await redis.hgetall(key)));
      else if (type === 'string') values.push((await redis.get(key)) ?? '');
      else if (type === 'list') values.push(...(await redis.lrange(key, 0, -1)));
      else if (type === 'set') values.push(...(await redis.smembers(key)));
      else if (type === 'zset') values.push(...(await redis.zrange(key, 0, -1)));
    }
    return values.join('\n');
  } finally {
    await closeRedis(redis);
  }
}
