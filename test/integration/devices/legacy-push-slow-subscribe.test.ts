/**
 * The PushLink listener's subscribe timeout against a slow database (issue 18; the race fixed in
 * da0c099): a socket must send its subscribe within the timeout, but the time the subscribe's
 * registration then takes must not count against it, or a fleet reconnecting to a loaded
 * database is dropped in a loop. The database is made slow on cue by a proxy that holds what the
 * API sends it (test/helpers/tcp-proxy.ts); everything else is the real stack.
 */
import {
  type PushlinkReplay,
  type PushlinkDevice,
} from '../../../device-client/node/pushlink-replay';
import { newAccount } from '../../helpers/accounts';
import { barrier as pushlinkBarrier } from '../../helpers/pushlink-barrier';
import { serviceUrls } from '../../helpers/services';
import { startStack, type TestStack } from '../../helpers/stack';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy';
import { uploadFixture } from '../../helpers/uploads';
import { openLegacySocket } from '../../helpers/legacy-socket';

jest.setTimeout(240_000);
const SAMPLE = 'dev.apkrelay.sample';
const SUBSCRIBE_TIMEOUT_MS = 2_000;
/** Each database request then waits longer than the whole subscribe timeout. */
const DATABASE_DELAY_MS = 3_000;
/** A subscribe makes several database requests, each delayed: ten times what it takes. */
const ANSWER_MS = 150_000;

let proxy: TcpProxy;
let stack: TestStack;
const sockets: PushlinkReplay[] = [];

beforeAll(async () => {
  const { mongoUrl, redisUrl } = serviceUrls();
  const target = new URL(mongoUrl);
  proxy = await startTcpProxy(Number(target.port));
  stack = await startStack({
    mongoUrl: mongoUrl.replace(`:${target.port}`, `:${proxy.port}`),
    redisUrl,
    legacyPush: { bounds: { subscribeTimeoutMs: SUBSCRIBE_TIMEOUT_MS } },
  });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  proxy.delay(0);
  await stack.close();
  await proxy.close();
});

const open = () => openLegacySocket(stack, sockets);

test('a subscribe whose registration outlasts the subscribe timeout is served; a silent socket is not', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk');
  const md5 = async (versionCode: number) =>
    (await stack.mongo.db.collection('apks').findOne({ accountId: id, versionCode }))!
      .md5 as string;
  const [m1, m2] = [await md5(1), await md5(2)];

  proxy.delay(DATABASE_DELAY_MS);
  const silent = await open();
  const slow = await open();
  const d: PushlinkDevice = { apiKey, package: SAMPLE, deviceId: 'slow-db', hash: m1 };
  const sent = Date.now();
  slow.subscribe(d);
  // The bound is in force: the socket that never subscribes is closed.
  await silent.closed;
  const lines = await slow.waitForLines(1, ANSWER_MS);
  const took = Date.now() - sent;
  proxy.delay(0);
  expect(lines).toEqual([{ mt: '0', msg: m2 }]);
  // The subscribe was handled after its timeout had passed: the case under test did happen.
  expect(took).toBeGreaterThan(SUBSCRIBE_TIMEOUT_MS);
  expect(await pushlinkBarrier(slow, ANSWER_MS)).toEqual([{ mt: '0', msg: m2 }]);
  expect(slow.socket.destroyed).toBe(false);
});
