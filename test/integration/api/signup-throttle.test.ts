/**
 * Sign-up throttling on the real API with real Redis and Mongo: past SIGNUPS_PER_ADDRESS attempts
 * from one client address in an hour, `POST /api/v2/accounts` answers 429 SIGNUP_RATE_LIMITED with
 * Retry-After and the web form comes back with status 429 and a message; taken emails count,
 * invalid input does not; other addresses are not affected. The client address follows
 * TRUST_PROXY (X-Forwarded-For from loopback is believed here). The hour's arithmetic is checked
 * on the throttle itself with literal times. Joining by an invitation link is counted in the same
 * window (issue 20).
 */
import { SIGNUP_WINDOW_MS, redisSignupThrottle } from '../../../shared/accounts/signup-throttle';
import { redisKeys } from '../../../shared/redis-keys';
import { closeRedis, createWorkerRedis, type Redis } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { Browser } from '../../helpers/browser';
import { request, type Reply } from '../../helpers/http';
import { track } from '../../helpers/resources';
import { startStack, type TestStack } from '../../helpers/stack';

const LIMIT = 3;
let stack: TestStack;
let redis: Redis;
let closeRedisConn: () => Promise<void>;
beforeAll(async () => {
  stack = await startStack({
    workers: false,
    signups: { perAddress: LIMIT },
    trustProxy: ['loopback'],
  });
  redis = createWorkerRedis(stack.redisUrl, 'test:signup-throttle');
  closeRedisConn = track('redis', () => closeRedis(redis));
});
afterAll(async () => {
  await closeRedisConn();
  await stack.close();
});

const code = (r: Reply) => r.json<{ error: { code: string } }>().error.code;
const accountsNamed = (email: string) =>
  stack.mongo.db.collection('accounts').countDocuments({ email });

const apiSignUp = (client: string, email: string, password = 'password-123') =>
  request(`${stack.urls.admin}/api/v2/accounts`, {
    method: 'POST',
    headers: { 'x-forwarded-for': client },
    json: { email, password },
    ca: stack.ca,
  });

async function webSignUp(client: string, email: string): Promise<Reply> {
  const form = await request(`${stack.urls.admin}/ui/signup`, {
    headers: { 'x-forwarded-for': client },
    ca: stack.ca,
  });
  const raw = form.headers['set-cookie'];
  const cookie = (Array.isArray(raw) ? raw[0] : raw)?.split(';')[0] ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
  return request(`${stack.urls.admin}/ui/signup`, {
    method: 'POST',
    headers: {
      'x-forwarded-for': client,
      'content-type': 'application/x-www-form-urlencoded',
      cookie,
    },
    body: new URLSearchParams({ email, password: 'password-123', _csrf: csrf }).toString(),
    ca: stack.ca,
  });
}

test('API: past the limit a sign-up is 429 SIGNUP_RATE_LIMITED with Retry-After; taken emails count, invalid input does not; another address is unaffected', async () => {
  const client = '198.51.100.20';
  // Invalid input is refused before the count: it creates nothing and reveals nothing.
  for (let i = 0; i < LIMIT + 1; i++) {
    expect((await apiSignUp(client, `not-an-email-${i}`)).status).toBe(400);
  }
  expect((await apiSignUp(client, 'api-first@example.com')).status).toBe(201);
  const taken = await apiSignUp(client, 'api-first@example.com');
  expect([taken.status, code(taken)]).toEqual([409, 'ACCOUNT_EMAIL_TAKEN']);
  expect((await apiSignUp(client, 'api-second@example.com')).status).toBe(201);

  const limited = await apiSignUp(client, 'api-third@example.com');
  expect([limited.status, code(limited)]).toEqual([429, 'SIGNUP_RATE_LIMITED']);
  const retryAfter = Number(limited.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(SIGNUP_WINDOW_MS / 1000 - 60);
  expect(retryAfter).toBeLessThanOrEqual(SIGNUP_WINDOW_MS / 1000 + 1);
  expect(await accountsNamed('api-third@example.com')).toBe(0);
  // Probing a taken email is refused the same way.
  const probe = await apiSignUp(client, 'api-first@example.com');
  expect([probe.status, code(probe)]).toEqual([429, 'SIGNUP_RATE_LIMITED']);

  // Another client behind the same (trusted) proxy signs up as usual.
  expect((await apiSignUp('198.51.100.21', 'api-third@example.com')).status).toBe(201);
  expect(await accountsNamed('api-third@example.com')).toBe(1);
});

test('web: past the limit the form comes back with status 429, a message and Retry-After; the API shares the window', async () => {
  const client = '203.0.113.30';
  for (let i = 0; i < LIMIT; i++) {
    const created = await webSignUp(client, `web-${i}@example.com`);
    expect([created.status, created.headers.location]).toEqual([303, '/ui/apps']);
  }
  const limited = await webSignUp(client, 'web-late@example.com');
  expect(limited.status).toBe(429);
  expect(limited.headers['content-type']).toMatch(/^text\/html/);
  expect(limited.headers['retry-after']).toMatch(/^\d+$/);
  expect(limited.text).toMatch(/Too many sign-ups from your network; try again in \d+ minutes\./);
  expect(limited.text).toContain('value="web-late@example.com"');
  expect(await accountsNamed('web-late@example.com')).toBe(0);

  const api = await apiSignUp(client, 'web-late@example.com');
  expect([api.status, code(api)]).toEqual([429, 'SIGNUP_RATE_LIMITED']);
  expect((await webSignUp('203.0.113.31', 'web-late@example.com')).status).toBe(303);
});

test('the window: an hour long, frees one attempt at a time, per IPv6 /64', async () => {
  const keys = redisKeys(`${stack.prefix}-window`);
  const throttle = redisSignupThrottle(redis, keys, 2);
  const H = SIGNUP_WINDOW_MS;
  const T = 1_800_000_000_000;
  expect(await throttle.attempted('10.1.0.1', T)).toBe(0);
  expect(await throttle.attempted('10.1.0.1', T + 1_000)).toBe(0);
  expect(await throttle.attempted('10.1.0.1', T + 2_000)).toBe(T + 1_000 + H + 1 - (T + 2_000));
  expect(await throttle.attempted('10.1.0.1', T + 10 * H)).toBe(0);
  expect(await throttle.attempted('2001:db8:5:6::1', T)).toBe(0);
  expect(await throttle.attempted('2001:db8:5:6::2', T + 1)).toBe(0);
  expect(await throttle.attempted('2001:db8:5:6:ffff::3', T + 2)).toBeGreaterThan(0);
  expect(await throttle.attempted('2001:db8:5:7::1', T + 3)).toBe(0);
  // 0: no limit, and no Redis call.
  expect(await redisSignupThrottle(redis, keys, 0).attempted('10.1.0.1', T + 3)).toBe(0);
});

test('joining by an invitation link counts in the same window as sign-up (docs/teams.md)', async () => {
  const owner = await newAccount(stack);
  const ownerBrowser = new Browser(stack, '192.0.2.70');
  expect((await ownerBrowser.logIn(owner.email, 'password-123')).status).toBe(303);
  const invited = await ownerBrowser.form(
    '/ui/members/invitations',
    { email: `joiner-${Date.now()}@example.com`, role: 'viewer' },
    '/ui/members',
  );
  const path = new URL(/id="invite-link">([^<]+)</.exec(invited.text)![1]!).pathname;

  const joiner = new Browser(stack, '192.0.2.77');
  const csrf = await joiner.csrf(path);
  const tries: number[] = [];
  for (let i = 0; i < LIMIT; i++) {
    tries.push(
      (await joiner.post(path, { password: 'a-password', confirm: 'other', _csrf: csrf })).status,
    );
  }
  const limited = await joiner.post(path, {
    password: 'a-password',
    confirm: 'a-password',
    _csrf: csrf,
  });
  expect([...tries, limited.status]).toEqual([400, 400, 400, 429]);
  expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  // The link is still good from elsewhere.
  const other = new Browser(stack, '192.0.2.78');
  const joined = await other.post(path, {
    password: 'a-password',
    confirm: 'a-password',
    _csrf: await other.csrf(path),
  });
  expect(joined.headers.location).toBe('/ui/apps');
});
