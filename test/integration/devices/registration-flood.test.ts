/**
 * Issue 31, finding 6: a leaked device key (device keys ship inside APKs) cannot flood the
 * installations and the shared webhook queue. On the real stack:
 * - new registrations are limited per key and per app (DEVICE_NEW_REGISTRATIONS_PER_KEY and
 *   _PER_APP, per minute; docs/push.md): past either, the JSON route answers 429
 *   DEVICE_REGISTRATIONS_RATE_LIMITED with Retry-After, and the PushLink socket an `mt 1` text
 *   before closing (the SDK reconnects on its 10 s cycle); a known installation still registers;
 * - `installation.over_plan` is coalesced: one event per app per window
 *   (WEBHOOK_OVER_PLAN_WINDOW_SECONDS), whose `count` says how many registrations went over the
 *   plan since the previous event. The delivery log is written before a registration answers, so
 *   counting its documents after the replies is exact.
 */
import type { PushlinkReplay } from '../../../device-client/node/pushlink-replay';
import { newAccount } from '../../helpers/accounts';
import { request } from '../../helpers/http';
import { openLegacySocket } from '../../helpers/legacy-socket';
import { ownerApi } from '../../helpers/owner-api';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

jest.setTimeout(180_000);
const SAMPLE = 'dev.apkrelay.sample';
const PER_KEY = 4;
const PER_APP = 6;
const WINDOW_S = 600;
let clock = Date.parse('2026-11-28T10:00:00Z');
let stack: TestStack;
const sockets: PushlinkReplay[] = [];

beforeAll(async () => {
  stack = await startStack({
    now: () => new Date(clock),
    legacyPush: {},
    registrationLimits: { perKey: PER_KEY, perApp: PER_APP },
    webhookLimits: { overPlanWindowMs: WINDOW_S * 1000 },
  });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await stack?.close();
});

function register(key: string, deviceId: string) {
  return request(`${stack.urls.push}/api/v2/installations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    json: { package: SAMPLE, deviceId },
    ca: stack.ca,
  });
}

test('new registrations are limited per key and per app; known devices are not', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const api = ownerApi(stack, apiKey);
  const made = await api('POST', '/api/v2/account/keys', {
    kind: 'device-key',
    name: 'leaked',
    apps: [SAMPLE],
  });
  expect(made.status).toBe(201);
  const deviceKey = made.json<{ secret: string }>().secret;

  for (let i = 0; i < PER_KEY; i++) expect((await register(deviceKey, `k-${i}`)).status).toBe(200);
  const refused = await register(deviceKey, 'k-more');
  expect(refused.status).toBe(429);
  expect(refused.json<{ error: { code: string } }>().error.code).toBe(
    'DEVICE_REGISTRATIONS_RATE_LIMITED',
  );
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  // A known installation registers again whatever the limits.
  expect((await register(deviceKey, 'k-0')).status).toBe(200);

  // The app's limit: the account key may add PER_APP - PER_KEY more, then it is refused too.
  for (let i = 0; i < PER_APP - PER_KEY; i++) {
    expect((await register(apiKey, `a-${i}`)).status).toBe(200);
  }
  expect((await register(apiKey, 'a-more')).status).toBe(429);

  // Over the PushLink socket: told in PushLink's style, then closed.
  const s = await openLegacySocket(stack, sockets);
  s.subscribe({ apiKey, package: SAMPLE, deviceId: 'socket-new', hash: '' });
  await s.closed;
  expect(s.lines).toEqual([
    { mt: '1', msg: 'Device register failed: Too many new devices for this app; retry later.' },
  ]);
  const count = await stack.mongo.db
    .collection('installations')
    .countDocuments({ package: SAMPLE });
  expect(count).toBeGreaterThanOrEqual(PER_APP);
  const mine = await stack.mongo.db
    .collection('installations')
    .find({ deviceId: { $in: ['k-more', 'a-more', 'socket-new'] } })
    .toArray();
  expect(mine).toEqual([]);
});

test('installation.over_plan is one event per app per window, with a count', async () => {
  const { apiKey, id } = await newAccount(stack, 1);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const api = ownerApi(stack, apiKey);
  const hook = await api('POST', '/api/v2/webhooks', {
    url: 'https://receiver.example/hook',
    events: ['installation.over_plan'],
  });
  expect(hook.status).toBe(201);
  const overPlan = async () =>
    (
      await stack.mongo.db
        .collection<{ body: string }>('webhook_deliveries')
        .find({ accountId: id, event: 'installation.over_plan' })
        .sort({ createdAt: 1 })
        .toArray()
    ).map((d) => JSON.parse(d.body) as { data: { count: number; package: string } });

  // One seat: the first is enabled, the next three go over the plan in one window.
  const statuses = [];
  for (const d of ['p-0', 'p-1', 'p-2', 'p-3']) {
    const r = await register(apiKey, d);
    statuses.push(r.json<{ status: string }>().status);
  }
  expect(statuses).toEqual(['enabled', 'disabled', 'disabled', 'disabled']);
  const first = await overPlan();
  expect(first.map((e) => e.data)).toMatchObject([{ package: SAMPLE, count: 1 }]);

  // The next window: one more over the plan; its event counts it and the two held back.
  clock += WINDOW_S * 1000;
  expect((await register(apiKey, 'p-4')).json<{ status: string }>().status).toBe('disabled');
  const both = await overPlan();
  expect(both.map((e) => e.data.count)).toEqual([1, 3]);
});
