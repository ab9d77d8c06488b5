/**
 * `lastInstall.download` on the heartbeat over real HTTPS: validated (400 when malformed, nothing
 * stored), stored with the outcome, and counted in the APK's funnel (GET /api/v2/apps/:package/
 * funnel: bytes per update by `via`, fallbacks by reason), once per installation and APK however
 * often it is resent.
 */
import { createHash } from 'node:crypto';
import { newAccount } from '../../helpers/accounts';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';

let stack: TestStack;
let apiKey: string;
let v1md5: string;
const PKG = 'dev.apkrelay.sample';

beforeAll(async () => {
  stack = await startStack({ workers: true });
  ({ apiKey } = await newAccount(stack));
  await uploadFixture(stack, apiKey, 'version-1.apk');
  v1md5 = createHash('md5')
    .update(await fixture('version-1.apk'))
    .digest('hex');
});
afterAll(() => stack.close());

const call = (path: string, init: { method?: string; json?: unknown; host?: string } = {}) =>
  request(`${init.host ?? stack.urls.admin}${path}`, {
    method: init.method ?? 'GET',
    ...(init.json !== undefined ? { json: init.json } : {}),
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });

async function device(deviceId: string) {
  const reg = await call('/api/v2/installations', {
    method: 'POST',
    host: stack.urls.push,
    json: { package: PKG, deviceId },
  });
  expect(reg.status).toBe(200);
}

const beat = (deviceId: string, download: unknown) =>
  call('/api/v2/heartbeat', {
    method: 'POST',
    host: stack.urls.web,
    json: {
      package: PKG,
      deviceId,
      lastInstall: { md5: v1md5, versionCode: 1, status: 'success', download },
    },
  });

const transfers = async () =>
  (await call(`/api/v2/apps/${PKG}/funnel?versionCode=1`)).json<{ transfers: unknown }>().transfers;

test('reports are counted per via and fallback reason, once per installation', async () => {
  for (const id of ['d-1', 'd-2', 'd-3', 'd-4']) await device(id);
  expect((await beat('d-1', { via: 'delta', bytes: 1000, fallback: null })).status).toBe(200);
  expect((await beat('d-2', { via: 'delta', bytes: 1500, fallback: null })).status).toBe(200);
  const noPatch = { reason: 'no-patch', message: 'HTTP 404' };
  expect((await beat('d-3', { via: 'full', bytes: 9000, fallback: noPatch })).status).toBe(200);
  const broken = { reason: 'patch-failed', message: 'the patch ends inside a record' };
  expect((await beat('d-4', { via: 'full', bytes: 9500, fallback: broken })).status).toBe(200);
  // resent (the device did not hear the reply): counted once
  expect((await beat('d-1', { via: 'delta', bytes: 1000, fallback: null })).status).toBe(200);
  expect(await transfers()).toEqual({
    delta: { updates: 2, bytes: 2500 },
    full: { updates: 2, bytes: 18500 },
    fallbacks: { 'no-patch': 1, 'patch-failed': 1 },
  });
});

test('a malformed download is a 400 and nothing is counted or stored', async () => {
  await device('d-5');
  const reply = await beat('d-5', { via: 'full', bytes: -5 });
  expect(reply.status).toBe(400);
  expect(reply.json<{ error: { code: string } }>().error.code).toBe('VALIDATION_FAILED');
  expect((await transfers()) as { full: { updates: number } }).toMatchObject({
    full: { updates: 2 },
  });
  const listed = (await call(`/api/v2/apps/${PKG}/installations?q=d-5`)).json<{
    installations: Array<{ lastInstall: unknown }>;
  }>();
  expect(listed.installations[0]?.lastInstall).toBeNull();
});

test('the stored outcome shows the download', async () => {
  const listed = (await call(`/api/v2/apps/${PKG}/installations?q=d-3`)).json<{
    installations: Array<{ lastInstall: { download: unknown } }>;
  }>();
  expect(listed.installations[0]?.lastInstall.download).toEqual({
    via: 'full',
    bytes: 9000,
    fallback: { reason: 'no-patch', message: 'HTTP 404' },
  });
});
