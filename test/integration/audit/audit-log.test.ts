/**
 * Issue 20, must-hold 3 for the audit log, on the real stack: every listed change writes one
 * entry naming its actor (the account key or the web session's user) and the client address
 * (X-Forwarded-For from a trusted proxy, TRUST_PROXY=loopback); entries are listed, filtered and
 * paginated; PUT and DELETE on an entry are refused and change nothing; another account sees none.
 */
import { newAccount } from '../../helpers/accounts';
import { eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { ownerApi } from '../../helpers/owner-api';
import type { AuditEntry } from '../../helpers/audit-log';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture } from '../../helpers/uploads';
import { signIn } from '../../resilience/access/world';

jest.setTimeout(180_000);
const SAMPLE = 'dev.apkrelay.sample';
const KEY_ADDRESS = '203.0.113.7';
const WEB_ADDRESS = '198.51.100.9';
let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ trustProxy: ['loopback'] });
});
afterAll(() => stack?.close());

type Entry = AuditEntry;
const keyApi = (apiKey: string) => ownerApi(stack, apiKey, { 'x-forwarded-for': KEY_ADDRESS });

async function upload(apiKey: string, name: string, how: 'json' | 'form', current: boolean) {
  const apk = { name: 'apk', filename: name, data: await fixture(name) };
  const headers = { 'x-forwarded-for': KEY_ADDRESS };
  const reply =
    how === 'json'
      ? await postMultipart(
          `${stack.urls.admin}/api/v2/apps/${SAMPLE}/apks`,
          [{ name: 'current', value: String(current) }, apk],
          { ca: stack.ca, headers: { ...headers, authorization: `Bearer ${apiKey}` } },
        )
      : await postMultipart(
          `${stack.urls.admin}/apps/api_upload`,
          [{ name: 'apiKey', value: apiKey }, { name: 'current', value: String(current) }, apk],
          { ca: stack.ca, headers },
        );
  expect([200, 202]).toContain(reply.status);
  if (how === 'json') {
    const { statusUrl } = reply.json<{ statusUrl: string }>();
    const path = new URL(statusUrl).pathname;
    await eventuallyValue(
      `the verdict of ${name}`,
      async () => (await keyApi(apiKey)('GET', path)).json<{ status: string }>().status,
      (s) => s === 'done',
    );
  }
}

async function entries(
  apiKey: string,
  query = '',
): Promise<{ entries: Entry[]; next: string | null }> {
  const r = await keyApi(apiKey)('GET', `/api/v2/audit${query}`);
  expect(r.status).toBe(200);
  return r.json();
}

test('every listed change leaves one entry with its actor and address', async () => {
  const a = await newAccount(stack);
  const api = keyApi(a.apiKey);
  const hook = await api('POST', '/api/v2/webhooks', {
    url: 'https://hooks.example.invalid/a',
    events: ['apk.accepted'],
  });
  expect(hook.status).toBe(201);
  const hookId = hook.json<{ id: string }>().id;
  await upload(a.apiKey, 'version-1.apk', 'json', true);
  await upload(a.apiKey, 'version-2.apk', 'form', false);
  await upload(a.apiKey, 'version-3.apk', 'form', false);
  expect((await api('PUT', `/api/v2/apps/${SAMPLE}/current`, { versionCode: 2 })).status).toBe(200);
  const rollout = `/api/v2/apps/${SAMPLE}/rollout`;
  const targeting = { deviceIds: ['nobody'] };
  expect(
    (await api('POST', rollout, { versionCode: 3, stages: [10, 50, 100], targeting })).status,
  ).toBe(201);
  for (const action of ['pause', 'resume', 'advance', 'halt']) {
    expect((await api('POST', `${rollout}/${action}`)).status).toBe(200);
  }
  expect(
    (await api('POST', rollout, { versionCode: 3, stages: [10, 100], targeting })).status,
  ).toBe(201);
  expect((await api('POST', `${rollout}/complete`)).status).toBe(200);
  const reg = await request(`${stack.urls.web}/api/v2/installations`, {
    method: 'POST',
    json: { package: SAMPLE, deviceId: 'd1', installedMd5: null },
    headers: { authorization: `Bearer ${a.apiKey}` },
    ca: stack.ca,
  });
  expect(reg.status).toBe(200);
  const status = `/api/v2/apps/${SAMPLE}/installations/d1`;
  expect((await api('PUT', status, { status: 'disabled' })).status).toBe(200);
  expect((await api('PUT', status, { status: 'enabled' })).status).toBe(200);
  expect(
    (await api('PUT', `/api/v2/webhooks/${hookId}`, { events: ['apk.rejected'] })).status,
  ).toBe(200);
  const delivery = await eventuallyValue(
    'the delivery of the first upload',
    async () =>
      (await api('GET', `/api/v2/webhooks/${hookId}/deliveries`)).json<{
        deliveries: Array<{ id: string }>;
      }>().deliveries[0],
    (d) => d !== undefined,
  ).then((d) => d!);
  expect((await api('POST', `/api/v2/webhook-deliveries/${delivery.id}/redeliver`)).status).toBe(
    202,
  );
  expect((await api('DELETE', `/api/v2/webhooks/${hookId}`)).status).toBe(204);

  // The same owner through the web administration, from another address.
  const session = await signIn(stack, a.email);
  const sha256 = (await api('GET', `/api/v2/apps/${SAMPLE}`))
    .json<{
      apks: Array<{ sha256: string; versionCode: number }>;
    }>()
    .apks.find((x) => x.versionCode === 1)!.sha256;
  for (const [path, form] of [
    [`/ui/apps/${SAMPLE}/current`, { sha256, confirm: 'yes' }],
    [`/ui/apps/${SAMPLE}/installations/d1/status`, { status: 'disabled' }],
  ] as const) {
    expect((await webForm(session, path, form)).status).toBe(303);
  }

  const everything = (await entries(a.apiKey, '?limit=200')).entries;
  // The sign-up is the account's first entry (issue 31), by the new account itself.
  expect(everything[everything.length - 1]).toMatchObject({
    action: 'account.created',
    actor: { kind: 'sign-up', id: a.id, name: a.email },
    resource: { kind: 'account', id: a.id },
  });
  const all = everything.slice(0, -1);
  const key = { kind: 'account-key', id: a.id, name: 'account key' };
  const web = { kind: 'session', id: a.id, name: a.email };
  const expected: Array<[string, string, string, typeof key, string]> = [
    ['webhook.created', 'webhook', hookId, key, KEY_ADDRESS],
    ['upload.received', 'upload', '*', key, KEY_ADDRESS],
    ['upload.received', 'upload', '*', key, KEY_ADDRESS],
    ['upload.received', 'upload', '*', key, KEY_ADDRESS],
    ['app.current.changed', 'app', SAMPLE, key, KEY_ADDRESS],
    ['rollout.started', 'rollout', SAMPLE, key, KEY_ADDRESS],
    ['rollout.paused', 'rollout', SAMPLE, key, KEY_ADDRESS],
    ['rollout.resumed', 'rollout', SAMPLE, key, KEY_ADDRESS],
    ['rollout.advanced', 'rollout', SAMPLE, key, KEY_ADDRESS],
    ['rollout.halted', 'rollout', SAMPLE, key, KEY_ADDRESS],
    ['rollout.started', 'rollout', SAMPLE, key, KEY_ADDRESS],
    ['rollout.completed', 'rollout', SAMPLE, key, KEY_ADDRESS],
    ['installation.disabled', 'installation', `${SAMPLE}/d1`, key, KEY_ADDRESS],
    ['installation.enabled', 'installation', `${SAMPLE}/d1`, key, KEY_ADDRESS],
    ['webhook.updated', 'webhook', hookId, key, KEY_ADDRESS],
    ['webhook.redelivered', 'delivery', delivery.id, key, KEY_ADDRESS],
    ['webhook.deleted', 'webhook', hookId, key, KEY_ADDRESS],
    ['app.current.changed', 'app', SAMPLE, web, WEB_ADDRESS],
    ['installation.disabled', 'installation', `${SAMPLE}/d1`, web, WEB_ADDRESS],
  ];
  const got = [...all]
    .reverse()
    .map((e) => [
      e.action,
      e.resource.kind,
      e.resource.kind === 'upload' ? '*' : e.resource.id,
      e.actor,
      e.address,
    ]);
  expect(got).toEqual(expected);
  expect(all.filter((e) => e.action === 'upload.received').map((e) => e.details.current)).toEqual([
    false,
    false,
    true,
  ]);

  // Filters and pages.
  expect((await entries(a.apiKey, '?action=rollout.paused')).entries).toHaveLength(1);
  expect((await entries(a.apiKey, '?actorKind=session')).entries.map((e) => e.action)).toEqual([
    'installation.disabled',
    'app.current.changed',
  ]);
  expect((await entries(a.apiKey, '?resourceKind=installation')).entries).toHaveLength(3);
  expect(
    (await entries(a.apiKey, `?resourceKind=webhook&resourceId=${hookId}`)).entries,
  ).toHaveLength(3);
  const future = new Date(Date.now() + 3_600_000).toISOString();
  expect((await entries(a.apiKey, `?from=${future}`)).entries).toHaveLength(0);
  expect((await entries(a.apiKey, `?to=${future}`)).entries).toHaveLength(20);
  const pages: string[] = [];
  let next: string | null = '';
  while (next !== null) {
    const page: { entries: Entry[]; next: string | null } = await entries(
      a.apiKey,
      `?limit=7${next ? `&before=${next}` : ''}`,
    );
    pages.push(...page.entries.map((e) => e.id));
    next = page.next;
  }
  expect(pages).toEqual(everything.map((e) => e.id));

  // Append-only: no route changes or deletes an entry; another account sees nothing of A's.
  const target = all[0]!.id;
  for (const method of ['PUT', 'DELETE']) {
    const r = await api(
      method,
      `/api/v2/audit/${target}`,
      method === 'PUT' ? { action: 'x' } : undefined,
    );
    expect(r.status).toBe(405);
  }
  expect((await entries(a.apiKey, '?limit=200')).entries).toEqual(everything);
  const b = await newAccount(stack);
  // B sees its own sign-up only, never A's entries.
  expect((await entries(b.apiKey)).entries.map((e) => [e.action, e.resource.id])).toEqual([
    ['account.created', b.id],
  ]);

  // The web administration lists and filters the same log, and redelivers by hand.
  const page = await request(`${stack.urls.admin}/ui/audit?actorKind=session`, {
    headers: { cookie: session.cookie },
    ca: stack.ca,
  });
  expect(page.status).toBe(200);
  const cells = (action: string) => page.text.match(new RegExp(`<td>\\s*${action}\\s*</td>`, 'g'));
  expect(cells('installation\\.disabled')).toHaveLength(1);
  expect(cells('app\\.current\\.changed')).toHaveLength(1);
  expect(cells('rollout\\.paused')).toBeNull();
  expect(page.text).toContain(WEB_ADDRESS);
  const hooks = await request(`${stack.urls.admin}/ui/webhooks`, {
    headers: { cookie: session.cookie },
    ca: stack.ca,
  });
  expect(hooks.status).toBe(200);
  const redone = await request(
    `${stack.urls.admin}/ui/webhook-deliveries/${delivery.id}/redeliver`,
    {
      method: 'POST',
      headers: {
        cookie: session.cookie,
        'x-forwarded-for': WEB_ADDRESS,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: session.csrf }).toString(),
      ca: stack.ca,
    },
  );
  expect(redone.status).toBe(303);
  const [latest] = (await entries(a.apiKey, '?limit=1')).entries;
  expect(latest).toMatchObject({
    action: 'webhook.redelivered',
    actor: web,
    address: WEB_ADDRESS,
    resource: { kind: 'delivery', id: delivery.id },
  });
});

/** A web form of `session`, sent from WEB_ADDRESS. */
function webForm(
  session: { cookie: string; csrf: string },
  path: string,
  form: Record<string, string>,
) {
  return request(`${stack.urls.admin}${path}`, {
    method: 'POST',
    headers: {
      cookie: session.cookie,
      'x-forwarded-for': WEB_ADDRESS,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ ...form, _csrf: session.csrf }).toString(),
    ca: stack.ca,
  });
}

test('issue 31.7: download links, a password change and sign out everywhere are one entry each', async () => {
  const a = await newAccount(stack);
  const api = keyApi(a.apiKey);
  await upload(a.apiKey, 'version-1.apk', 'json', true);
  const made = await api('POST', `/api/v2/apps/${SAMPLE}/download-links`, { ttlSeconds: 3600 });
  expect(made.status).toBe(201);
  const { id: linkId, apk } = made.json<{ id: string; apk: { sha256: string } }>();
  expect((await api('DELETE', `/api/v2/download-links/${linkId}`)).status).toBe(204);
  // Revoking a revoked link changes nothing, and records nothing.
  expect((await api('DELETE', `/api/v2/download-links/${linkId}`)).status).toBe(204);

  const session = await signIn(stack, a.email);
  const webLink = await webForm(session, `/ui/apps/${SAMPLE}/download-links`, {
    sha256: apk.sha256,
  });
  expect(webLink.status).toBe(201);
  expect((await webForm(session, '/ui/account/sign-out-everywhere', {})).status).toBe(303);
  const again = await signIn(stack, a.email);
  const fields = { current: 'password-123', password: 'password-456', confirm: 'password-456' };
  expect((await webForm(again, '/ui/account/password', fields)).status).toBe(303);

  const key = { kind: 'account-key', id: a.id, name: 'account key' };
  const web = { kind: 'session', id: a.id, name: a.email };
  const listed = (await entries(a.apiKey, '?limit=200')).entries.filter(
    (e) => !['upload.received', 'app.current.changed', 'account.created'].includes(e.action),
  );
  const webLinkId = listed.find(
    (e) => e.actor.kind === 'session' && e.action === 'download-link.created',
  )?.resource.id;
  expect(
    [...listed]
      .reverse()
      .map((e) => [e.action, e.resource.kind, e.resource.id, e.actor, e.address]),
  ).toEqual([
    ['download-link.created', 'download-link', linkId, key, KEY_ADDRESS],
    ['download-link.revoked', 'download-link', linkId, key, KEY_ADDRESS],
    ['download-link.created', 'download-link', webLinkId, web, WEB_ADDRESS],
    ['member.signed-out-everywhere', 'member', a.id, web, WEB_ADDRESS],
    ['member.password-changed', 'member', a.id, web, WEB_ADDRESS],
  ]);
  expect(webLinkId).toMatch(/^[0-9a-f]{24}$/);
  expect(webLinkId).not.toBe(linkId);
  expect(listed[listed.length - 1]!.details).toMatchObject({
    sha256: apk.sha256,
    package: SAMPLE,
  });
});

// Issue 35, item 6: the PushLink form names no package, so an upload by `apkrelay upload` was
// recorded with `package: null`; the CLI now sends the form's optional `package` field, which
// makes the upload one of that package (recorded, an APK of another refused, a malformed name
// refused before anything is queued).
/** Uploads `name` through the PushLink form with the given `package` field (none: undefined). */
async function formUpload(apiKey: string, name: string, pkg?: string) {
  const apk = { name: 'apk', filename: name, data: await fixture(name) };
  const named = pkg === undefined ? [] : [{ name: 'package', value: pkg }];
  return postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [{ name: 'apiKey', value: apiKey }, ...named, apk],
    { ca: stack.ca },
  );
}

async function uploadEntries(apiKey: string): Promise<AuditEntry[]> {
  const r = await ownerApi(stack, apiKey)('GET', '/api/v2/audit?action=upload.received');
  expect(r.status).toBe(200);
  return r.json<{ entries: AuditEntry[] }>().entries;
}

test('the form’s package field is recorded; without it the entry says null, as before', async () => {
  const { apiKey } = await newAccount(stack);
  const named = await formUpload(apiKey, 'version-1.apk', SAMPLE);
  expect([named.status, named.text]).toEqual([200, 'deploy successful']);
  const unnamed = await formUpload(apiKey, 'version-2.apk');
  expect([unnamed.status, unnamed.text]).toEqual([200, 'deploy successful']);
  const details = (await uploadEntries(apiKey)).map((e) => e.details);
  // Newest first.
  expect(details).toEqual([
    { current: false, package: null },
    { current: false, package: SAMPLE },
  ]);
});

test('an APK of another package than the field names is refused; a malformed name is refused at once', async () => {
  const { apiKey } = await newAccount(stack);
  const other = await formUpload(apiKey, 'version-1.apk', 'com.example.other');
  expect([other.status, other.text]).toEqual([
    422,
    'deploy fails, The APK is dev.apkrelay.sample, not com.example.other.',
  ]);
  const bad = await formUpload(apiKey, 'version-1.apk', 'not a package');
  expect([bad.status, bad.text]).toEqual([
    400,
    'deploy fails, the package field must name an Android package',
  ]);
  // The refused upload was received (its entry names the package it claimed); the malformed
  // one never was.
  expect((await uploadEntries(apiKey)).map((e) => e.details)).toEqual([
    { current: false, package: 'com.example.other' },
  ]);
});
