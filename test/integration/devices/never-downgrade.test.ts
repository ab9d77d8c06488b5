/**
 * No downgrade is ever offered (issue 35, item 6): a device that runs a higher versionCode than
 * the APK made current (it installed a rollout's APK that was then halted) is offered nothing,
 * over SSE and over the PushLink socket, is listed "ahead", and is not counted by the lower APK's
 * funnel. A device running an APK the server does not know keeps being offered the current one.
 * Real APKs (versionCode 1 and 2, built by aapt, signed by apksigner), real stack.
 */
import { PushlinkReplay } from '../../../device-client/node/pushlink-replay';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { registerDevices } from '../../helpers/devices';
import { request } from '../../helpers/http';
import { ownerApi } from '../../helpers/owner-api';
import { barrier } from '../../helpers/pushlink-barrier';
import { connectSse, type SseClient } from '../../helpers/sse';
import { endedByOwner } from '../../helpers/sse-stream-end';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

jest.setTimeout(180_000);
/** An event takes well under 2 s unloaded; ten times that for a loaded 2-core machine. */
const EVENT_MS = 20_000;
const SAMPLE = 'dev.apkrelay.sample';
/** An MD5 of no uploaded APK. */
const UNKNOWN_MD5 = 'f'.repeat(32);

let stack: TestStack;
const clients: SseClient[] = [];
const sockets: PushlinkReplay[] = [];

beforeAll(async () => {
  stack = await startStack({ legacyPush: {} });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const s of sockets) s.close();
  await stack.close();
});

function stream(apiKey: string, deviceId: string): SseClient {
  const url = `${stack.urls.push}/api/v2/stream?package=${SAMPLE}&deviceId=${deviceId}`;
  const client = connectSse(url, { ca: stack.ca, apiKey });
  clients.push(client);
  return client;
}

async function register(apiKey: string, deviceId: string, installedMd5: string): Promise<void> {
  const target = { baseUrl: stack.urls.push, ca: stack.ca, apiKey, package: SAMPLE };
  expect(await registerDevices(target, [deviceId], installedMd5)).toEqual(['enabled']);
}

async function setCurrent(apiKey: string, versionCode: number): Promise<void> {
  const put = await ownerApi(stack, apiKey)('PUT', `/api/v2/apps/${SAMPLE}/current`, {
    versionCode,
  });
  expect(put.status).toBe(200);
}

/** A PushLink SDK 5.6.0 device subscribed on a socket of its own. */
async function pushlink(apiKey: string, deviceId: string, hash: string): Promise<PushlinkReplay> {
  const port = stack.legacyPushPort!;
  const s = await PushlinkReplay.connect({ host: '127.0.0.1', port, ca: stack.ca });
  sockets.push(s);
  s.subscribe({ apiKey, package: SAMPLE, deviceId, hash, lastDownloadHash: hash });
  return s;
}

async function get<T>(apiKey: string, path: string): Promise<T> {
  const reply = await ownerApi(stack, apiKey)('GET', `/api/v2/apps/${SAMPLE}${path}`);
  expect(reply.status).toBe(200);
  return reply.json<T>();
}

/** The events of `deviceId`'s stream until the owner ends it (test/helpers/sse-stream-end.ts). */
function untilEnd(apiKey: string, deviceId: string, s: SseClient): Promise<string[]> {
  return endedByOwner(stack, { apiKey, package: SAMPLE, deviceId }, 'enabled', s, EVENT_MS);
}

interface Row {
  deviceId: string;
  pendingApkId: string | null;
  ahead: boolean;
}

test('a device on version 2 while version 1 is made current: no offer, listed ahead, not in the funnel of 1', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk');
  const apks = stack.mongo.db.collection('apks');
  const v1 = (await apks.findOne({ accountId: id, versionCode: 1 }))!;
  const v2 = (await apks.findOne({ accountId: id, versionCode: 2 }))!;
  await register(apiKey, 'ahead', v2.md5 as string);
  await register(apiKey, 'unknown', UNKNOWN_MD5);
  const ahead = stream(apiKey, 'ahead');
  const unknown = stream(apiKey, 'unknown');
  await ahead.next('status', EVENT_MS);
  // Version 2 is current: the unknown device is offered it on connecting.
  expect(JSON.parse((await unknown.next('version', EVENT_MS)).data)).toMatchObject({
    versionCode: 2,
  });

  const offered = unknown.events.length;
  await setCurrent(apiKey, 1);
  // The notice was handled: the device whose APK the server does not know is offered version 1
  // (and told to give version 2 up).
  expect(JSON.parse((await unknown.next('version', EVENT_MS, offered)).data)).toMatchObject({
    versionCode: 1,
    md5: v1.md5 as string,
  });
  // The device on version 2 got nothing: an offer would come before its stream's end.
  expect(await untilEnd(apiKey, 'ahead', ahead)).toEqual(['status']);
  // Nor on connecting again.
  const again = stream(apiKey, 'ahead');
  await again.next('status', EVENT_MS);
  expect(await untilEnd(apiKey, 'ahead', again)).toEqual(['status']);

  const list = await get<{ installations: Row[] }>(apiKey, '/installations');
  const rows = Object.fromEntries(list.installations.map((r) => [r.deviceId, r]));
  expect(rows.ahead).toMatchObject({ ahead: true, pendingApkId: null });
  expect(rows.unknown).toMatchObject({ ahead: false, pendingApkId: v1._id.toHexString() });

  const funnel = await get<{ counts: Record<string, number>; installations: Row[] }>(
    apiKey,
    '/funnel?versionCode=1',
  );
  expect(funnel.counts).toEqual({ offered: 1, downloaded: 0, installed: 0, failed: 0 });
  expect(funnel.installations.map((r) => r.deviceId)).toEqual(['unknown']);

  // Fetching version 1 anyway (a client that kept an offer an older server made): it is served,
  // and still not counted by version 1's funnel; the unknown device's download is.
  for (const deviceId of ['ahead', 'unknown']) {
    const query = `package=${SAMPLE}&api_key=${apiKey}&deviceId=${deviceId}`;
    const got = await request(`${stack.urls.web}/download?${query}`, { ca: stack.ca });
    expect([got.status, got.headers['content-type']]).toEqual([
      200,
      'application/vnd.android.package-archive',
    ]);
  }
  const after = await get<{ counts: Record<string, number>; installations: Row[] }>(
    apiKey,
    '/funnel?versionCode=1',
  );
  expect(after.counts).toEqual({ offered: 1, downloaded: 1, installed: 0, failed: 0 });
  expect(after.installations.map((r) => r.deviceId)).toEqual(['unknown']);
});

test('a PushLink device on version 2 while version 1 is made current is sent no mt 0, and is listed ahead', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk');
  const apks = stack.mongo.db.collection('apks');
  const m1 = (await apks.findOne({ accountId: id, versionCode: 1 }))!.md5 as string;
  const m2 = (await apks.findOne({ accountId: id, versionCode: 2 }))!.md5 as string;
  const ahead = await pushlink(apiKey, 'pl-ahead', m2);
  const unknown = await pushlink(apiKey, 'pl-unknown', UNKNOWN_MD5);
  expect(await barrier(ahead, EVENT_MS)).toEqual([]);
  expect(await barrier(unknown, EVENT_MS)).toEqual([{ mt: '0', msg: m2 }]);

  const before = unknown.lines.length;
  await setCurrent(apiKey, 1);
  // The notice was handled: the device whose APK the server does not know is sent version 1.
  await eventually('version 1 sent to the unknown device', () =>
    unknown.lines.slice(before).some((l) => l.mt === '0' && l.msg === m1),
  );
  // Nothing for the device on version 2: an mt 0 would come before the barrier's answer.
  expect(await barrier(ahead, EVENT_MS)).toEqual([]);
  // Nor when it subscribes again.
  const again = await pushlink(apiKey, 'pl-ahead', m2);
  expect(await barrier(again, EVENT_MS)).toEqual([]);

  const list = await get<{ installations: Row[] }>(apiKey, '/installations');
  const rows = Object.fromEntries(list.installations.map((r) => [r.deviceId, r]));
  expect(rows['pl-ahead']).toMatchObject({ ahead: true, pendingApkId: null });
  expect(rows['pl-unknown']).toMatchObject({ ahead: false });
});
