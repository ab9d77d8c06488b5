/**
 * Presence: an open push stream keeps an installation online without heartbeats, and sightings
 * (stream touches, plain heartbeats) are recorded in Redis, not by rewriting the installation's
 * document: only reported changes are written to MongoDB. Device requests read the
 * installation's card in Redis, which every writer keeps in step with the document.
 */
import { Redis } from 'ioredis';
import { newAccount } from '../../helpers/accounts';
import { eventually, eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { connectSse } from '../../helpers/sse';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

const PKG = 'dev.apkrelay.sample';
const HEARTBEAT_SECONDS = 1;
const METRICS_TOKEN = 'presence-metrics-token';
let stack: TestStack;
let clock = Date.parse('2026-11-21T10:00:00Z');
beforeAll(async () => {
  stack = await startStack({
    now: () => new Date(clock),
    heartbeatSeconds: HEARTBEAT_SECONDS,
    metricsToken: METRICS_TOKEN,
  });
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

/** The SSE streams' line of the open-streams gauge in /metrics. */
async function openStreamsLine(): Promise<string> {
  const reply = await request(`${stack.urls.admin}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    ca: stack.ca,
  });
  return (
    reply.text
      .split('\n')
      .find((l) => l.startsWith('apkrelay_push_streams_open{channel="sse"} ')) ?? ''
  );
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
  // The hub touches its open streams every beat (1 s): polled, with twenty beats' deadline.
  const touched = await eventuallyValue(
    'the hub to touch the open stream',
    () => online(apiKey),
    (ids) => ids.includes('streaming'),
    { timeoutMs: 20 * HEARTBEAT_SECONDS * 1000 },
  );
  expect(touched).toEqual(['streaming']);
  expect(await storedSeenAt(id, 'streaming')).toBe(registeredAt);

  await sse.close();
  // The API has seen the stream close (so it touches it no more) before the clock moves on.
  await eventually('the API to see the stream close', async () =>
    / 0$/m.test(await openStreamsLine()),
  );
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

test('connects and heartbeats read the card; a status change by the owner rewrites it at once', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await call(apiKey, `${stack.urls.push}/api/v2/installations`, { package: PKG, deviceId: 'c1' });
  const cards = `${stack.prefix}:installations:cards:${id}:${PKG}`;
  const redis = new Redis(stack.redisUrl);
  try {
    const card = async () => {
      const all = await redis.hgetall(cards);
      const values = Object.values(all).map((v) => JSON.parse(v) as { status: string });
      return values.map((v) => v.status);
    };
    expect(await card()).toEqual(['enabled']);

    // The owner disables it: the card says so before the reply, so the reconnecting stream and
    // the next heartbeat are told at once.
    const put = await request(`${stack.urls.admin}/api/v2/apps/${PKG}/installations/c1`, {
      method: 'PUT',
      json: { status: 'disabled' },
      headers: { authorization: `Bearer ${apiKey}` },
      ca: stack.ca,
    });
    expect(put.status).toBe(200);
    expect(await card()).toEqual(['disabled']);
    const beat = await call(apiKey, `${stack.urls.push}/api/v2/heartbeat`, {
      package: PKG,
      deviceId: 'c1',
    });
    expect(beat.json()).toEqual({ status: 'disabled', heartbeatSeconds: HEARTBEAT_SECONDS });

    // Without a card (e.g. installations registered before cards existed) the document answers
    // and the card is written back.
    await redis.del(cards);
    const sse = connectSse(`${stack.urls.push}/api/v2/stream?package=${PKG}&deviceId=c1`, {
      ca: stack.ca,
      apiKey,
    });
    expect(JSON.parse((await sse.next('status')).data)).toMatchObject({ status: 'disabled' });
    await sse.close();
    expect(await card()).toEqual(['disabled']);
  } finally {
    await redis.quit();
  }
});
