/**
 * The production topology of docs/deploy.md, through Debian's nginx only: nginx terminating TLS
 * for the admin, web and push hosts with the ops/deploy templates (rendered by ops/deploy/render.sh),
 * two API processes and two worker processes of the built program with TLS off and
 * TRUST_PROXY=loopback. Clients connect from several loopback addresses (127.0.0.2, .3, ...) so
 * the per-client throttles can be seen counting the real client, not nginx. The names of the
 * three hosts resolve to loopback through the test's own lookup. The API processes run with
 * DOWNLOAD_OFFLOAD=nginx: `/download` bytes come from nginx's internal location over the offload
 * directory (docs/downloads.md, "nginx offload").
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
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
import { holdPort } from '../helpers/held-port';
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
import { SseFleet } from '../helpers/sse-fleet';
import { PushlinkReplay } from '../../device-client/node/pushlink-replay';
import { barrier as pushlinkBarrier } from '../helpers/pushlink-barrier';

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
let apiEnv: Record<string, string>;
let legacyPorts: number[];
let legacyListen: number;

const url = (host: keyof typeof NAMES, p: string) => `https://${NAMES[host]}:${port}${p}`;
const call = (host: keyof typeof NAMES, p: string, options: RequestOptions = {}) =>
  request(url(host, p), { ca, net: from(), ...options });

beforeAll(async () => {
  await ensureNginx();
  stack = await startStack({ workers: false });
  dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-nginx-'));
  // Held until nginx binds it: the processes below take tens of seconds on a loaded machine.
  const https = await holdPort();
  port = https.port;
  const tls = selfSignedCertificate(Object.values(NAMES), new Date());
  ca = tls.cert;
  apiEnv = {
    PUBLIC_BASE_URL: `https://${NAMES.admin}:${port}`,
    PUBLIC_WEB_URL: `https://${NAMES.web}:${port}`,
    PUBLIC_PUSH_URL: `https://${NAMES.push}:${port}`,
    AUTH_FAILURES_PER_ADDRESS: String(AUTH_FAILURES_PER_ADDRESS),
    SIGNUPS_PER_ADDRESS: String(SIGNUPS_PER_ADDRESS),
    MAX_APK_BYTES: String(MAX_APK_BYTES),
    // The directory deployVars names in nginx's internal download locations.
    DOWNLOAD_OFFLOAD: 'nginx',
    DOWNLOAD_OFFLOAD_DIR: path.join(dir, 'offload'),
  };
  // Each API process also runs the PushLink SDK's listener, plain TCP behind nginx's stream port.
  legacyPorts = [await freePort(), await freePort()];
  for (const legacy of legacyPorts) {
    apis.push(await spawnApiRole(stack, { ...apiEnv, LEGACY_PUSH_PORT: String(legacy) }));
  }
  workers.push(spawnWorkerRole(stack), spawnWorkerRole(stack));
  const legacy = await holdPort();
  legacyListen = legacy.port;
  const listen = { https: port, legacy: legacyListen };
  const [a, b] = apis.map((api) => api.ports!);
  const vars = deployVars(dir, listen, tls, [a!, b!], [legacyPorts[0]!, legacyPorts[1]!]);
  nginx = await startNginx(dir, vars, [https, legacy]);
  await eventually('/readyz through nginx (a worker per queue)', async () => {
    // A process that died at start never becomes ready: say so now, not after the deadline.
    const dead = [...apis, ...workers].find(
      (r) => r.child.exitCode !== null || r.child.signalCode !== null,
    );
    if (dead)
      throw new Error(`a role process exited before /readyz: ${dead.child.spawnargs.join(' ')}`);
    return (await call('admin', '/readyz').catch(() => undefined))?.status === 200;
  });
  await eventually('both worker processes to take ingest jobs', async () => {
    return (await workersOf(stack, 'apk-ingest')) === 2;
  });
});

afterAll(async () => {
  await fleet.close();
  await nginx?.stop();
  for (const role of [...apis, ...workers]) await role.stop();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

/**
 * A new account signed up through nginx, with `plan` installations, from `address` (sign-ups are
 * limited per address: SIGNUPS_PER_ADDRESS).
 */
async function account(plan: number, address?: string): Promise<{ apiKey: string; id: string }> {
  const email = `topology-${plan}-${Date.now()}@example.com`;
  const reply = await call('admin', '/api/v2/accounts', {
    method: 'POST',
    json: { email, password: 'password-123' },
    net: from(address),
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

test('DOWNLOAD_OFFLOAD=nginx: nginx sends /download with the API headers; ranges and If-Range as before', async () => {
  const { apiKey, id } = await account(10, '127.0.0.36');
  const v = await upload(apiKey, 'version-1.apk', true);
  const download = `/download?package=${PKG}&api_key=${apiKey}`;
  const sha256 = createHash('sha256').update(v).digest('hex');
  const whole = await call('web', download);
  expect(whole.status).toBe(200);
  expect(md5(whole.body)).toBe(md5(v));
  expect(whole.headers).toMatchObject({
    'content-type': 'application/vnd.android.package-archive',
    'content-length': String(v.length),
    'content-disposition': `attachment;filename=${PKG}.apk`,
    etag: `"${sha256}"`,
    'cache-control': 'private, no-transform',
    'accept-ranges': 'bytes',
  });
  expect(whole.headers['x-accel-redirect']).toBeUndefined();
  // nginx read it from the offload directory: the APK's plaintext is there, under its blob id.
  const apk = await stack.mongo.db.collection('apks').findOne({ accountId: id });
  const offload = path.join(dir, 'offload');
  expect(await readdir(offload)).toContain(`${apk!.blobId as string}.apk`);

  const range = { range: 'bytes=100-1099' };
  const part = await call('web', download, { headers: range });
  expect([part.status, part.headers['content-range']]).toEqual([206, `bytes 100-1099/${v.length}`]);
  expect(part.body.equals(v.subarray(100, 1100))).toBe(true);
  const same = await call('web', download, { headers: { ...range, 'if-range': `"${sha256}"` } });
  expect([same.status, same.body.equals(v.subarray(100, 1100))]).toEqual([206, true]);
  const voided = await call('web', download, { headers: { ...range, 'if-range': '"other"' } });
  expect([voided.status, md5(voided.body)]).toEqual([200, md5(v)]);
  const dated = await call('web', download, {
    headers: { ...range, 'if-range': new Date(Date.now() + 3_600_000).toUTCString() },
  });
  expect([dated.status, md5(dated.body)]).toEqual([200, md5(v)]);
  // A resume at the exact size is an empty success, several ranges a 416: the API's answers.
  const done = await call('web', download, { headers: { range: `bytes=${v.length}-` } });
  expect([done.status, done.body.length]).toEqual([200, 0]);
  const several = await call('web', download, { headers: { range: 'bytes=0-1,5-9' } });
  expect(several.status).toBe(416);
  const head = await call('web', download, { method: 'HEAD' });
  expect([head.status, head.headers['content-length']]).toEqual([200, String(v.length)]);

  // A new current APK: its file is written at its first download, and the old one's removed, as
  // nobody was handed it in the last minute (its time set back: offload-dir.ts says why).
  const v2 = await upload(apiKey, 'version-2.apk', true);
  const oldFile = path.join(offload, `${apk!.blobId as string}.apk`);
  const minuteAgo = new Date(Date.now() - 61_000);
  await utimes(oldFile, minuteAgo, minuteAgo);
  expect(md5((await call('web', download)).body)).toBe(md5(v2));
  const apk2 = await stack.mongo.db.collection('apks').findOne({ accountId: id, md5: md5(v2) });
  const files = await readdir(offload);
  expect(files).toContain(`${apk2!.blobId as string}.apk`);
  expect(files).not.toContain(`${apk!.blobId as string}.apk`);
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
const streamUrl = (deviceId: string) =>
  url('push', `/api/v2/stream?package=${PKG}&deviceId=${deviceId}`);
const fleet = new SseFleet((deviceId, lastEventId) =>
  connectSse(streamUrl(deviceId), {
    ca,
    apiKey: owner.apiKey,
    net: from(`127.0.1.${1 + (Number(deviceId.split('-')[1]) % 50)}`),
    ...(lastEventId ? { lastEventId } : {}),
  }),
);
const versionOf = (e: { data: string }) =>
  (JSON.parse(e.data) as { versionCode: number }).versionCode;
const versionsOn = (s: SseClient) => s.events.filter((e) => e.event === 'version').map(versionOf);

/** Every device's latest stream has heard of `versionCode`. */
const allHeardOf = (versionCode: number) =>
  Promise.all(
    DEVICES.map((d) =>
      eventually(`${d} to receive version ${versionCode}`, () =>
        versionsOn(fleet.current.get(d)!).includes(versionCode),
      ),
    ),
  );

/**
 * The streams reopened since `from` that answered: each got its state again (enabled, the
 * heartbeat to keep). The devices' latest streams, having seen the latest notice before
 * (Last-Event-ID), were offered `versions` and nothing older again. Returns how many answered.
 */
function expectStateReceived(from: number, versions: number[]): number {
  const answered = fleet.reopened.slice(from).filter((s) => s.events.length > 0);
  const latest = new Set(fleet.current.values());
  for (const s of answered) {
    const status = s.events.find((e) => e.event === 'status');
    expect(JSON.parse(status!.data)).toEqual({ status: 'enabled', heartbeatSeconds: 30 });
    // A reconnect racing a notice may get it twice (the replay and the broadcast, one id): the
    // device ignores an offer it holds. What it must not get is an older offer again.
    if (latest.has(s)) expect([...new Set(versionsOn(s))]).toEqual(versions);
  }
  return answered.length;
}

test('100 SSE devices through nginx receive a notice when the current APK changes', async () => {
  for (const deviceId of DEVICES) {
    const reply = await call('push', '/api/v2/installations', {
      method: 'POST',
      headers: bearer(owner.apiKey),
      json: { package: PKG, deviceId, installedMd5: md5(v1) },
    });
    expect(reply.json()).toMatchObject({ status: 'enabled' });
  }
  await Promise.all(DEVICES.map((d) => fleet.open(d).next('status', 30_000)));
  await upload(owner.apiKey, 'version-2.apk', false);
  const marks = DEVICES.map((d) => fleet.current.get(d)!.events.length);
  // How fast is `npm run bench:fanout`'s to measure, not a bound on a shared machine.
  const received = DEVICES.map((d, i) =>
    fleet.current
      .get(d)!
      .next('version', 30_000, marks[i])
      .then((e) => ({ version: versionOf(e) })),
  );
  const moved = await call('admin', `/api/v2/apps/${PKG}/current`, {
    method: 'PUT',
    headers: bearer(owner.apiKey),
    json: { versionCode: 2 },
  });
  expect(moved.status).toBe(200);
  const got = await Promise.all(received);
  expect(got.map((g) => g.version)).toEqual(Array<number>(100).fill(2));
});

test('PushLink SDK devices through the legacy port (TLS at nginx) hear of an upload made current', async () => {
  const other = await account(10);
  const first = await upload(other.apiKey, 'version-1.apk', true);
  const devices = await Promise.all(
    ['legacy-a', 'legacy-b', 'legacy-c', 'legacy-d'].map(async (deviceId) => {
      const device = await PushlinkReplay.connect({ host: '127.0.0.1', port: legacyListen, ca });
      device.subscribe({ apiKey: other.apiKey, package: PKG, deviceId, hash: md5(first) });
      return device;
    }),
  );
  try {
    // Up to date: nothing is said. Registered through nginx: four enabled installations on the PushLink channel.
    await eventually('the four legacy devices to be registered', async () => {
      const reply = await call('admin', `/api/v2/apps/${PKG}/installations`, {
        headers: bearer(other.apiKey),
      });
      const rows = reply.json<{ installations: Array<{ status: string; channel?: string }> }>()
        .installations;
      return (
        rows.length === 4 && rows.every((r) => r.status === 'enabled' && r.channel === 'pushlink')
      );
    });
    // Each socket answered a line sent after its subscribe: nothing was said before it.
    for (const d of devices) expect(await pushlinkBarrier(d, 20_000)).toEqual([]);
    const marks = devices.map((d) => d.lines.length);
    const second = await upload(other.apiKey, 'version-2.apk', true);
    // How fast is `npm run bench:legacy-push`'s to measure, not a bound on a shared machine.
    await Promise.all(devices.map((d, i) => d.waitForLines(marks[i]! + 1, 20_000)));
    // Then a second barrier: all each socket was told, up to its answer, is the one notice.
    const said = await Promise.all(devices.map((d) => pushlinkBarrier(d, 20_000)));
    expect(said).toEqual(Array(4).fill([{ mt: '0', msg: md5(second) }]));
  } finally {
    for (const d of devices) d.close();
  }
});

test('SIGKILL of one API process: its devices are back through the other at their first reconnect', async () => {
  fleet.reconnecting = true;
  await apis[0]!.stop('SIGKILL');
  await eventually('the first devices to be back', () => fleet.outages.length > 0);
  await upload(owner.apiKey, 'version-3.apk', true);
  // Every device's stream, moved or not, hears of version 3: none is left on the dead process.
  expect(await allHeardOf(3)).toHaveLength(100);
  expect(fleet.devicesDown).toBe(0);
  expect(fleet.outages.length).toBeGreaterThan(0);
  expect(fleet.outages.length).toBeLessThan(100);
  // Each served by the first attempt: back within the one retry a real device waits (2-5 s).
  expect(fleet.outages.filter((attempts) => attempts !== 1)).toEqual([]);
  expect(expectStateReceived(0, [3])).toBe(fleet.outages.length);
});

test('a rolling restart: the killed process back on its ports, then SIGTERM to the other', async () => {
  const [outagesBefore, reopenedBefore] = [fleet.outages.length, fleet.reopened.length];
  const legacyEnv = { ...apiEnv, LEGACY_PUSH_PORT: String(legacyPorts[0]) };
  apis[0] = await spawnApiRole(stack, legacyEnv, apis[0]!.ports);
  await apis[1]!.stop('SIGTERM'); // what `systemctl stop apkrelay-api@b` sends
  // It held every stream: all 100 devices move to the restarted process.
  await eventually('every device to be back', () => {
    return fleet.outages.length - outagesBefore >= 100 && fleet.devicesDown === 0;
  });
  const moved = await call('admin', `/api/v2/apps/${PKG}/current`, {
    method: 'PUT',
    headers: bearer(owner.apiKey),
    json: { versionCode: 2 },
  });
  expect(moved.status).toBe(200);
  expect(await allHeardOf(2)).toHaveLength(100);
  // All 100 move at the same instant to the restarted process. A first attempt may still reach
  // the stopping one over a connection nginx keeps open to it, which ends it at once: the second
  // is served. So at most two retries of a real device (how long the crowd takes is the
  // benchmarks' to measure).
  expect(fleet.outages.slice(outagesBefore).filter((attempts) => attempts > 2)).toEqual([]);
  expect(expectStateReceived(reopenedBefore, [2])).toBeGreaterThanOrEqual(100);
});
