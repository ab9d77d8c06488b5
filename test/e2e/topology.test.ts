/**
 * The production topology of docs/deploy.md, through Debian's nginx only: nginx terminating TLS
 * for the admin, web and push hosts with the ops/deploy templates (rendered by ops/deploy/render.sh),
 * two API processes and two worker processes of the built program with TLS off and
 * TRUST_PROXY=loopback. Clients connect from several loopback addresses (127.0.0.2, .3, ...) so
 * the per-client throttles can be seen counting the real client, not nginx. The names of the
 * three hosts resolve to loopback through the test's own lookup.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../ops/services/child';
import { selfSignedCertificate } from '../../shared/crypto/tls';
import { eventually } from '../helpers/eventually';
import { request, type NetOptions, type RequestOptions } from '../helpers/http';
import { postMultipart } from '../helpers/multipart';
import {
  deployVars,
  ensureNginx,
  lookup,
  MAX_APK_BYTES,
  SERVER_NAMES,
  startNginx,
  type RunningNginx,
} from '../helpers/nginx';
import { startStack, type TestStack } from '../helpers/stack';
import { spawnApiRole, spawnWorkerRole, workersOf, type RoleProcess } from '../helpers/topology';
import { fixture } from '../helpers/uploads';
import {
  expectTenOfForty,
  encodeForm,
  seedApp,
  stackTrace,
} from '../integration/exceptions/fixtures';
import { connectSse, type SseClient } from '../helpers/sse';

jest.setTimeout(240_000);
const NAMES = SERVER_NAMES;
const PKG = 'dev.apkrelay.sample';
const AUTH_FAILURES_PER_ADDRESS = 5;
const SIGNUPS_PER_ADDRESS = 3;

const from = (localAddress = '127.0.0.1'): NetOptions => ({ lookup, localAddress });

let stack: TestStack;
let nginx: RunningNginx;
let dir: string;
let port: number;
let ca: string;
const apis: RoleProcess[] = [];
const workers: RoleProcess[] = [];
const streams: SseClient[] = [];

const url = (host: keyof typeof NAMES, p: string) => `https://${NAMES[host]}:${port}${p}`;
const call = (host: keyof typeof NAMES, p: string, options: RequestOptions = {}) =>
  request(url(host, p), { ca, net: from(), ...options });

beforeAll(async () => {
  await ensureNginx();
  stack = await startStack({ workers: false });
  dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-nginx-'));
  port = await freePort();
  const tls = selfSignedCertificate(Object.values(NAMES), new Date());
  ca = tls.cert;
  const env = {
    PUBLIC_BASE_URL: `https://${NAMES.admin}:${port}`,
    PUBLIC_WEB_URL: `https://${NAMES.web}:${port}`,
    PUBLIC_PUSH_URL: `https://${NAMES.push}:${port}`,
    AUTH_FAILURES_PER_ADDRESS: String(AUTH_FAILURES_PER_ADDRESS),
    SIGNUPS_PER_ADDRESS: String(SIGNUPS_PER_ADDRESS),
    MAX_APK_BYTES: String(MAX_APK_BYTES),
  };
  apis.push(await spawnApiRole(stack, env), await spawnApiRole(stack, env));
  workers.push(spawnWorkerRole(stack), spawnWorkerRole(stack));
  // The legacy push port's block is loaded too; its test (nothing listens behind it here) is
  // test/e2e/topology-legacy-port.test.ts.
  const listen = { https: port, legacy: await freePort() };
  const [a, b] = apis.map((api) => api.ports!);
  const vars = deployVars(dir, listen, tls, [a!, b!], [await freePort(), await freePort()]);
  nginx = await startNginx(dir, vars, [port]);
  await eventually('/readyz through nginx (a worker per queue)', async () => {
    return (await call('admin', '/readyz').catch(() => undefined))?.status === 200;
  });
  await eventually('both worker processes to take ingest jobs', async () => {
    return (await workersOf(stack, 'apk-ingest')) === 2;
  });
});

afterAll(async () => {
  await Promise.all(streams.map((s) => s.close()));
  await nginx?.stop();
  for (const role of [...apis, ...workers]) await role.stop();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

/** A new account signed up through nginx, with `plan` installations. */
async function account(plan: number): Promise<{ apiKey: string; id: string }> {
  const email = `topology-${plan}-${Date.now()}@example.com`;
  const reply = await call('admin', '/api/v2/accounts', {
    method: 'POST',
    json: { email, password: 'password-123' },
  });
  expect(reply.status).toBe(201);
  await stack.mongo.db
    .collection('accounts')
    .updateOne({ email }, { $set: { plan: { installations: plan } } });
  return reply.json<{ apiKey: string; id: string }>();
}

async function upload(apiKey: string, name: string, current: boolean): Promise<Buffer> {
  const data = await fixture(name);
  const reply = await postApk(apiKey, name, data, current);
  expect([reply.status, reply.text]).toEqual([200, 'deploy successful']);
  return data;
}

function postApk(apiKey: string, name: string, data: Buffer, current: boolean) {
  return postMultipart(
    url('admin', '/apps/api_upload'),
    [
      { name: 'apiKey', value: apiKey },
      { name: 'current', value: String(current) },
      { name: 'apk', filename: name, data },
    ],
    { ca, net: from() },
  );
}

let owner: { apiKey: string; id: string };
let v1: Buffer;

test('an upload through nginx, a download of it with Range, an APK over the limit refused', async () => {
  owner = await account(100);
  v1 = await upload(owner.apiKey, 'version-1.apk', true);
  const download = `/download?package=${PKG}&api_key=${owner.apiKey}`;
  const whole = await call('web', download);
  expect(whole.status).toBe(200);
  expect(md5(whole.body)).toBe(md5(v1));
  const part = await call('web', download, { headers: { range: 'bytes=100-1099' } });
  expect(part.status).toBe(206);
  expect(part.headers['content-range']).toBe(`bytes 100-1099/${v1.length}`);
  expect(part.body.equals(v1.subarray(100, 1100))).toBe(true);
  const tail = await call('web', download, { headers: { range: `bytes=${v1.length - 10}-` } });
  expect([tail.status, tail.body.equals(v1.subarray(v1.length - 10))]).toEqual([206, true]);
  // Above MAX_APK_BYTES, nginx lets the body through and the service refuses it in its own words.
  const large = await fixture('large.apk');
  expect(large.length).toBeGreaterThan(MAX_APK_BYTES);
  const refused = await postApk(owner.apiKey, 'large.apk', large, true);
  expect([refused.status, refused.text]).toEqual([
    413,
    `deploy fails, APK file larger than ${MAX_APK_BYTES} bytes`,
  ]);
});

test('per-client throttles count each client address nginx saw (TRUST_PROXY=loopback)', async () => {
  const failOnce = (address: string, n: number, spoof?: string) =>
    request(url('admin', '/api/v2/apps'), {
      ca,
      net: from(address),
      headers: { ...bearer(`ak_wrong${n}`), ...(spoof ? { 'x-forwarded-for': spoof } : {}) },
    });
  const first: number[] = [];
  for (let i = 0; i < AUTH_FAILURES_PER_ADDRESS + 1; i++)
    first.push((await failOnce('127.0.0.2', i)).status);
  expect(first).toEqual([...Array<number>(AUTH_FAILURES_PER_ADDRESS).fill(401), 429]);
  // nginx replaces X-Forwarded-For: a client cannot claim another address to escape its count.
  expect((await failOnce('127.0.0.2', 90, '127.0.0.9')).status).toBe(429);
  // Another client, through the same nginx, is counted on its own.
  expect((await failOnce('127.0.0.3', 91)).status).toBe(401);

  const signUp = (address: string, n: number) =>
    request(url('admin', '/api/v2/accounts'), {
      ca,
      net: from(address),
      method: 'POST',
      json: { email: `throttled-${address}-${n}-${Date.now()}@example.com`, password: 'pw-123456' },
    });
  const signups: number[] = [];
  for (let i = 0; i < SIGNUPS_PER_ADDRESS + 1; i++)
    signups.push((await signUp('127.0.0.4', i)).status);
  expect(signups).toEqual([...Array<number>(SIGNUPS_PER_ADDRESS).fill(201), 429]);
  expect((await signUp('127.0.0.5', 0)).status).toBe(201);
});

test('the exception limit is exact through nginx: 40 reports at once, 10 taken', async () => {
  const crasher = await account(5);
  const app = await seedApp(stack, crasher.id, { label: 'Topology App' });
  for (let i = 0; i < 5; i++) {
    const reply = await call('web', '/api/v2/installations', {
      method: 'POST',
      headers: bearer(crasher.apiKey),
      json: { package: app.package, deviceId: `crash-${i}`, installedMd5: app.md5 },
    });
    expect(reply.status).toBe(200);
  }
  const replies = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      request(url(i % 2 === 0 ? 'web' : 'push', '/exception'), {
        ca,
        net: from(`127.0.0.${10 + (i % 4)}`),
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        body: encodeForm({
          package: app.package,
          api_key: crasher.apiKey,
          hash: app.md5,
          deviceId: `crash-${i % 5}`,
          st: stackTrace(`topology ${i}`, i + 1),
        }),
      }),
    ),
  );
  await expectTenOfForty(stack, crasher.id, 'Topology App', replies);
});

const DEVICES = Array.from({ length: 100 }, (_, i) => `sse-${i}`);
/** Each device's current stream (a reconnect replaces it). */
const current = new Map<string, SseClient>();
const streamUrl = (deviceId: string) =>
  url('push', `/api/v2/stream?package=${PKG}&deviceId=${deviceId}`);
const open = (deviceId: string, lastEventId?: string) => {
  const s = connectSse(streamUrl(deviceId), {
    ca,
    apiKey: owner.apiKey,
    net: from(`127.0.1.${1 + (Number(deviceId.split('-')[1]) % 50)}`),
    ...(lastEventId ? { lastEventId } : {}),
  });
  streams.push(s);
  current.set(deviceId, s);
  return s;
};
const versionOf = (e: { data: string }) =>
  (JSON.parse(e.data) as { versionCode: number }).versionCode;

test('100 SSE devices through nginx receive a notice within 2 s of the current APK changing', async () => {
  for (const deviceId of DEVICES) {
    const reply = await call('push', '/api/v2/installations', {
      method: 'POST',
      headers: bearer(owner.apiKey),
      json: { package: PKG, deviceId, installedMd5: md5(v1) },
    });
    expect(reply.json()).toMatchObject({ status: 'enabled' });
  }
  await Promise.all(DEVICES.map((d) => open(d).next('status', 30_000)));
  await upload(owner.apiKey, 'version-2.apk', false);
  const marks = DEVICES.map((d) => current.get(d)!.events.length);
  const t0 = Date.now();
  const received = DEVICES.map((d, i) =>
    current
      .get(d)!
      .next('version', 30_000, marks[i])
      .then((e) => ({ version: versionOf(e), ms: Date.now() - t0 })),
  );
  const moved = await call('admin', `/api/v2/apps/${PKG}/current`, {
    method: 'PUT',
    headers: bearer(owner.apiKey),
    json: { versionCode: 2 },
  });
  expect(moved.status).toBe(200);
  const got = await Promise.all(received);
  expect(got.map((g) => g.version)).toEqual(Array<number>(100).fill(2));
  expect(Math.max(...got.map((g) => g.ms))).toBeLessThanOrEqual(2_000);
});

test('SIGKILL of one API process: its devices reconnect through nginx to the other within 2 s', async () => {
  const gaps: Array<Promise<number>> = [];
  const reconnected: SseClient[] = [];
  let killed: number | undefined;
  for (const deviceId of DEVICES) {
    const before = current.get(deviceId)!;
    void before.closed.then((closedAt) => {
      if (killed === undefined) return; // the test's own close at the end
      const again = open(deviceId, before.lastEventId);
      reconnected.push(again);
      gaps.push(
        again.next('status', 30_000).then((e) => {
          // Its state, re-sent on the new stream: enabled, with the heartbeat to keep. Having
          // seen the latest notice (Last-Event-ID), it is offered nothing again.
          expect(JSON.parse(e.data)).toEqual({ status: 'enabled', heartbeatSeconds: 30 });
          return Date.now() - closedAt;
        }),
      );
    });
  }
  killed = Date.now();
  await apis[0]!.stop('SIGKILL');
  await eventually('some devices to be back after the kill', () => gaps.length > 0);
  await upload(owner.apiKey, 'version-3.apk', true);
  // Every device's current stream, moved or not, hears of version 3: none is left on the dead one.
  const v3 = await Promise.all(
    DEVICES.map((d) =>
      eventually(`${d} to receive version 3`, () =>
        current.get(d)!.events.some((e) => e.event === 'version' && versionOf(e) === 3),
      ),
    ),
  );
  expect(v3).toHaveLength(100);
  killed = undefined;
  const moved = await Promise.all(gaps);
  expect(moved.length).toBeGreaterThan(0);
  expect(moved.length).toBeLessThan(100);
  expect(Math.max(...moved)).toBeLessThanOrEqual(2_000);
  for (const s of reconnected) {
    const versions = s.events.filter((e) => e.event === 'version').map(versionOf);
    expect(versions).toEqual([3]);
  }
});
