/**
 * PushLink SDK devices subscribing again (issue 18): a device whose subscribe carries the fields
 * its last registration wrote attaches without the database (shared/devices/store.ts
 * `subscribeDevice`), and everything a registration guarantees still holds: a changed field is
 * written, an owner's status change is obeyed, seats stay exact. Real TLS sockets against the real
 * stack (two API processes, Redis, the database).
 *
 * "Without the database" is observed on the document: a registration sets its `lastSeenAt` to the
 * stack's clock, which the tests move ahead between connections; an attach without one leaves it.
 * A window in which a line must not arrive ends with a barrier (test/helpers/pushlink-barrier.ts).
 */
import { PushlinkReplay, type PushlinkDevice } from '../../../device-client/node/pushlink-replay';
import { newAccount } from '../../helpers/accounts';
import { request } from '../../helpers/http';
import { barrier as pushlinkBarrier } from '../../helpers/pushlink-barrier';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

jest.setTimeout(240_000);
const LINE_MS = 20_000;
const SAMPLE = 'dev.apkrelay.sample';
const DISABLED = {
  mt: '1',
  msg: 'Device register failed: Installation disabled. The plan has no free installation for this device; its owner can enable it.',
};

let stack: TestStack;
let second: Awaited<ReturnType<TestStack['startApi']>>;
let clockAheadMs = 0;
const sockets: PushlinkReplay[] = [];

beforeAll(async () => {
  stack = await startStack({ legacyPush: {}, now: () => new Date(Date.now() + clockAheadMs) });
  second = await stack.startApi();
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await stack.close();
});

async function device(d: PushlinkDevice, port = stack.legacyPushPort!): Promise<PushlinkReplay> {
  const s = await PushlinkReplay.connect({ host: '127.0.0.1', port, ca: stack.ca });
  sockets.push(s);
  s.subscribe(d);
  return s;
}

const barrier = (s: PushlinkReplay) => pushlinkBarrier(s, LINE_MS);

async function reconnect(s: PushlinkReplay, d: PushlinkDevice, port?: number) {
  s.close();
  await s.closed;
  clockAheadMs += 60_000;
  return device(d, port);
}

async function md5Of(accountId: string, versionCode: number): Promise<string> {
  const apk = await stack.mongo.db
    .collection('apks')
    .findOne({ accountId, versionCode, package: SAMPLE });
  return apk!.md5 as string;
}

async function doc(accountId: string, deviceId: string) {
  const found = await stack.mongo.db
    .collection('installations')
    .findOne({ accountId, package: SAMPLE, deviceId });
  return found as unknown as { lastSeenAt: Date; status: string; metadata: unknown[] };
}

async function setStatus(apiKey: string, deviceId: string, status: string): Promise<void> {
  const reply = await request(
    `${stack.urls.admin}/api/v2/apps/${SAMPLE}/installations/${deviceId}`,
    {
      method: 'PUT',
      json: { status },
      headers: { authorization: `Bearer ${apiKey}` },
      ca: stack.ca,
    },
  );
  expect(reply.status).toBe(200);
}

test('a reconnect with the same fields leaves the document alone; a changed field is written', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const m1 = await md5Of(id, 1);
  const d = { apiKey, package: SAMPLE, deviceId: 'again', hash: m1, metadata: { store: '1' } };
  const first = await device(d);
  expect(await barrier(first)).toEqual([]);
  const registered = await doc(id, 'again');

  const again = await reconnect(first, d, second.legacyPushPort);
  expect(await barrier(again)).toEqual([]);
  expect((await doc(id, 'again')).lastSeenAt).toEqual(registered.lastSeenAt);

  // The same socket, new metadata (must-hold 5): registered in full.
  again.subscribe({ ...d, metadata: { store: '2' } });
  expect(await barrier(again)).toEqual([]);
  const changed = await doc(id, 'again');
  expect(changed.metadata).toEqual([{ key: 'store', value: '2' }]);
  expect(changed.lastSeenAt.getTime()).toBeGreaterThan(registered.lastSeenAt.getTime());

  // Back to the first metadata on a new socket: a changed field again, written again.
  const back = await reconnect(again, d);
  expect(await barrier(back)).toEqual([]);
  expect((await doc(id, 'again')).metadata).toEqual([{ key: 'store', value: '1' }]);

  // It still hears of an update on the socket that registered nothing.
  const quiet = await reconnect(back, d, second.legacyPushPort);
  expect(await barrier(quiet)).toEqual([]);
  await uploadFixture(stack, apiKey, 'version-2.apk');
  const m2 = await md5Of(id, 2);
  expect(await quiet.waitForLines(2, LINE_MS)).toContainEqual({ mt: '0', msg: m2 });
});

test('seats stay exact across reconnects: over plan stays disabled, the owner decides, a reconnect obeys', async () => {
  const { apiKey, id } = await newAccount(stack, 1);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const m1 = await md5Of(id, 1);
  const a = { apiKey, package: SAMPLE, deviceId: 'seat-a', hash: m1 };
  const b = { apiKey, package: SAMPLE, deviceId: 'seat-b', hash: m1 };
  let sa = await device(a);
  expect(await barrier(sa)).toEqual([]);
  let sb = await device(b, second.legacyPushPort);
  expect(await barrier(sb)).toEqual([DISABLED]);

  // Reconnecting with the same fields: still over plan, told so again.
  sb = await reconnect(sb, b);
  expect(await barrier(sb)).toEqual([DISABLED]);
  sa = await reconnect(sa, a, second.legacyPushPort);
  expect(await barrier(sa)).toEqual([]);

  // The owner moves the seat from a to b: each reconnect follows, without a second seat.
  await setStatus(apiKey, 'seat-a', 'disabled');
  await setStatus(apiKey, 'seat-b', 'enabled');
  sa = await reconnect(sa, a);
  sb = await reconnect(sb, b, second.legacyPushPort);
  expect(await barrier(sa)).toEqual([DISABLED]);
  expect(await barrier(sb)).toEqual([]);
  expect([(await doc(id, 'seat-a')).status, (await doc(id, 'seat-b')).status]).toEqual([
    'disabled',
    'enabled',
  ]);
  expect(await stack.mongo.db.collection('seats').countDocuments({ accountId: id })).toBe(1);
});
