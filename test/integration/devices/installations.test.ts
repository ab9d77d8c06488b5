/** Heartbeat, online/offline, and the owner's view and control of installations within the plan. */
import { newAccount } from '../../helpers/accounts';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

let stack: TestStack;
let clock = Date.parse('2026-11-21T10:00:00Z');
beforeAll(async () => {
  stack = await startStack({ now: () => new Date(clock) });
});
afterAll(() => stack.close());

const PKG = 'dev.apkrelay.sample';
const call = (
  apiKey: string,
  path: string,
  init: { method?: string; json?: unknown; host?: string } = {},
) =>
  request(`${init.host ?? stack.urls.admin}${path}`, {
    method: init.method ?? 'GET',
    ...(init.json !== undefined ? { json: init.json } : {}),
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });

interface Listing {
  total: number;
  installations: Array<{
    deviceId: string;
    status: string;
    online: boolean;
    metadata: unknown;
    location: unknown;
    device: unknown;
  }>;
}

test('heartbeat keeps an installation online; three missed beats make it offline', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const reg = await call(apiKey, '/api/v2/installations', {
    method: 'POST',
    host: stack.urls.push,
    json: {
      package: PKG,
      deviceId: 'hb-1',
      device: { brand: 'Acme', model: 'Kiosk 7', osVersion: '14', sdkInt: 34 },
      metadata: { store: 'Lisbon-3' },
      location: { lat: 38.72, lon: -9.14 },
    },
  });
  expect(reg.json()).toMatchObject({ status: 'enabled', heartbeatSeconds: 30 });
  const list = async (status: string) =>
    (await call(apiKey, `/api/v2/apps/${PKG}/installations?status=${status}`)).json<Listing>();
  expect((await list('online')).installations.map((i) => i.deviceId)).toEqual(['hb-1']);
  const shown = (await list('')).installations[0]!;
  expect(shown).toMatchObject({
    device: { brand: 'Acme', model: 'Kiosk 7', osVersion: '14', sdkInt: 34 },
    metadata: [{ key: 'store', value: 'Lisbon-3' }],
    location: { lat: 38.72, lon: -9.14 },
  });

  clock += 91_000;
  expect((await list('online')).total).toBe(0);
  expect((await list('offline')).installations.map((i) => i.deviceId)).toEqual(['hb-1']);

  const beat = await call(apiKey, '/api/v2/heartbeat', {
    method: 'POST',
    host: stack.urls.push,
    json: { package: PKG, deviceId: 'hb-1', metadata: [{ key: 'store', value: 'Porto-1' }] },
  });
  expect(beat.json()).toEqual({ status: 'enabled', heartbeatSeconds: 30 });
  expect((await list('online')).installations[0]).toMatchObject({
    deviceId: 'hb-1',
    metadata: [{ key: 'store', value: 'Porto-1' }],
  });

  const unknown = await call(apiKey, '/api/v2/heartbeat', {
    method: 'POST',
    host: stack.urls.push,
    json: { package: PKG, deviceId: 'never' },
  });
  expect(unknown.status).toBe(404);
});

test('the owner disables one installation to free a seat and enables another; a full plan refuses', async () => {
  const { apiKey, id } = await newAccount(stack, 2);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  for (const d of ['s1', 's2', 's3']) {
    await call(apiKey, '/api/v2/installations', {
      method: 'POST',
      host: stack.urls.push,
      json: { package: PKG, deviceId: d },
    });
  }
  const status = async (d: string) =>
    (await stack.mongo.db.collection('installations').findOne({ accountId: id, deviceId: d }))
      ?.status as string;
  expect([await status('s1'), await status('s2'), await status('s3')]).toEqual([
    'enabled',
    'enabled',
    'disabled',
  ]);

  const put = (d: string, s: string) =>
    call(apiKey, `/api/v2/apps/${PKG}/installations/${d}`, { method: 'PUT', json: { status: s } });
  const full = await put('s3', 'enabled');
  expect(full.status).toBe(409);
  expect(full.json<{ error: { code: string } }>().error.code).toBe('PLAN_FULL');

  expect((await put('s1', 'disabled')).json()).toEqual({ deviceId: 's1', status: 'disabled' });
  expect((await put('s3', 'enabled')).json()).toEqual({ deviceId: 's3', status: 'enabled' });
  expect([await status('s1'), await status('s2'), await status('s3')]).toEqual([
    'disabled',
    'enabled',
    'enabled',
  ]);
  expect(await stack.mongo.db.collection('seats').countDocuments({ accountId: id })).toBe(2);
  // Re-registering a disabled installation does not re-enable it.
  await call(apiKey, '/api/v2/installations', {
    method: 'POST',
    host: stack.urls.push,
    json: { package: PKG, deviceId: 's1' },
  });
  expect(await status('s1')).toBe('disabled');

  const other = await newAccount(stack);
  expect((await call(other.apiKey, `/api/v2/apps/${PKG}/installations`)).status).toBe(404);
  expect(
    (
      await call(other.apiKey, `/api/v2/apps/${PKG}/installations/s2`, {
        method: 'PUT',
        json: { status: 'disabled' },
      })
    ).status,
  ).toBe(404);
});

test('the list filters by device id prefix and paginates', async () => {
  const { apiKey } = await newAccount(stack, 100);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const ids = Array.from({ length: 25 }, (_, i) => `kiosk-${String(i).padStart(2, '0')}`);
  await Promise.all(
    [...ids, 'pos-1', 'pos-2'].map((d) =>
      call(apiKey, '/api/v2/installations', {
        method: 'POST',
        host: stack.urls.push,
        json: { package: PKG, deviceId: d },
      }),
    ),
  );
  const page = async (query: string) =>
    (await call(apiKey, `/api/v2/apps/${PKG}/installations?${query}`)).json<Listing>();
  const first = await page('q=kiosk-&pageSize=10&page=1');
  const third = await page('q=kiosk-&pageSize=10&page=3');
  expect(first.total).toBe(25);
  expect(first.installations).toHaveLength(10);
  expect(third.installations).toHaveLength(5);
  expect((await page('q=pos-')).installations.map((i) => i.deviceId).sort()).toEqual([
    'pos-1',
    'pos-2',
  ]);
  expect((await page('q=.*')).total).toBe(0);
  expect((await call(apiKey, `/api/v2/apps/${PKG}/installations?status=sideways`)).status).toBe(
    400,
  );
});

test("a heartbeat's lastInstall is validated, stored once, and shown in the installations list", async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const device = { package: PKG, deviceId: 'outcome-1' };
  const beat = (json: Record<string, unknown>) =>
    call(apiKey, '/api/v2/heartbeat', { method: 'POST', host: stack.urls.web, json });
  await call(apiKey, '/api/v2/installations', {
    method: 'POST',
    host: stack.urls.push,
    json: device,
  });
  const shown = async () =>
    (await call(apiKey, `/api/v2/apps/${PKG}/installations`)).json<{
      installations: Array<{ lastInstall: unknown }>;
    }>().installations[0]!.lastInstall;
  expect(await shown()).toBeNull();

  const failure = {
    md5: 'ABCDEF0123456789ABCDEF0123456789',
    versionCode: 2,
    status: 'failure',
    osStatus: 4,
    message: 'INSTALL_FAILED_UPDATE_INCOMPATIBLE: signatures do not match',
    at: '2026-11-21T09:59:58.000Z',
  };
  const reply = await beat({ ...device, lastInstall: failure });
  expect(reply.status).toBe(200);
  // The reply is unchanged by the new field.
  expect(reply.json()).toEqual({ status: 'enabled', heartbeatSeconds: 30 });
  const stored = {
    md5: 'abcdef0123456789abcdef0123456789',
    versionCode: 2,
    status: 'failure',
    osStatus: 4,
    message: 'INSTALL_FAILED_UPDATE_INCOMPATIBLE: signatures do not match',
    at: '2026-11-21T09:59:58.000Z',
    download: null,
    reportedAt: new Date(clock).toISOString(),
  };
  expect(await shown()).toEqual(stored);

  // A later heartbeat without it leaves the last outcome as it was.
  expect((await beat(device)).status).toBe(200);
  expect(await shown()).toEqual(stored);

  // Malformed outcomes are refused with 400 and change nothing.
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ ...failure, status: 'ok' }, 'lastInstall.status must be success or failure'],
    [{ ...failure, md5: 'nope' }, 'lastInstall.md5 must be an MD5 in hex'],
    [{ ...failure, versionCode: -1 }, 'lastInstall.versionCode must be a non-negative integer'],
    [{ ...failure, osStatus: 'x' }, 'lastInstall.osStatus must be an integer'],
    [{ ...failure, message: 'm'.repeat(1001) }, 'at most 1000 characters'],
    [{ ...failure, at: 'yesterday' }, 'lastInstall.at must be an ISO 8601 date'],
  ];
  for (const [lastInstall, text] of bad) {
    const refused = await beat({ ...device, lastInstall });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(text);
  }
  expect((await beat({ ...device, lastInstall: 'failure' })).status).toBe(400);
  expect(await shown()).toEqual(stored);

  // A success replaces it; osStatus, message and at may be left out.
  const success = { md5: '0123456789abcdef0123456789abcdef', versionCode: 3, status: 'success' };
  expect((await beat({ ...device, lastInstall: success })).status).toBe(200);
  expect(await shown()).toEqual({
    ...success,
    osStatus: null,
    message: null,
    at: null,
    download: null,
    reportedAt: new Date(clock).toISOString(),
  });
});
