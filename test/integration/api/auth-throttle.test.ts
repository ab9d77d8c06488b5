/**
 * Failed-auth throttling of API keys, on the real API with real Redis: past the limit of failures
 * per presented key or per client address, a wrong key gets 429 AUTH_RATE_LIMITED with
 * Retry-After on every route that takes a key (JSON and PushLink plain text alike), while a valid
 * key from the same address keeps working. The client address follows TRUST_PROXY. The window's
 * arithmetic is checked on the Lua script itself with literal times.
 */
import { randomBytes } from 'node:crypto';
import { startApi, type ApiProcess } from '../../../api/main';
import { AUTH_FAILURE_WINDOW_MS, redisAuthThrottle } from '../../../shared/accounts/auth-throttle';
import { redisKeys } from '../../../shared/redis-keys';
import { APK_BUCKET } from '../../../shared/storage/blob-store';
import { freePort } from '../../../ops/services/child';
import { connectMongo, type Mongo } from '../../../shared/storage/mongo';
import { closeRedis, createWorkerRedis, type Redis } from '../../../shared/storage/redis';
import { request, type Reply } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, testLogger } from '../../helpers/services';
import { testTls } from '../../helpers/stack';
import { fixture } from '../../helpers/uploads';

const LIMITS = { perAddress: 8, perKey: 3 };
const { redisUrl, mongoUrl } = serviceUrls();
const { database, prefix } = isolation();
let mongo: Mongo;
let closeMongo: () => Promise<void>;
let redis: Redis;
let closeRedisConn: () => Promise<void>;
const closers: Array<() => Promise<void>> = [];
let admin: string;
let push: string;
/** An API that believes no proxy (TRUST_PROXY unset), with windows of its own. */
let untrusted: string;
const ca = testTls().cert;
/** Both API processes share one database, so one master key (its pinned keys are sealed under it). */
const masterKey = randomBytes(32);

async function launch(
  queuePrefix: string,
  trustProxy: false | readonly string[],
): Promise<{ admin: string; push: string }> {
  const ports = { admin: await freePort(), web: await freePort(), push: await freePort() };
  const urls = {
    admin: `https://localhost:${ports.admin}`,
    push: `https://localhost:${ports.push}`,
  };
  const api: ApiProcess = await startApi({
    log: testLogger(),
    redisUrl,
    mongoUrl,
    database,
    queuePrefix,
    masterKey,
    tls: testTls(),
    host: '127.0.0.1',
    ports,
    publicUrls: { base: urls.admin, web: `https://localhost:${ports.web}`, push: urls.push },
    limits: { maxApkBytes: 1024 * 1024, uploadWaitTimeoutMs: 5_000 },
    authFailureLimits: LIMITS,
    trustProxy,
  });
  closers.push(track('api', () => api.close(1_000)));
  return urls;
}

beforeAll(async () => {
  mongo = await connectMongo(mongoUrl, database);
  closeMongo = track('mongo', async () => {
    await mongo.db.dropDatabase().catch(() => undefined);
    await mongo.close();
  });
  redis = createWorkerRedis(redisUrl, 'test:auth-throttle');
  closeRedisConn = track('redis', () => closeRedis(redis));
  // The test client connects over loopback: believe its X-Forwarded-For, as behind a proxy.
  ({ admin, push } = await launch(prefix, ['loopback']));
  untrusted = (await launch(`${prefix}-untrusted`, false)).admin;
});
afterAll(async () => {
  for (const close of closers) await close();
  await closeRedisConn();
  await closeMongo();
});

const from = (client: string, headers: Record<string, string> = {}) => ({
  ...headers,
  'x-forwarded-for': client,
});
const wrongKey = () => `ak_${randomBytes(24).toString('base64url')}`;
const code = (r: Reply) => r.json<{ error: { code: string } }>().error.code;

async function signUp(): Promise<string> {
  const reply = await request(`${admin}/api/v2/accounts`, {
    method: 'POST',
    json: {
      email: `throttle-${randomBytes(4).toString('hex')}@example.com`,
      password: 'password-123',
    },
    ca,
  });
  expect(reply.status).toBe(201);
  return reply.json<{ apiKey: string }>().apiKey;
}

const account = (client: string, key: string) =>
  request(`${admin}/api/v2/account`, {
    headers: from(client, { authorization: `Bearer ${key}` }),
    ca,
  });

test('per presented key: past the limit a wrong key gets 429 with Retry-After; a valid key from the same address still works', async () => {
  const client = '198.51.100.10';
  const valid = await signUp();
  const stale = wrongKey();
  for (let i = 0; i < LIMITS.perKey; i++) {
    const r = await account(client, stale);
    expect([r.status, code(r)]).toEqual([401, 'UNAUTHENTICATED']);
  }
  const limited = await account(client, stale);
  expect([limited.status, code(limited)]).toEqual([429, 'AUTH_RATE_LIMITED']);
  const retryAfter = Number(limited.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(AUTH_FAILURE_WINDOW_MS / 1000 - 60);
  expect(retryAfter).toBeLessThanOrEqual(AUTH_FAILURE_WINDOW_MS / 1000 + 1);
  // The same stale key from another address is still refused: the key's window is global.
  expect((await account('198.51.100.11', stale)).status).toBe(429);
  // Successful authentication is unaffected, and does not reset anything.
  expect((await account(client, valid)).status).toBe(200);
  expect((await account(client, stale)).status).toBe(429);
  // Another wrong key from this address is under its own key window: 401.
  expect((await account(client, wrongKey())).status).toBe(401);
});

test('per client address (X-Forwarded-For from a trusted proxy): any wrong value counts; other addresses are not affected', async () => {
  const client = '203.0.113.7';
  const valid = await signUp();
  for (let i = 0; i < LIMITS.perAddress; i++) {
    // Values that cannot be keys count for the address (and never reach the database).
    expect((await account(client, `junk-${i}`)).status).toBe(401);
  }
  const limited = await account(client, 'junk-again');
  expect([limited.status, code(limited)]).toEqual([429, 'AUTH_RATE_LIMITED']);
  expect(limited.headers['retry-after']).toMatch(/^\d+$/);
  expect((await account('203.0.113.8', 'junk-again')).status).toBe(401);
  expect((await account(client, valid)).status).toBe(200);
  // Presenting nothing is not a failed attempt, and stays a plain 401.
  const anonymous = await request(`${admin}/api/v2/account`, { headers: from(client), ca });
  expect(anonymous.status).toBe(401);
});

test('without TRUST_PROXY, X-Forwarded-For is not believed: spoofed addresses share one window', async () => {
  const ask = (spoofed: string) =>
    request(`${untrusted}/api/v2/account`, {
      headers: { 'x-forwarded-for': spoofed, authorization: 'Bearer junk' },
      ca,
    });
  for (let i = 0; i < LIMITS.perAddress; i++) {
    expect((await ask(`198.18.0.${i + 1}`)).status).toBe(401);
  }
  const limited = await ask('198.18.1.1');
  expect([limited.status, code(limited)]).toEqual([429, 'AUTH_RATE_LIMITED']);
});

test('every route that takes a key answers a throttled client 429, in its own dialect', async () => {
  const client = '192.0.2.50';
  for (let i = 0; i < LIMITS.perAddress; i++) await account(client, `junk-${i}`);
  const key = wrongKey();
  const replies: Record<string, Reply> = {
    download: await request(`${admin}/download?package=dev.x.y&api_key=${key}`, {
      headers: from(client),
      ca,
    }),
    listJson: await request(`${admin}/apps/api_list_json?packageName=dev.x.y&apiKey=${key}`, {
      headers: from(client),
      ca,
    }),
    register: await request(`${push}/api/v2/installations`, {
      method: 'POST',
      headers: from(client, { authorization: `Bearer ${key}` }),
      json: { package: 'dev.x.y', deviceId: 'd1' },
      ca,
    }),
    stream: await request(`${push}/api/v2/stream?package=dev.x.y&deviceId=d1&api_key=${key}`, {
      headers: from(client),
      ca,
    }),
    legacyException: await request(`${admin}/exception`, {
      method: 'POST',
      headers: from(client, { 'content-type': 'application/x-www-form-urlencoded' }),
      body: `package=dev.x.y&api_key=${key}&hash=${'0'.repeat(32)}&deviceId=d1&st%5B%5D=x`,
      ca,
    }),
    jsonException: await request(`${admin}/api/v2/exceptions`, {
      method: 'POST',
      headers: from(client, { authorization: `Bearer ${key}` }),
      json: { package: 'dev.x.y', hash: '0'.repeat(32), deviceId: 'd1', stack: ['x'] },
      ca,
    }),
    legacyUpload: await postMultipart(
      `${admin}/apps/api_upload`,
      [
        { name: 'apiKey', value: key },
        { name: 'apk', filename: 'a.apk', data: await fixture('version-1.apk') },
      ],
      { ca, headers: from(client) },
    ),
  };
  for (const [route, reply] of Object.entries(replies)) {
    expect({
      route,
      status: reply.status,
      retryAfter: /^\d+$/.test(String(reply.headers['retry-after'])),
    }).toEqual({
      route,
      status: 429,
      retryAfter: true,
    });
  }
  expect(code(replies.listJson!)).toBe('AUTH_RATE_LIMITED');
  expect(code(replies.register!)).toBe('AUTH_RATE_LIMITED');
  expect(code(replies.jsonException!)).toBe('AUTH_RATE_LIMITED');
  expect(replies.download!.text).toBe(
    'Download failed: too many failed API key attempts; retry later.',
  );
  expect(replies.legacyUpload!.text).toBe(
    'deploy fails, too many failed API key attempts; retry later',
  );
  expect(replies.legacyException!.text).toBe(
    'Exception not sent: too many failed API key attempts; retry later.',
  );
  // The refused upload left no blob behind.
  expect(await mongo.db.collection(`${APK_BUCKET}.files`).countDocuments()).toBe(0);
});

test('the web login throttle counts per forwarded client address when the proxy is trusted', async () => {
  const login = async (client: string, i: number) => {
    const form = await request(`${admin}/ui/login`, { headers: from(client), ca });
    const raw = form.headers['set-cookie'];
    const cookie = (Array.isArray(raw) ? raw[0] : raw)?.split(';')[0] ?? '';
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
    return request(`${admin}/ui/login`, {
      method: 'POST',
      headers: from(client, { 'content-type': 'application/x-www-form-urlencoded', cookie }),
      body: new URLSearchParams({
        email: `nobody-${i}@example.com`,
        password: 'wrong-password',
        _csrf: csrf,
      }).toString(),
      ca,
    });
  };
  // 50 failed logins per client address in 15 minutes (login-throttle.ts), each another email.
  for (let i = 0; i < 50; i++) expect((await login('192.0.2.200', i)).status).toBe(401);
  expect((await login('192.0.2.200', 50)).status).toBe(429);
  // Another client behind the same proxy is not locked out.
  expect((await login('192.0.2.201', 51)).status).toBe(401);
}, 120_000);

test('the sliding window: exact Retry-After, frees one failure at a time, bounded memory', async () => {
  const keys = redisKeys(`${prefix}-window`);
  const throttle = redisAuthThrottle(redis, keys, { perAddress: 2, perKey: 0 });
  const W = AUTH_FAILURE_WINDOW_MS;
  const T = 1_800_000_000_000;
  const at = (address: string, t: number) => throttle.failed({ address, presented: 'x' }, t);
  expect(await at('10.0.0.1', T)).toBe(0);
  expect(await at('10.0.0.1', T + 1_000)).toBe(0);
  // Third failure: over the limit until the first two have left the window.
  expect(await at('10.0.0.1', T + 2_000)).toBe(T + 1_000 + W + 1 - (T + 2_000));
  for (let i = 0; i < 50; i++) await at('10.0.0.1', T + 3_000 + i);
  expect(await redis.zcard(keys.authFailures('address', '10.0.0.1'))).toBe(3);
  // Long after: back under the limit.
  expect(await at('10.0.0.1', T + 10 * W)).toBe(0);
  // A client over its address limit creates no more key windows, whatever keys it sends.
  const both = redisAuthThrottle(redis, keys, { perAddress: 2, perKey: 5 });
  const keyWindows = async () => (await redis.keys(keys.authFailures('key', '*'))).length;
  for (let i = 0; i < 20; i++) {
    await both.failed(
      { address: '10.0.0.9', presented: `ak_${String(i).padStart(2, '0')}${'k'.repeat(30)}` },
      T + i,
    );
  }
  expect(await keyWindows()).toBe(2);
  // IPv6 clients are counted by their /64.
  expect(await at('2001:db8:1:2::1', T)).toBe(0);
  expect(await at('2001:db8:1:2:ffff::9', T + 1)).toBe(0);
  expect(await at('2001:db8:1:2:aaaa::3', T + 2)).toBeGreaterThan(0);
  expect(await at('2001:db8:1:3::1', T + 3)).toBe(0);
});
