/**
 * Presence: an open push stream keeps an installation online without heartbeats, and sightings
 * (stream touches, plain heartbeats) are recorded in Redis, not by rewriting the installation's
 * document: only reported changes are written to MongoDB.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { newAccount } from '../../helpers/accounts';
import { request } from '../../helpers/http';
import { connectSse } from '../../helpers/sse';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

const PKG = 'dev.apkrelay.sample';
const HEARTBEAT_SECONDS = 1;
let stack: TestStack;
let clock = Date.parse('2026-11-21T10:00:00Z');
beforeAll(async () => {
  stack = await startStack({ now: () => new Date(clock), heartbeatSeconds: HEARTBEAT_SECONDS });
});
afterAll(() => stack.close());

const call = (apiKey: string, url: string, json?: unknown) =>
  request(url, {
    method: json === undefined ? 'GET' : 'POST',
    ...(json === undefined ? {} : { json }),
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });

async function online(apiKey: string): Promise<string[]> {
  const reply = await call(
    apiKey,
    `${stack.urls.admin}/api/v2/apps/${PKG}/installations?status=online`,
  );
  return reply
    .json<{ installations: Array<{ deviceId: string }> }>()
    .installations.map((i) => i.deviceId);
}

const storedSeenAt = async (accountId: string, deviceId: string) =>
  (
    (await stack.mongo.db.collection('installations').findOne({ accountId, deviceId }))
      ?.lastSeenAt as Date
  ).getTime();

test('an open stream keeps its installation online; once closed, three missed beats make it offline', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  for (const deviceId of ['streaming', 'silent']) {
    const reg = await call(apiKey, `${stack.urls.push}/api/v2/installations`, {
      package: PKG,
      deviceId,
    });
    expect(reg.status).toBe(200);
  }
  const registeredAt = await storedSeenAt(id, 'streaming');
  const sse = connectSse(`${stack.urls.push}/api/v2/stream?package=${PKG}&deviceId=streaming`, {
    ca: stack.ca,
    apiKey,
  });
  await sse.next('status');
  clock += 10_000; // ten beats later: only the open stream keeps its installation online
  await sleep(HEARTBEAT_SECONDS * 1000 * 2); // the hub touches its open streams every beat
  expect(await online(apiKey)).toEqual(['streaming']);
  expect(await storedSeenAt(id, 'streaming')).toBe(registeredAt);

  await sse.close();
  await sleep(300);
  clock += 2_000;
  expect(await online(apiKey)).toEqual(['streaming']);
  clock += 2_000; // four beats since the stream closed
  expect(await online(apiKey)).toEqual([]);
});

test('a heartbeat is a sighting; the document is written only when the device reports a change', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const beat = (extra: Record<string, unknown> = {}) =>
    call(apiKey, `${stack.urls.push}/api/v2/heartbeat`, { package: PKG, deviceId: 'hb', ...extra });
  await call(apiKey, `${stack.urls.push}/api/v2/installations`, {
    package: PKG,
    deviceId: 'hb',
    metadata: { store: 'Lisbon-3' },
  });
  const registeredAt = await storedSeenAt(id, 'hb');

  clock += 10_000;
  expect((await beat({ metadata: { store: 'Lisbon-3' } })).status).toBe(200);
  expect(await online(apiKey)).toEqual(['hb']);
  expect(await storedSeenAt(id, 'hb')).toBe(registeredAt);

  clock += 1_000;
  expect((await beat({ installedMd5: 'a'.repeat(32) })).status).toBe(200);
  const doc = await stack.mongo.db
    .collection('installations')
    .findOne({ accountId: id, deviceId: 'hb' });
  expect(doc).toMatchObject({
    installedMd5: 'a'.repeat(32),
    metadata: [{ key: 'store', value: 'Lisbon-3' }],
  });
  expect((doc!.lastSeenAt as Date).getTime()).toBe(clock);
});
