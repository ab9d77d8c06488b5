/**
 * Device keys and CI tokens (issue 20, key kinds; docs/keys.md) against the real stack (API,
 * workers, Redis, the database, the legacy push listener): created through the JSON API, a
 * PushLink-shaped device (registration, `/download`, the exception form, the legacy push subscribe)
 * gets exactly the account key's answers with a device key; the legacy upload form works with a CI
 * token; each kind is refused elsewhere with its stable code; revocation, last use, the account
 * key's restriction, and secrets never stored in clear.
 */
import { createHash } from 'node:crypto';
import { PushlinkReplay } from '../../../device-client/node/pushlink-replay';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { request, type Reply } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture } from '../../helpers/uploads';
import { encodeForm, postForm, stackTrace } from '../exceptions/fixtures';

jest.setTimeout(240_000);
const SAMPLE = 'dev.apkrelay.sample';
const OTHER = 'com.example.other';
let stack: TestStack;
const sockets: PushlinkReplay[] = [];

beforeAll(async () => {
  stack = await startStack({ legacyPush: {} });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await stack.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function api(path: string, key: string, init: { method?: string; json?: unknown } = {}) {
  return request(`${stack.urls.admin}${path}`, { ...init, headers: bearer(key), ca: stack.ca });
}

async function createKey(ownerKey: string, kind: string, name: string, apps: string[]) {
  const reply = await api('/api/v2/account/keys', ownerKey, {
    method: 'POST',
    json: { kind, name, apps },
  });
  expect(reply.status).toBe(201);
  return reply.json<{ id: string; secret: string; kind: string; name: string }>();
}

function legacyUpload(key: string, name: string): Promise<Reply> {
  return fixture(name).then((data) =>
    postMultipart(
      `${stack.urls.admin}/apps/api_upload`,
      [
        { name: 'apiKey', value: key },
        { name: 'current', value: 'true' },
        { name: 'apk', filename: name, data },
      ],
      { ca: stack.ca },
    ),
  );
}

const codeOf = (r: Reply) => ({
  status: r.status,
  code: r.json<{ error: { code: string } }>().error.code,
});

test('a CI token uploads with the legacy form and makes current, only for its app; nothing else', async () => {
  const owner = await newAccount(stack);
  const ci = await createKey(owner.apiKey, 'ci-token', 'pipeline', [SAMPLE]);
  expect(ci.secret).toMatch(/^ct_[A-Za-z0-9_-]{32}$/);
  expect((await legacyUpload(ci.secret, 'version-1.apk')).text).toBe('deploy successful');
  const current = await api(`/api/v2/apps/${SAMPLE}/current`, ci.secret, {
    method: 'PUT',
    json: { versionCode: 1 },
  });
  expect(current.status).toBe(200);

  // Another app of the same account: refused, by the form (APK of another package) and the JSON.
  const other = await createKey(owner.apiKey, 'ci-token', 'other app', [OTHER]);
  expect((await legacyUpload(other.secret, 'version-2.apk')).text).toMatch(/^deploy fails/);
  const elsewhere = await api(`/api/v2/apps/${SAMPLE}/current`, other.secret, {
    method: 'PUT',
    json: { versionCode: 1 },
  });
  expect(codeOf(elsewhere)).toEqual({ status: 403, code: 'KEY_APP_REFUSED' });
  for (const path of ['/api/v2/apps', '/api/v2/account', `/api/v2/apps/${SAMPLE}/installations`]) {
    expect(codeOf(await api(path, ci.secret))).toEqual({ status: 403, code: 'KEY_SCOPE_REFUSED' });
  }
  const register = await request(`${stack.urls.web}/api/v2/installations`, {
    method: 'POST',
    headers: bearer(ci.secret),
    json: { package: SAMPLE, deviceId: 'ci-as-device' },
    ca: stack.ca,
  });
  expect(codeOf(register)).toEqual({ status: 403, code: 'KEY_SCOPE_REFUSED' });
});

/** What a PushLink-shaped device gets with `key`: registration, download, exception, push. */
async function pushlinkDevice(key: string, deviceId: string, md5: string) {
  const registered = await request(`${stack.urls.web}/api/v2/installations`, {
    method: 'POST',
    headers: bearer(key),
    json: { package: SAMPLE, deviceId, installedMd5: md5 },
    ca: stack.ca,
  });
  const q = new URLSearchParams({ package: SAMPLE, api_key: key, deviceId });
  const download = await request(`${stack.urls.web}/download?${q.toString()}`, { ca: stack.ca });
  const st = stackTrace('device key');
  const form = encodeForm({ package: SAMPLE, api_key: key, hash: md5, deviceId, st });
  const exception = await postForm(stack.urls.web, stack.ca, form);
  const socket = await PushlinkReplay.connect({
    host: '127.0.0.1',
    port: stack.legacyPushPort!,
    ca: stack.ca,
  });
  sockets.push(socket);
  socket.subscribe({ apiKey: key, package: SAMPLE, deviceId: `${deviceId}-pl`, hash: '' });
  const lines = await socket.waitForLines(1, 20_000);
  return {
    registered: [registered.status, registered.json<{ status: string }>().status],
    download: [download.status, createHash('sha256').update(download.body).digest('hex')],
    exception: [exception.status, exception.text],
    push: lines,
  };
}

test('a PushLink-shaped device works with a device key exactly as with the account key', async () => {
  const owner = await newAccount(stack);
  expect((await legacyUpload(owner.apiKey, 'version-1.apk')).text).toBe('deploy successful');
  const apk = await stack.mongo.db.collection('apks').findOne({ accountId: owner.id });
  const md5 = apk!.md5 as string;
  const dk = await createKey(owner.apiKey, 'device-key', 'fleet 2026', [SAMPLE]);
  expect(dk.secret).toMatch(/^dk_[A-Za-z0-9_-]{32}$/);

  const withAccountKey = await pushlinkDevice(owner.apiKey, 'phone-1', md5);
  const withDeviceKey = await pushlinkDevice(dk.secret, 'phone-2', md5);
  expect(withAccountKey.exception).toEqual([200, 'Exception sent.']);
  expect(withAccountKey.download[0]).toBe(200);
  expect(withDeviceKey).toEqual(withAccountKey);

  // Everything else is refused with the stable code.
  const refused = [
    api('/api/v2/apps', dk.secret),
    api(`/api/v2/apps/${SAMPLE}/installations`, dk.secret),
    api(`/api/v2/apps/${SAMPLE}/exceptions`, dk.secret),
    api(`/api/v2/apps/${SAMPLE}/download-links`, dk.secret, { method: 'POST', json: {} }),
    api(`/api/v2/apps/${SAMPLE}/current`, dk.secret, { method: 'PUT', json: { versionCode: 1 } }),
    api('/api/v2/account/keys', dk.secret),
  ];
  for (const reply of await Promise.all(refused)) {
    expect(codeOf(reply)).toEqual({ status: 403, code: 'KEY_SCOPE_REFUSED' });
  }
  const upload = await legacyUpload(dk.secret, 'version-2.apk');
  expect([upload.status, upload.text]).toEqual([403, expect.stringMatching(/^deploy fails, /)]);
  // A device key of another app: the device routes refuse it for this one.
  const otherDk = await createKey(owner.apiKey, 'device-key', 'other fleet', [OTHER]);
  const q = new URLSearchParams({ package: SAMPLE, api_key: otherDk.secret });
  const download = await request(`${stack.urls.web}/download?${q.toString()}`, { ca: stack.ca });
  expect(download.status).toBe(403);
});

test('listing never shows a secret; last use is recorded; a revoked key stops; the database holds no secret', async () => {
  const owner = await newAccount(stack);
  const dk = await createKey(owner.apiKey, 'device-key', 'kiosk', [SAMPLE]);
  expect((await legacyUpload(owner.apiKey, 'version-1.apk')).text).toBe('deploy successful');
  const register = () =>
    request(`${stack.urls.admin}/api/v2/installations`, {
      method: 'POST',
      headers: bearer(dk.secret),
      json: { package: SAMPLE, deviceId: 'kiosk-1' },
      ca: stack.ca,
    });
  expect((await register()).status).toBe(200);
  const listed = await eventually('the key shows a last use', async () => {
    const keys = (await api('/api/v2/account/keys', owner.apiKey)).json<{
      keys: Array<Record<string, unknown>>;
    }>().keys;
    return keys[0]?.lastUsedAt ? keys : null;
  });
  expect(listed).toEqual([
    expect.objectContaining({ id: dk.id, kind: 'device-key', name: 'kiosk', apps: [SAMPLE] }),
  ]);
  expect(JSON.stringify(listed)).not.toContain(dk.secret);
  const stored = JSON.stringify(
    await stack.mongo.db.collection('access_keys').find({ accountId: owner.id }).toArray(),
  );
  expect(stored).not.toContain(dk.secret.slice(3));

  const revoked = await api(`/api/v2/account/keys/${dk.id}`, owner.apiKey, { method: 'DELETE' });
  expect(revoked.status).toBe(200);
  expect(revoked.json<{ revokedAt: string | null }>().revokedAt).not.toBeNull();
  // Device routes cache a key for 5 s: the revocation holds once that has passed.
  await eventually('the revoked key is refused', async () =>
    (await register()).status === 401 ? true : null,
  );
  const elsewhere = await newAccount(stack);
  const foreign = await api(`/api/v2/account/keys/${dk.id}`, elsewhere.apiKey, {
    method: 'DELETE',
  });
  expect(foreign.status).toBe(404);
});

test("the owner's switch restricts the account key to the device routes", async () => {
  const owner = await newAccount(stack);
  expect((await legacyUpload(owner.apiKey, 'version-1.apk')).text).toBe('deploy successful');
  const put = await api('/api/v2/account/api-key-restriction', owner.apiKey, {
    method: 'PUT',
    json: { deviceOnly: true },
  });
  expect(put.json()).toEqual({ deviceOnly: true });
  await eventually('the account key is refused by the owner routes', async () =>
    (await api('/api/v2/apps', owner.apiKey)).status === 403 ? true : null,
  );
  expect(codeOf(await api('/api/v2/account', owner.apiKey))).toEqual({
    status: 403,
    code: 'KEY_SCOPE_REFUSED',
  });
  const register = await request(`${stack.urls.web}/api/v2/installations`, {
    method: 'POST',
    headers: bearer(owner.apiKey),
    json: { package: SAMPLE, deviceId: 'still-works' },
    ca: stack.ca,
  });
  expect(register.status).toBe(200);
  expect((await legacyUpload(owner.apiKey, 'version-2.apk')).status).toBe(403);
});

/** Uploads `name` with `key` and `async=true`: the job id the API answers at once. */
async function asyncUpload(key: string, name: string): Promise<string> {
  const data = await fixture(name);
  const reply = await postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: key },
      { name: 'async', value: 'true' },
      { name: 'apk', filename: name, data },
    ],
    { ca: stack.ca },
  );
  expect(reply.status).toBe(202);
  return reply.json<{ jobId: string }>().jobId;
}

test("issue 31.8: a CI token reads only its apps' upload results; upload ids are random", async () => {
  const owner = await newAccount(stack);
  const ci = await createKey(owner.apiKey, 'ci-token', 'pipeline', [SAMPLE]);
  const other = await createKey(owner.apiKey, 'ci-token', 'other app', [OTHER]);
  const byToken = await asyncUpload(ci.secret, 'version-1.apk');
  const byAccountKey = await asyncUpload(owner.apiKey, 'version-2.apk');
  // 128 random bits, base64url: not an ObjectId one could count up from.
  for (const id of [byToken, byAccountKey]) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(byToken).not.toBe(byAccountKey);
  const status = (id: string, key: string) => api(`/api/v2/uploads/${id}`, key);
  await eventually('both uploads decided', async () => {
    for (const id of [byToken, byAccountKey]) {
      const body = (await status(id, owner.apiKey)).json<{ status: string }>();
      if (body.status !== 'done') return false;
    }
    return true;
  });
  // The token's app: its own upload, and the account key's upload of its app once accepted.
  expect((await status(byToken, ci.secret)).status).toBe(200);
  expect((await status(byAccountKey, ci.secret)).status).toBe(200);
  // Another app's token: both look missing, as another account's would.
  for (const id of [byToken, byAccountKey]) {
    expect(codeOf(await status(id, other.secret))).toEqual({ status: 404, code: 'NOT_FOUND' });
  }

  // An upload still in flight from before the change, with an ObjectId-shaped id, still resolves.
  const legacyId = '65a1b2c3d4e5f60718293a4b';
  const now = new Date();
  await stack.mongo.db.collection('uploads').insertOne({
    _id: legacyId as never,
    accountId: owner.id,
    status: 'queued',
    verdict: null,
    createdAt: now,
    updatedAt: now,
  });
  const old = await status(legacyId, owner.apiKey);
  expect(old.status).toBe(200);
  expect(old.json<{ jobId: string; status: string }>()).toMatchObject({
    jobId: legacyId,
    status: 'queued',
  });
  expect((await status(legacyId, other.secret)).status).toBe(404);
});
