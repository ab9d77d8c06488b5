/**
 * Devices end to end: installations within the plan under concurrent registration from two API
 * processes, version notices fanned out to streams held by either process, give-ups sent exactly
 * once, catch-up on reconnect, signed events.
 */
import { checkNotice } from '../../../device-client/core/signed-events';
import { nodeCrypto } from '../../../device-client/node/adapters';
import { verifyEvent } from '../../../shared/devices/push-signing';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { connectSse, type SseClient } from '../../helpers/sse';
import { endedByOwner as endSse } from '../../helpers/sse-stream-end';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

jest.setTimeout(180_000);
/**
 * How long an event may take to reach a stream: it takes well under 2 s unloaded (upload verdict,
 * notice, fan-out through Redis); ten times that, for a loaded 2-core machine.
 */
const EVENT_MS = 20_000;
let stack: TestStack;
let second: { urls: TestStack['urls'] };
const clients: SseClient[] = [];

beforeAll(async () => {
  stack = await startStack();
  second = await stack.startApi();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await stack.close();
});

const SAMPLE = 'dev.apkrelay.sample';

async function register(
  host: string,
  apiKey: string,
  deviceId: string,
  extra: Record<string, unknown> = {},
) {
  const reply = await request(`${host}/api/v2/installations`, {
    method: 'POST',
    json: { package: SAMPLE, deviceId, ...extra },
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  return reply;
}

function stream(host: string, apiKey: string, deviceId: string, lastEventId?: string): SseClient {
  const client = connectSse(
    `${host}/api/v2/stream?package=${SAMPLE}&deviceId=${encodeURIComponent(deviceId)}`,
    {
      ca: stack.ca,
      apiKey,
      ...(lastEventId ? { lastEventId } : {}),
    },
  );
  clients.push(client);
  return client;
}

/** The owner ends the stream of `deviceId` (test/helpers/sse-stream-end.ts). */
const endedByOwner = (
  apiKey: string,
  deviceId: string,
  status: 'enabled' | 'disabled',
  s: SseClient,
): Promise<string[]> => endSse(stack, { apiKey, package: SAMPLE, deviceId }, status, s, EVENT_MS);

async function md5Of(accountId: string, versionCode: number): Promise<string> {
  const apk = await stack.mongo.db
    .collection('apks')
    .findOne({ accountId, versionCode, package: SAMPLE });
  return apk!.md5 as string;
}

test('plan of 5: 7 devices registering at once through two API processes → exactly 5 enabled', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const hosts = [stack.urls.push, second.urls.push];
  const replies = await Promise.all(
    Array.from({ length: 7 }, (_, i) => register(hosts[i % 2]!, apiKey, `device-${i}`)),
  );
  expect(replies.map((r) => r.status)).toEqual(Array(7).fill(200));
  const statuses = replies.map((r) => r.json<{ status: string }>().status).sort();
  expect(statuses).toEqual([
    'disabled',
    'disabled',
    'enabled',
    'enabled',
    'enabled',
    'enabled',
    'enabled',
  ]);
  expect(
    await stack.mongo.db
      .collection('installations')
      .countDocuments({ accountId: id, status: 'enabled' }),
  ).toBe(5);
  expect(await stack.mongo.db.collection('seats').countDocuments({ accountId: id })).toBe(5);
  // Registering again changes nothing.
  const again = await register(stack.urls.push, apiKey, 'device-0');
  expect(again.json<{ status: string }>().status).toBe(
    replies[0]!.json<{ status: string }>().status,
  );
  expect(await stack.mongo.db.collection('installations').countDocuments({ accountId: id })).toBe(
    7,
  );

  // Disabled installations get no version event and no APK.
  const disabled = (
    await stack.mongo.db
      .collection('installations')
      .find({ accountId: id, status: 'disabled' })
      .toArray()
  ).map((d) => d.deviceId as string);
  const enabled = (
    await stack.mongo.db
      .collection('installations')
      .find({ accountId: id, status: 'enabled' })
      .toArray()
  ).map((d) => d.deviceId as string);
  const md5v1 = await md5Of(id, 1);
  for (const d of [...enabled, ...disabled])
    await register(stack.urls.push, apiKey, d, { installedMd5: md5v1 });
  const streams = new Map(
    [...enabled, ...disabled].map((d, i) => [d, stream(hosts[i % 2]!, apiKey, d)]),
  );
  for (const [d, s] of streams) {
    expect(await s.status).toBe(200);
    expect(JSON.parse((await s.next('status')).data)).toMatchObject({
      status: disabled.includes(d) ? 'disabled' : 'enabled',
    });
  }
  await uploadFixture(stack, apiKey, 'version-2.apk');
  // The upload's verdict is the change; from it, the fan-out reaches both processes (how fast is
  // measured by `npm run bench:fanout`, not bounded here on a shared machine).
  for (const d of enabled) {
    const event = JSON.parse((await streams.get(d)!.next('version', EVENT_MS)).data) as Record<
      string,
      unknown
    >;
    expect(event).toMatchObject({ type: 'version', package: SAMPLE, versionCode: 2 });
  }
  // Every enabled stream, on both processes, has the notice; then each disabled one is ended.
  for (const d of disabled) {
    expect(await endedByOwner(apiKey, d, 'disabled', streams.get(d)!)).toEqual(['status']);
  }
  const refused = await request(
    `${stack.urls.web}/download?package=${SAMPLE}&api_key=${apiKey}&deviceId=${disabled[0]}`,
    { ca: stack.ca },
  );
  expect(refused.status).toBe(403);
});

test('version events reach only that app’s devices; they are signed; giving up is sent exactly once', async () => {
  const a = await newAccount(stack);
  const b = await newAccount(stack);
  await uploadFixture(stack, a.apiKey, 'version-1.apk');
  await uploadFixture(stack, b.apiKey, 'version-1.apk');
  const md5v1 = await md5Of(a.id, 1);
  await register(stack.urls.push, a.apiKey, 'a1', { installedMd5: md5v1 });
  await register(second.urls.push, a.apiKey, 'a2', { installedMd5: md5v1 });
  await register(stack.urls.push, b.apiKey, 'b1', { installedMd5: md5v1 });
  const a1 = stream(stack.urls.push, a.apiKey, 'a1');
  const a2 = stream(second.urls.push, a.apiKey, 'a2');
  const b1 = stream(stack.urls.push, b.apiKey, 'b1');
  await Promise.all([a1, a2, b1].map((s) => s.next('status')));

  await uploadFixture(stack, a.apiKey, 'version-2.apk');
  const e1 = JSON.parse((await a1.next('version', EVENT_MS)).data) as Record<string, unknown>;
  const e2 = JSON.parse((await a2.next('version', EVENT_MS)).data) as Record<string, unknown>;
  expect(e2).toMatchObject({ package: SAMPLE, versionCode: 2, md5: await md5Of(a.id, 2) });
  expect(String(e1.url)).toBe(`${stack.urls.web}/download?package=${SAMPLE}`);

  const key = (await request(`${stack.urls.push}/api/v2/push-key`, { ca: stack.ca })).json<{
    publicKey: string;
  }>().publicKey;
  expect(verifyEvent(key, e1)).toBe(true);
  expect(verifyEvent(key, { ...e1, md5: 'f'.repeat(32) })).toBe(false);
  for (const field of Object.keys(e1).filter((k) => k !== 'signature')) {
    const altered = typeof e1[field] === 'number' ? Number(e1[field]) + 1 : `${String(e1[field])}x`;
    expect(verifyEvent(key, { ...e1, [field]: altered })).toBe(false);
  }
  expect(verifyEvent(key, { ...e1, deviceId: 'a2' })).toBe(false);

  // Back to version 1 before anyone applied version 2: exactly one giveup each.
  const before = [a1.events.length, a2.events.length];
  const put = await request(`${stack.urls.admin}/api/v2/apps/${SAMPLE}/current`, {
    method: 'PUT',
    json: { versionCode: 1 },
    headers: { authorization: `Bearer ${a.apiKey}` },
    ca: stack.ca,
  });
  expect(put.status).toBe(200);
  const g1 = JSON.parse((await a1.next('giveup', EVENT_MS, before[0])).data) as Record<
    string,
    unknown
  >;
  await a2.next('giveup', EVENT_MS, before[1]);
  expect(g1).toMatchObject({ type: 'giveup', package: SAMPLE, md5: await md5Of(a.id, 2) });
  expect(verifyEvent(key, g1)).toBe(true);
  // Both streams have their giveup: a second one would come before their end.
  expect((await endedByOwner(a.apiKey, 'a1', 'enabled', a1)).slice(before[0])).toEqual(['giveup']);
  expect((await endedByOwner(a.apiKey, 'a2', 'enabled', a2)).slice(before[1])).toEqual(['giveup']);
  expect(await endedByOwner(b.apiKey, 'b1', 'enabled', b1)).toEqual(['status']);

  // A device that reconnects later does not get it again.
  const again = stream(second.urls.push, a.apiKey, 'a1', a1.lastEventId);
  await again.next('status');
  // A replayed giveup would come right after the status that opens the stream, before its end.
  expect(await endedByOwner(a.apiKey, 'a1', 'enabled', again)).toEqual(['status']);
});

test('a device offline during a change gets the right version on reconnect, with or without Last-Event-ID', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const md5v1 = await md5Of(id, 1);
  await register(stack.urls.push, apiKey, 'late-1', { installedMd5: md5v1 });
  await register(stack.urls.push, apiKey, 'late-2', { installedMd5: md5v1 });
  const first = stream(stack.urls.push, apiKey, 'late-1');
  await first.next('status');
  const seen = first.lastEventId;
  await first.close();
  // Offline past the change: the ingest worker appends the version notice before the verdict
  // that answers this upload, so both devices reconnect after it.
  await uploadFixture(stack, apiKey, 'version-3.apk');
  const withId = stream(second.urls.push, apiKey, 'late-1', seen);
  const withoutId = stream(stack.urls.push, apiKey, 'late-2');
  for (const s of [withId, withoutId]) {
    expect(JSON.parse((await s.next('version', EVENT_MS)).data)).toMatchObject({ versionCode: 3 });
  }
  // Up to date (Last-Event-ID is the latest notice): the offer is not repeated.
  const upToDate = stream(stack.urls.push, apiKey, 'late-2', withoutId.lastEventId);
  await upToDate.next('status');
  // The offer would be sent with the status that opens the stream, before its end.
  expect(await endedByOwner(apiKey, 'late-2', 'enabled', upToDate)).toEqual(['status']);
});

test('notices are bound to account and device: two accounts with the same package, over real SSE', async () => {
  const a = await newAccount(stack);
  const b = await newAccount(stack);
  await uploadFixture(stack, a.apiKey, 'version-1.apk');
  await uploadFixture(stack, b.apiKey, 'version-1.apk');
  const md5v1 = await md5Of(a.id, 1);
  const reg = await register(stack.urls.push, a.apiKey, 'bound-a1', { installedMd5: md5v1 });
  // The device learns its account from the registration reply (over the authenticated channel).
  expect(reg.json<{ accountId: string }>().accountId).toBe(a.id);
  await register(second.urls.push, a.apiKey, 'bound-a2', { installedMd5: md5v1 });
  await register(stack.urls.push, b.apiKey, 'bound-b1', { installedMd5: md5v1 });
  const a1 = stream(stack.urls.push, a.apiKey, 'bound-a1');
  const b1 = stream(second.urls.push, b.apiKey, 'bound-b1');
  await Promise.all([a1, b1].map((s) => s.next('status')));
  await uploadFixture(stack, a.apiKey, 'version-2.apk');
  await uploadFixture(stack, b.apiKey, 'version-2.apk');
  const fromA = JSON.parse((await a1.next('version', EVENT_MS)).data) as Record<string, unknown>;
  const fromB = JSON.parse((await b1.next('version', EVENT_MS)).data) as Record<string, unknown>;
  expect(fromA).toMatchObject({ v: 2, account: a.id, package: SAMPLE, versionCode: 2 });
  expect(fromB).toMatchObject({ v: 2, account: b.id, package: SAMPLE, versionCode: 2 });

  const key = (await request(`${stack.urls.push}/api/v2/push-key`, { ca: stack.ca })).json<{
    publicKey: string;
  }>().publicKey;
  const on = (e: Record<string, unknown>, account: string, device: string, last: number | null) => {
    const r = checkNotice(
      nodeCrypto,
      key,
      'version',
      e,
      { account, package: SAMPLE, device },
      last,
      Date.now(),
    );
    return r.ok ? 'accept' : r.reason;
  };
  expect(on(fromA, a.id, 'bound-a1', null)).toBe('accept');
  // B's notice for the same package, relayed to A's device: refused.
  expect(on(fromB, a.id, 'bound-a1', null)).toBe('event addressed to another account');
  expect(on(fromA, b.id, 'bound-b1', null)).toBe('event addressed to another account');

  // A device that connects is sent its offer signed for itself, freshly: not usable elsewhere.
  const a2 = stream(second.urls.push, a.apiKey, 'bound-a2');
  const forA2 = JSON.parse((await a2.next('version', EVENT_MS)).data) as Record<string, unknown>;
  expect(forA2).toMatchObject({ v: 2, account: a.id, device: 'bound-a2', versionCode: 2 });
  expect(on(forA2, a.id, 'bound-a2', Date.parse(String(fromA.issuedAt)))).toBe('accept');
  expect(on(forA2, a.id, 'bound-a1', null)).toBe('event addressed to another device');
  // Reconnecting re-signs: the replayed offer is never older than the one accepted before.
  await a1.close();
  const again = stream(stack.urls.push, a.apiKey, 'bound-a1');
  const replayed = JSON.parse((await again.next('version', EVENT_MS)).data) as Record<
    string,
    unknown
  >;
  expect(replayed).toMatchObject({ device: 'bound-a1', md5: fromA.md5 });
  expect(Date.parse(String(replayed.issuedAt))).toBeGreaterThanOrEqual(
    Date.parse(String(fromA.issuedAt)),
  );
  expect(on(replayed, a.id, 'bound-a1', Date.parse(String(fromA.issuedAt)))).toBe('accept');
});

test('registration errors name the problem', async () => {
  const { apiKey } = await newAccount(stack);
  const bad = await register(stack.urls.push, `ak_${'q'.repeat(32)}`, 'x');
  expect(bad.status).toBe(401);
  expect(bad.json<{ error: { message: string } }>().error.message).toBe(
    'Device register failed: Invalid API Key. Probably caused by the wrong configuration.',
  );
  const unknown = await register(stack.urls.push, apiKey, 'x');
  expect(unknown.status).toBe(404);
  expect(unknown.json<{ error: { message: string } }>().error.message).toBe(
    'Device register failed: Invalid Package. Probably you never uploaded this app.',
  );
});

test('disabling a connected installation drops its stream; it reconnects disabled and gets no offers', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await register(stack.urls.push, apiKey, 'kicked', { installedMd5: await md5Of(id, 1) });
  // An enabled device on the same process as the reconnected stream: its offer proves the
  // notice was fanned out there.
  await register(stack.urls.push, apiKey, 'witness', { installedMd5: await md5Of(id, 1) });
  const witness = stream(stack.urls.push, apiKey, 'witness');
  await witness.next('status');
  const first = stream(second.urls.push, apiKey, 'kicked');
  expect(JSON.parse((await first.next('status')).data)).toMatchObject({ status: 'enabled' });
  const put = await request(`${stack.urls.admin}/api/v2/apps/${SAMPLE}/installations/kicked`, {
    method: 'PUT',
    json: { status: 'disabled' },
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(put.status).toBe(200);
  // The stream held by the other API process ends.
  await eventually('the disabled stream to end', () => first.ended, { timeoutMs: EVENT_MS });
  expect(first.ended).toBe(true);
  const again = stream(stack.urls.push, apiKey, 'kicked', first.lastEventId);
  expect(JSON.parse((await again.next('status')).data)).toMatchObject({ status: 'disabled' });
  await uploadFixture(stack, apiKey, 'version-2.apk');
  await witness.next('version', EVENT_MS);
  expect(await endedByOwner(apiKey, 'kicked', 'disabled', again)).toEqual(['status']);
});
