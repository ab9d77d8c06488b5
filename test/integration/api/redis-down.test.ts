/**
 * The API's Redis connection fails fast: with Redis unreachable, the API still starts, requests
 * that need Redis get a retryable 503 and /readyz says which dependency is missing.
 */
import { randomBytes } from 'node:crypto';
import { startApi, type ApiProcess } from '../../../api/main';
import { freePort } from '../../../ops/services/child';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, testLogger } from '../../helpers/services';
import { testTls } from '../../helpers/stack';
import { connectMongo } from '../../../shared/storage/mongo';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

let api: ApiProcess;
let close: () => Promise<void>;
let admin: string;
const { database, prefix } = isolation();

beforeAll(async () => {
  const deadRedis = `redis://127.0.0.1:${await freePort()}`;
  const ports = { admin: await freePort(), web: await freePort(), push: await freePort() };
  admin = `https://localhost:${ports.admin}`;
  api = await startApi({
    log: testLogger(),
    redisUrl: deadRedis,
    mongoUrl: serviceUrls().mongoUrl,
    database,
    queuePrefix: prefix,
    masterKey: randomBytes(32),
    tls: testTls(),
    host: '127.0.0.1',
    ports,
    publicUrls: { base: admin, web: admin, push: admin },
    limits: { maxApkBytes: 1 << 20, uploadWaitTimeoutMs: 5_000 },
  });
  close = track('api with dead redis', async () => {
    await api.close(500);
    const mongo = await connectMongo(serviceUrls().mongoUrl, database);
    await mongo.db.dropDatabase();
    await mongo.close();
  });
});
afterAll(() => close());

test('/readyz is 503 naming Redis; an upload gets 503 with Retry-After and leaves nothing', async () => {
  const ready = await request(`${admin}/readyz`, { ca: testTls().cert });
  expect(ready.status).toBe(503);
  expect(ready.json()).toMatchObject({ checks: { redis: false, mongo: true } });

  const signUp = await request(`${admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'redis-down@example.com', password: 'password-123' },
    ca: testTls().cert,
  });
  expect(signUp.status).toBe(201); // accounts need only MongoDB
  const { apiKey } = signUp.json<{ apiKey: string }>();
  const apk = await readFile(path.resolve(__dirname, '../../fixtures/apks/version-1.apk'));
  const started = Date.now();
  const reply = await postMultipart(
    `${admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: apiKey },
      { name: 'apk', filename: 'v1.apk', data: apk },
    ],
    { ca: testTls().cert },
  );
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(reply.status).toBe(503);
  expect(reply.headers['retry-after']).toBe('5');
  expect(reply.text).toMatch(/retry later/);
  const mongo = await connectMongo(serviceUrls().mongoUrl, database);
  try {
    expect(await mongo.db.collection('uploads').countDocuments()).toBe(0);
    expect(await mongo.db.collection('apks.files').countDocuments()).toBe(0);
  } finally {
    await mongo.close();
  }
});

test('failed-auth throttling never turns a request away while Redis is down', async () => {
  const ca = testTls().cert;
  const signUp = await request(`${admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'throttle-redis-down@example.com', password: 'password-123' },
    ca,
  });
  expect(signUp.status).toBe(201);
  const ask = (key: string) =>
    request(`${admin}/api/v2/account`, { headers: { authorization: `Bearer ${key}` }, ca });
  // More failures than the default per-key limit (20): the throttle cannot count them.
  for (let i = 0; i < 22; i++) {
    const wrong = await ask(`ak_${'D'.repeat(32)}`);
    expect(wrong.status).toBe(401);
  }
  expect((await ask(signUp.json<{ apiKey: string }>().apiKey)).status).toBe(200);
});
