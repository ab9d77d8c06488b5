/**
 * `POST /api/v2/exceptions` (JSON, Bearer API key) and the owner's views: grouped issues, one
 * report, its screenshot. An account never sees another account's exceptions.
 */
import { installationId } from '../../../shared/devices/installations';
import { randomBytes } from 'node:crypto';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request, type Reply } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { drained, seedApp, stackTrace } from './fixtures';

const T0 = Date.parse('2026-05-10T12:00:00.000Z');
let clockMs = T0;
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ now: () => new Date(clockMs) });
});
afterAll(() => stack.close());

function report(apiKey: string | null, body: Record<string, unknown>): Promise<Reply> {
  return request(`${stack.urls.admin}/api/v2/exceptions`, {
    method: 'POST',
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    json: body,
    ca: stack.ca,
  });
}

function get(apiKey: string, path: string): Promise<Reply> {
  return request(`${stack.urls.admin}${path}`, {
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
}

async function setup() {
  const account = await newAccount(stack, 1); // 1 installation → 2 per 24 h
  const app = await seedApp(stack, account.id, { label: 'Json App' });
  await registerDevices({ baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, ...app }, [
    'json-device',
  ]);
  const body = (i: number, extra: Record<string, unknown> = {}) => ({
    package: app.package,
    hash: app.md5,
    deviceId: 'json-device',
    stack: stackTrace(`json ${i}`),
    log: ['a', 'b'],
    metadata: { 'user.email': 'x@example.com' },
    extra: [{ key: 'screen', value: 'checkout' }],
    handled: true,
    ...extra,
  });
  return { account, app, body };
}

test('REGISTERED 202 with the budget; then LOST 429 with when a slot frees; each reason has its status', async () => {
  clockMs = T0;
  const { account, app, body } = await setup();
  const first = await report(account.apiKey, body(1));
  expect(first.status).toBe(202);
  expect(first.json()).toMatchObject({
    status: 'REGISTERED',
    reason: null,
    message: 'Exception sent.',
    resent: false,
    budget: { limit: 2, remaining: 1, freesAt: null },
  });
  expect((await report(account.apiKey, body(2))).status).toBe(202);
  clockMs = T0 + 60_000;
  const limited = await report(account.apiKey, body(3));
  expect(limited.status).toBe(429);
  expect(limited.headers['retry-after']).toBe(String(24 * 3600 - 60 + 1));
  expect(limited.json()).toEqual({
    status: 'LOST',
    reason: 'EXCEPTION_LIMIT_REACHED',
    message:
      'Exception sent but rejected: The application Json App has exceeded the 24H sending limit.',
    budget: { limit: 2, remaining: 0, freesAt: new Date(T0 + 24 * 3600_000 + 1).toISOString() },
  });
  // A resend of an admitted report is still REGISTERED, even with the window full.
  const resent = await report(account.apiKey, body(1));
  expect(resent.status).toBe(202);
  expect(resent.json()).toMatchObject({ status: 'REGISTERED', resent: true });

  const cases: Array<[Reply, number, string]> = [
    [await report(null, body(4)), 401, 'EXCEPTION_API_KEY_INVALID'],
    [
      await report(account.apiKey, body(4, { package: 'dev.none' })),
      404,
      'EXCEPTION_PACKAGE_UNKNOWN',
    ],
    [
      await report(account.apiKey, body(4, { hash: '0'.repeat(32) })),
      422,
      'EXCEPTION_APK_HASH_UNKNOWN',
    ],
  ];
  for (const [reply, status, reason] of cases) {
    expect({ status: reply.status, reason: reply.json().reason }).toEqual({ status, reason });
    expect(reply.json().status).toBe('LOST');
  }
  await stack.mongo.db.collection('installations').insertOne({
    _id: installationId(account.id, app.package, 'off'),
    accountId: account.id,
    package: app.package,
    deviceId: 'off',
    status: 'disabled',
  });
  const disabled = await report(account.apiKey, body(5, { deviceId: 'off' }));
  expect(disabled.status).toBe(403);
  expect(disabled.json().reason).toBe('EXCEPTION_INSTALLATION_DISABLED');

  const invalid = await report(account.apiKey, body(6, { stack: 'not a list' }));
  expect(invalid.status).toBe(400);
  expect(invalid.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  await drained(stack);
  expect(
    await stack.mongo.db.collection('exceptions').countDocuments({ accountId: account.id }),
  ).toBe(2);
});

test('a large JSON report (600 KB screenshot) is accepted; the owner lists groups, reads the report and its screenshot; others get 404', async () => {
  clockMs = T0;
  const { account, app, body } = await setup();
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(600 * 1024)]);
  const sent = await report(account.apiKey, body(1, { screen: jpeg.toString('base64') }));
  expect(sent.status).toBe(202);
  const { reportId } = sent.json<{ reportId: string }>();
  await drained(stack);

  const groups = await get(account.apiKey, `/api/v2/apps/${app.package}/exceptions`);
  expect(groups.status).toBe(200);
  expect(groups.json()).toMatchObject({
    package: app.package,
    groups: [
      {
        exceptionClass: 'java.lang.IllegalStateException',
        count: 1,
        handled: 1,
        unhandled: 0,
        versions: ['1.7 (7)'],
        devicesAffected: 1,
        latestReportId: reportId,
        firstSeen: new Date(T0).toISOString(),
      },
    ],
  });
  const one = await get(account.apiKey, `/api/v2/apps/${app.package}/exceptions/${reportId}`);
  expect(one.status).toBe(200);
  expect(one.json()).toMatchObject({
    id: reportId,
    label: 'handled',
    version: '1.7 (7)',
    metadata: [{ key: 'user.email', value: 'x@example.com' }],
    extra: [{ key: 'screen', value: 'checkout' }],
    log: ['a', 'b'],
  });
  const image = await get(
    account.apiKey,
    `/api/v2/apps/${app.package}/exceptions/${reportId}/screenshot`,
  );
  expect(image.status).toBe(200);
  expect(image.body.equals(jpeg)).toBe(true);

  // Another account, even one with an app of the same package, sees none of it.
  const other = await newAccount(stack);
  await seedApp(stack, other.id, { package: app.package });
  for (const path of [
    `/api/v2/apps/${app.package}/exceptions/${reportId}`,
    `/api/v2/apps/${app.package}/exceptions/${reportId}/screenshot`,
  ]) {
    expect((await get(other.apiKey, path)).status).toBe(404);
  }
  expect((await get(other.apiKey, `/api/v2/apps/${app.package}/exceptions`)).json()).toEqual({
    package: app.package,
    groups: [],
  });
  const stranger = await newAccount(stack);
  expect((await get(stranger.apiKey, `/api/v2/apps/${app.package}/exceptions`)).status).toBe(404);
});

test('an installation disabled by its owner is refused at once, and accepted again once enabled', async () => {
  clockMs = T0;
  const account = await newAccount(stack, 3);
  const app = await seedApp(stack, account.id, { label: 'Toggled App' });
  const auth = { authorization: `Bearer ${account.apiKey}` };
  const registered = await request(`${stack.urls.push}/api/v2/installations`, {
    method: 'POST',
    headers: auth,
    json: { package: app.package, deviceId: 'toggled', installedMd5: app.md5 },
    ca: stack.ca,
  });
  expect(registered.status).toBe(200);
  const body = (i: number) => ({
    package: app.package,
    hash: app.md5,
    deviceId: 'toggled',
    stack: stackTrace(`toggled ${i}`),
  });
  const setStatus = (status: string) =>
    request(`${stack.urls.admin}/api/v2/apps/${app.package}/installations/toggled`, {
      method: 'PUT',
      headers: auth,
      json: { status },
      ca: stack.ca,
    });

  expect((await report(account.apiKey, body(1))).status).toBe(202);
  expect((await setStatus('disabled')).status).toBe(200);
  const refused = await report(account.apiKey, body(2));
  expect(refused.status).toBe(403);
  expect(refused.json()).toMatchObject({ reason: 'EXCEPTION_INSTALLATION_DISABLED' });
  expect((await setStatus('enabled')).status).toBe(200);
  const accepted = await report(account.apiKey, body(3));
  expect(accepted.status).toBe(202);
  expect(accepted.json()).toMatchObject({ status: 'REGISTERED' });
});
