/**
 * Issue 35 #5: the webhooks pages over real HTTPS, with the real workers and a real HTTPS receiver.
 * An endpoint is added through the form (a refused one shows why with the input kept; the secret
 * is shown once), changed through its page (a refusal likewise), refused a test while disabled,
 * sent a test delivery the receiver gets signed under that secret, and its delivery log shows it
 * delivered. Every change is an audit entry of the web session, as the JSON routes write theirs;
 * a form without its CSRF token and another account's endpoint are refused.
 */
import { createHmac } from 'node:crypto';
import { newAccount } from '../../helpers/accounts';
import { Browser } from '../../helpers/browser';
import { eventually } from '../../helpers/eventually';
import { ownerApi } from '../../helpers/owner-api';
import { startStack, testTls, type TestStack } from '../../helpers/stack';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';

jest.setTimeout(120_000);
let stack: TestStack;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  stack = await startStack({
    trustProxy: ['loopback'],
    webhooks: { allowPrivate: true, disableAfterDays: 3, timeoutMs: 5_000, ca: testTls().cert },
  });
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

/** The value of the input named `name` on the page. */
const valueOf = (page: string, name: string) =>
  new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(page)?.[1];
const checked = (page: string) =>
  [...page.matchAll(/name="event:([\w.]+)"\s+value="on"\s+checked/g)].map((m) => m[1]);

test('add, refuse, change, test and read the log of an endpoint through the forms', async () => {
  const { apiKey, email } = await newAccount(stack);
  const api = ownerApi(stack, apiKey);
  const jar = new Browser(stack, '10.35.0.5');
  expect((await jar.logIn(email, 'password-123')).status).toBe(303);
  const csrf = await jar.csrf('/ui/webhooks');

  const plain = await jar.post('/ui/webhooks', {
    _csrf: csrf,
    url: 'http://hooks.example.com/x',
    'event:apk.accepted': 'on',
  });
  expect(plain.status).toBe(400);
  expect(plain.text).toContain('url: an https:// URL without credentials');
  expect(valueOf(plain.text, 'url')).toBe('http://hooks.example.com/x');
  expect(checked(plain.text)).toEqual(['apk.accepted']);
  const none = await jar.post('/ui/webhooks', { _csrf: csrf, url: receiver.url });
  expect(none.status).toBe(400);
  expect(none.text).toContain('events: a non-empty list of apk.accepted');
  expect(valueOf(none.text, 'url')).toBe(receiver.url);

  const added = await jar.post('/ui/webhooks', {
    _csrf: csrf,
    url: receiver.url,
    'event:apk.accepted': 'on',
    'event:rollout.halted': 'on',
  });
  expect(added.status).toBe(201);
  const secret = /<code class="secret">(whsec_[\w-]+)<\/code>/.exec(added.text)?.[1] ?? '';
  expect(secret).toMatch(/^whsec_/);
  const [hook] = (await api('GET', '/api/v2/webhooks')).json<{ webhooks: HookJson[] }>().webhooks;
  expect(hook).toMatchObject({ url: receiver.url, events: ['apk.accepted', 'rollout.halted'] });
  const id = hook!.id;
  const list = await jar.get('/ui/webhooks');
  expect(list.text).toContain(`href="/ui/webhooks/${id}"`);
  expect(list.text).not.toContain(secret);

  const page = await jar.get(`/ui/webhooks/${id}`);
  expect(page.status).toBe(200);
  expect(valueOf(page.text, 'url')).toBe(receiver.url);
  expect(checked(page.text)).toEqual(['apk.accepted', 'rollout.halted']);
  const bad = await jar.post(`/ui/webhooks/${id}`, { _csrf: csrf, url: 'ftp://x', enabled: 'on' });
  expect(bad.status).toBe(400);
  expect(bad.text).toContain('url: an https:// URL without credentials');
  expect(valueOf(bad.text, 'url')).toBe('ftp://x');
  const off = await jar.post(`/ui/webhooks/${id}`, {
    _csrf: csrf,
    url: receiver.url,
    'event:backup.failed': 'on',
  });
  expect(off.status).toBe(303);
  expect(off.headers.location).toBe(`/ui/webhooks/${id}`);
  expect((await api('GET', `/api/v2/webhooks/${id}`)).json()).toMatchObject({
    events: ['backup.failed'],
    enabled: false,
  });
  // A disabled endpoint is sent nothing, a test included: the page says why.
  const whileOff = await jar.post(`/ui/webhooks/${id}/test`, { _csrf: csrf });
  expect(whileOff.status).toBe(400);
  expect(whileOff.text).toContain('the endpoint is disabled: enable it to send it a test');
  const on = await jar.post(`/ui/webhooks/${id}`, {
    _csrf: csrf,
    url: receiver.url,
    'event:backup.failed': 'on',
    enabled: 'on',
  });
  expect(on.status).toBe(303);

  // A form without its CSRF token changes nothing.
  expect((await jar.post(`/ui/webhooks/${id}/test`, {})).status).toBe(403);
  const tested = await jar.post(`/ui/webhooks/${id}/test`, { _csrf: csrf });
  expect(tested.status).toBe(303);
  const got = await eventually('the test delivery at the receiver', () =>
    Promise.resolve(receiver.received.find((r) => r.body.includes('"type":"webhook.test"'))),
  );
  const ts = String(got.headers['apkrelay-timestamp']);
  const expected = `v1=${createHmac('sha256', secret).update(`${ts}.${got.body}`).digest('hex')}`;
  expect(got.headers['apkrelay-signature']).toBe(expected);
  expect(JSON.parse(got.body)).toMatchObject({ type: 'webhook.test', data: { endpointId: id } });
  const log = await eventually('the log to show it delivered', async () => {
    const p = await jar.get(`/ui/webhooks/${id}`);
    return /<td>webhook\.test<\/td>\s*<td data-field="state">delivered<\/td>/.test(p.text)
      ? p
      : undefined;
  });
  expect(log.text).toMatch(/200 in \d+ ms/);

  const audit = (await api('GET', '/api/v2/audit?resourceKind=webhook&limit=10')).json<{
    entries: Array<{ action: string; actor: { kind: string }; address: string }>;
  }>().entries;
  expect(audit.map((e) => [e.action, e.actor.kind, e.address])).toEqual([
    ['webhook.updated', 'session', '10.35.0.5'],
    ['webhook.updated', 'session', '10.35.0.5'],
    ['webhook.created', 'session', '10.35.0.5'],
  ]);
  const [test] = (await api('GET', '/api/v2/audit?action=webhook.tested')).json<{
    entries: Array<{ resource: { kind: string }; details: Record<string, unknown> }>;
  }>().entries;
  expect(test).toMatchObject({ resource: { kind: 'delivery' }, details: { endpointId: id } });

  // Another account's endpoint is not found, for its page and its forms.
  const other = await newAccount(stack);
  const jarB = new Browser(stack, '10.35.0.6');
  expect((await jarB.logIn(other.email, 'password-123')).status).toBe(303);
  expect((await jarB.get(`/ui/webhooks/${id}`)).status).toBe(404);
  const csrfB = await jarB.csrf('/ui/webhooks');
  expect((await jarB.post(`/ui/webhooks/${id}/test`, { _csrf: csrfB })).status).toBe(404);
  expect((await jarB.post(`/ui/webhooks/${id}`, { _csrf: csrfB, url: receiver.url })).status).toBe(
    404,
  );
});

interface HookJson {
  id: string;
  url: string;
  events: string[];
}
