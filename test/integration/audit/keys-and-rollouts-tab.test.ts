/**
 * Issue 20, must-hold 3 for what the keys branch and the Rollouts tab added, on the real stack:
 * each creation or revocation of a device key or CI token and each use of the account key's
 * switch (JSON API and web) writes one entry with its actor and address; a CI token's uploads
 * (JSON and legacy form) and make-current name the token (kind, id, name) as their actor; the
 * Rollouts tab's start and actions write the same entries as the JSON routes, by the session's
 * user, and emit the same webhook events.
 */
import { newAccount } from '../../helpers/accounts';
import { eventuallyValue } from '../../helpers/eventually';
import { webForm, type AuditEntry } from '../../helpers/audit-log';
import { postMultipart } from '../../helpers/multipart';
import { ownerApi } from '../../helpers/owner-api';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture } from '../../helpers/uploads';
import { signIn } from '../../resilience/access/world';

jest.setTimeout(180_000);
const SAMPLE = 'dev.apkrelay.sample';
const KEY_ADDRESS = '203.0.113.8';
const WEB_ADDRESS = '198.51.100.10';
let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ trustProxy: ['loopback'] });
});
afterAll(() => stack?.close());

type Entry = AuditEntry;
const keyApi = (key: string) => ownerApi(stack, key, { 'x-forwarded-for': KEY_ADDRESS });
const webPost = (session: { cookie: string; csrf: string }) => webForm(stack, session, WEB_ADDRESS);

/** The account's entries, oldest first, as [action, resource kind, resource id, actor, address]. */
async function log(apiKey: string) {
  const r = await keyApi(apiKey)('GET', '/api/v2/audit?limit=200');
  expect(r.status).toBe(200);
  // The sign-up's own entry (account.created) is the audit-log test's.
  return [...r.json<{ entries: Entry[] }>().entries]
    .reverse()
    .filter((e) => e.action !== 'account.created');
}
const row = (e: Entry) => [e.action, e.resource.kind, e.resource.id, e.actor, e.address];

test('key and token changes, JSON and web, each leave one entry with actor and address', async () => {
  const a = await newAccount(stack);
  const api = keyApi(a.apiKey);
  const create = async (kind: string, name: string) => {
    const r = await api('POST', '/api/v2/account/keys', { kind, name, apps: [SAMPLE] });
    expect(r.status).toBe(201);
    return r.json<{ id: string; secret: string }>();
  };
  const dk = await create('device-key', 'fleet');
  const ct = await create('ci-token', 'pipeline');
  expect((await api('DELETE', `/api/v2/account/keys/${dk.id}`)).status).toBe(200);
  // Revoking again answers the revoked key and records nothing.
  expect((await api('DELETE', `/api/v2/account/keys/${dk.id}`)).status).toBe(200);
  const restriction = '/api/v2/account/api-key-restriction';
  expect((await api('PUT', restriction, { deviceOnly: false })).status).toBe(200);

  const session = await signIn(stack, a.email);
  const post = webPost(session);
  expect(await post('/ui/account/keys', { kind: 'ci-token', name: 'web ci', apps: SAMPLE })).toBe(
    201,
  );
  const keys = (await api('GET', '/api/v2/account/keys')).json<{
    keys: Array<{ id: string; name: string }>;
  }>().keys;
  const webCi = keys.find((k) => k.name === 'web ci')!;
  expect(await post(`/ui/account/keys/${webCi.id}/revoke`)).toBe(303);
  expect(await post('/ui/account/api-key-restriction', { deviceOnly: 'true' })).toBe(303);
  expect(await post('/ui/account/api-key-restriction', { deviceOnly: 'false' })).toBe(303);

  const key = { kind: 'account-key', id: a.id, name: 'account key' };
  const web = { kind: 'session', id: a.id, name: a.email };
  const entries = await log(a.apiKey);
  expect(entries.map(row)).toEqual([
    ['access-key.created', 'access-key', dk.id, key, KEY_ADDRESS],
    ['access-key.created', 'access-key', ct.id, key, KEY_ADDRESS],
    ['access-key.revoked', 'access-key', dk.id, key, KEY_ADDRESS],
    ['account-key.unrestricted', 'account-key', a.id, key, KEY_ADDRESS],
    ['access-key.created', 'access-key', webCi.id, web, WEB_ADDRESS],
    ['access-key.revoked', 'access-key', webCi.id, web, WEB_ADDRESS],
    ['account-key.restricted', 'account-key', a.id, web, WEB_ADDRESS],
    ['account-key.unrestricted', 'account-key', a.id, web, WEB_ADDRESS],
  ]);
  expect(entries[0]!.details).toEqual({ kind: 'device-key', name: 'fleet', apps: SAMPLE });
  // Never a secret, in any entry.
  for (const secret of [dk.secret, ct.secret, a.apiKey]) {
    expect(JSON.stringify(entries)).not.toContain(secret);
  }
});

test('a CI token is the actor of its uploads and make-current; the Rollouts tab is audited', async () => {
  const a = await newAccount(stack);
  const api = keyApi(a.apiKey);
  const made = await api('POST', '/api/v2/account/keys', {
    kind: 'ci-token',
    name: 'pipeline',
    apps: [SAMPLE],
  });
  const ct = made.json<{ id: string; secret: string }>();
  const events = ['rollout.started', 'rollout.advanced', 'rollout.halted'];
  const hook = await api('POST', '/api/v2/webhooks', {
    url: 'https://hooks.example.invalid/r',
    events,
  });
  expect(hook.status).toBe(201);
  const hookId = hook.json<{ id: string }>().id;

  const legacy = await postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: ct.secret },
      { name: 'current', value: 'true' },
      { name: 'apk', filename: 'version-1.apk', data: await fixture('version-1.apk') },
    ],
    { ca: stack.ca, headers: { 'x-forwarded-for': KEY_ADDRESS } },
  );
  expect(legacy.text).toBe('deploy successful');
  const json = await postMultipart(
    `${stack.urls.admin}/api/v2/apps/${SAMPLE}/apks`,
    [{ name: 'apk', filename: 'version-2.apk', data: await fixture('version-2.apk') }],
    {
      ca: stack.ca,
      headers: { authorization: `Bearer ${ct.secret}`, 'x-forwarded-for': KEY_ADDRESS },
    },
  );
  expect(json.status).toBe(202);
  const status = new URL(json.json<{ statusUrl: string }>().statusUrl).pathname;
  await eventuallyValue(
    'the verdict of version 2',
    async () => (await keyApi(ct.secret)('GET', status)).json<{ status: string }>().status,
    (s) => s === 'done',
  );
  const current = await keyApi(ct.secret)('PUT', `/api/v2/apps/${SAMPLE}/current`, {
    versionCode: 1,
  });
  expect(current.status).toBe(200);

  const apks = (await api('GET', `/api/v2/apps/${SAMPLE}`)).json<{
    apks: Array<{ sha256: string; versionCode: number }>;
  }>().apks;
  const sha256 = apks.find((x) => x.versionCode === 2)!.sha256;
  const post = webPost(await signIn(stack, a.email));
  const tab = `/ui/apps/${SAMPLE}/rollouts`;
  const start = { sha256, stages: '10, 50, 100', deviceIds: 'nobody' };
  expect(await post(tab, start)).toBe(303);
  // Halt and Complete are sent with their confirmation box ticked.
  for (const action of ['pause', 'resume', 'advance', 'halt']) {
    expect(await post(`${tab}/${action}`, { confirm: 'yes' })).toBe(303);
  }
  expect(await post(tab, { ...start, stages: '10, 100' })).toBe(303);
  expect(await post(`${tab}/complete`, { confirm: 'yes' })).toBe(303);

  const token = { kind: 'ci-token', id: ct.id, name: 'pipeline' };
  const key = { kind: 'account-key', id: a.id, name: 'account key' };
  const web = { kind: 'session', id: a.id, name: a.email };
  const entries = await log(a.apiKey);
  const uploadId = (e: Entry) => (e.resource.kind === 'upload' ? '*' : e.resource.id);
  expect(entries.map((e) => [e.action, uploadId(e), e.actor, e.address])).toEqual([
    ['access-key.created', ct.id, key, KEY_ADDRESS],
    ['webhook.created', hookId, key, KEY_ADDRESS],
    ['upload.received', '*', token, KEY_ADDRESS],
    ['upload.received', '*', token, KEY_ADDRESS],
    ['app.current.changed', SAMPLE, token, KEY_ADDRESS],
    ['rollout.started', SAMPLE, web, WEB_ADDRESS],
    ['rollout.paused', SAMPLE, web, WEB_ADDRESS],
    ['rollout.resumed', SAMPLE, web, WEB_ADDRESS],
    ['rollout.advanced', SAMPLE, web, WEB_ADDRESS],
    ['rollout.halted', SAMPLE, web, WEB_ADDRESS],
    ['rollout.started', SAMPLE, web, WEB_ADDRESS],
    ['rollout.completed', SAMPLE, web, WEB_ADDRESS],
  ]);
  // The legacy form names the token's one app as the package the APK must have.
  expect(entries[2]!.details).toEqual({ current: true, package: SAMPLE });

  // The tab's changes emit the webhook events the JSON routes emit.
  const emitted = await eventuallyValue(
    'the rollout deliveries',
    async () =>
      (await api('GET', `/api/v2/webhooks/${hookId}/deliveries`))
        .json<{ deliveries: Array<{ event: string }> }>()
        .deliveries.map((d) => d.event)
        .sort(),
    (list) => list.length >= 4,
  );
  expect(emitted).toEqual([
    'rollout.advanced',
    'rollout.halted',
    'rollout.started',
    'rollout.started',
  ]);
});
