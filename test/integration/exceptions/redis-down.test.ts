/**
 * With Redis unreachable the limit cannot be decided: the device must keep its report and retry.
 * The legacy form gets 503 + Retry-After with a plain text (not a LOST verdict), the JSON API
 * 503 DEPENDENCY_UNAVAILABLE, and nothing is stored.
 */
import { randomBytes } from 'node:crypto';
import { startApi, type ApiProcess } from '../../../api/main';
import { freePort } from '../../../ops/services/child';
import { connectMongo, type Mongo } from '../../../shared/storage/mongo';
import { request } from '../../helpers/http';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, testLogger } from '../../helpers/services';
import { testTls } from '../../helpers/stack';
import { encodeForm, postForm, seedApp, stackTrace } from './fixtures';

let api: ApiProcess;
let mongo: Mongo;
let close: () => Promise<void>;
let admin: string;
const { database, prefix } = isolation();

beforeAll(async () => {
  // Port 0: each listener takes a port when it listens. A port picked before startApi would
  // stay unbound through its wait for Redis (3 s, never ready here), long enough for another
  // socket on this busy machine to take it (EADDRINUSE: 1 run in 19 here, 1 in 27 before).
  const ports = { admin: 0, web: 0, push: 0 };
  api = await startApi({
    log: testLogger(),
    redisUrl: `redis://127.0.0.1:${await freePort()}`,
    mongoUrl: serviceUrls().mongoUrl,
    database,
    queuePrefix: prefix,
    masterKey: randomBytes(32),
    tls: testTls(),
    host: '127.0.0.1',
    ports,
    // Links in replies are not followed here.
    publicUrls: { base: 'https://localhost', web: 'https://localhost', push: 'https://localhost' },
    limits: { maxApkBytes: 1 << 20, uploadWaitTimeoutMs: 5_000 },
  });
  admin = `https://localhost:${api.ports.admin}`;
  mongo = await connectMongo(serviceUrls().mongoUrl, database);
  close = track('api with dead redis (exceptions)', async () => {
    await api.close(500);
    await mongo.db.dropDatabase();
    await mongo.close();
  });
});
afterAll(() => close());

test('Redis down: 503 with Retry-After on both endpoints, nothing stored', async () => {
  const signUp = await request(`${admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'exceptions-redis-down@example.com', password: 'password-123' },
    ca: testTls().cert,
  });
  const { apiKey, id } = signUp.json<{ apiKey: string; id: string }>();
  const app = await seedApp({ mongo }, id);
  const report = {
    package: app.package,
    api_key: apiKey,
    hash: app.md5,
    deviceId: 'd1',
    st: stackTrace('redis down'),
  };
  const legacy = await postForm(admin, testTls().cert, encodeForm(report));
  expect({ status: legacy.status, text: legacy.text }).toEqual({
    status: 503,
    text: 'Exception not sent: the service is unavailable; retry later.',
  });
  expect(legacy.headers['retry-after']).toBe('5');
  expect(legacy.headers['content-type']).toBe('text/plain; charset=utf-8');

  const json = await request(`${admin}/api/v2/exceptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    json: { package: app.package, hash: app.md5, deviceId: 'd1', stack: report.st },
    ca: testTls().cert,
  });
  expect(json.status).toBe(503);
  expect(json.headers['retry-after']).toBe('5');
  expect(json.json()).toMatchObject({ error: { code: 'DEPENDENCY_UNAVAILABLE' } });
  expect(await mongo.db.collection('exceptions').countDocuments()).toBe(0);

  // Checks that need no Redis still answer: a wrong key is LOST, not 503.
  const wrongKey = await postForm(admin, testTls().cert, encodeForm({ ...report, api_key: 'x' }));
  expect(wrongKey.status).toBe(200);
  expect(wrongKey.text).toMatch(/Invalid API Key/);
});
