/**
 * Issue 16: a device that reaches only the web and push hosts (spec section 8) registers, beats,
 * fetches the push key, downloads and reads the metadata listing on either, with the same
 * answers as on the admin host; its push stream is on the push host, where registration on any
 * host points it. Admin-only routes are not found on web and push.
 */
import type { Host } from '../../../api/route-table';
import { newAccount } from '../../helpers/accounts';
import { request, type Reply } from '../../helpers/http';
import { connectSse } from '../../helpers/sse';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';

jest.setTimeout(120_000);

const HOSTS: readonly Host[] = ['admin', 'web', 'push'];
const PKG = 'dev.apkrelay.sample';
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const on = (host: Host, path: string, init: { apiKey?: string; json?: unknown } = {}) =>
  request(`${stack.urls[host]}${path}`, {
    method: init.json === undefined ? 'GET' : 'POST',
    headers: init.apiKey ? { authorization: `Bearer ${init.apiKey}` } : {},
    ...(init.json === undefined ? {} : { json: init.json }),
    ca: stack.ca,
  });

async function each(send: (host: Host) => Promise<Reply>): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (const host of HOSTS) replies.push(await send(host));
  return replies;
}

test('registration, heartbeat, push key, download and metadata answer alike on admin, web and push', async () => {
  const { apiKey, id: accountId } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const apk = await fixture('version-1.apk');
  const device = (host: Host) => `device-on-${host}`;

  const registered = await each((h) =>
    on(h, '/api/v2/installations', { apiKey, json: { package: PKG, deviceId: device(h) } }),
  );
  registered.forEach((reply, i) =>
    expect([reply.status, reply.json()]).toEqual([
      200,
      {
        status: 'enabled',
        accountId,
        deviceId: device(HOSTS[i]!),
        heartbeatSeconds: 30,
        // Whichever host took the registration, the stream is on the push host.
        streamUrl: `${stack.urls.push}/api/v2/stream?package=${PKG}&deviceId=${device(HOSTS[i]!)}`,
      },
    ]),
  );

  const beats = await each((h) =>
    on(h, '/api/v2/heartbeat', { apiKey, json: { package: PKG, deviceId: device(h) } }),
  );
  for (const reply of beats) {
    expect([reply.status, reply.json()]).toEqual([
      200,
      { status: 'enabled', heartbeatSeconds: 30 },
    ]);
  }

  const keys = await each((h) => on(h, '/api/v2/push-key'));
  for (const reply of keys) expect([reply.status, reply.text]).toEqual([200, keys[0]!.text]);

  const downloads = await each((h) =>
    on(h, `/download?package=${PKG}&api_key=${apiKey}&deviceId=${device(h)}`),
  );
  for (const reply of downloads) {
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/vnd.android.package-archive');
    expect(reply.body.equals(apk)).toBe(true);
  }
  const resumed = await each((h) =>
    request(`${stack.urls[h]}/download?package=${PKG}&api_key=${apiKey}`, {
      headers: { range: 'bytes=100-' },
      ca: stack.ca,
    }),
  );
  for (const reply of resumed) {
    expect(reply.status).toBe(206);
    expect(reply.body.equals(apk.subarray(100))).toBe(true);
  }

  const listings = await each((h) =>
    on(h, `/apps/api_list_json?packageName=${PKG}&apiKey=${apiKey}&deviceId=${device(h)}`),
  );
  const withoutInstallation = (reply: Reply) => {
    const { installation, ...rest } = reply.json<{ installation: { deviceId: string } }>();
    return { status: reply.status, rest, deviceId: installation.deviceId };
  };
  listings.forEach((reply, i) =>
    expect(withoutInstallation(reply)).toEqual({
      ...withoutInstallation(listings[0]!),
      deviceId: device(HOSTS[i]!),
    }),
  );
  expect(listings[0]!.status).toBe(200);
});

test('the push stream is on the push host only; a device registered on web streams there', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const reg = await on('web', '/api/v2/installations', {
    apiKey,
    json: { package: PKG, deviceId: 'web-only' },
  });
  const { streamUrl } = reg.json<{ streamUrl: string }>();
  const sse = connectSse(streamUrl, { ca: stack.ca, apiKey });
  try {
    expect(await sse.status).toBe(200);
    expect(JSON.parse((await sse.next('status')).data)).toMatchObject({ status: 'enabled' });
  } finally {
    await sse.close();
  }
  const path = new URL(streamUrl).pathname + new URL(streamUrl).search;
  for (const host of ['admin', 'web'] as const) {
    const reply = await request(`${stack.urls[host]}${path}`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${apiKey}` },
      ca: stack.ca,
    });
    expect({ host, status: reply.status }).toEqual({ host, status: 404 });
  }
});

test('admin-only routes are not found on web and push', async () => {
  const { apiKey } = await newAccount(stack);
  const adminOnly = [
    '/api/v2/account',
    '/api/v2/apps',
    `/api/v2/apps/${PKG}/installations`,
    `/api/v2/apps/${PKG}/exceptions`,
    '/api/v2/openapi.json',
    '/metrics',
    '/ops/queues',
    '/ui/login',
    '/healthz',
  ];
  for (const path of adminOnly) {
    for (const host of ['web', 'push'] as const) {
      const reply = await on(host, path, { apiKey });
      expect({ path, host, status: reply.status }).toEqual({ path, host, status: 404 });
    }
  }
});
