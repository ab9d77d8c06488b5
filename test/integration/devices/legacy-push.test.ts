/**
 * The PushLink SDK's push channel (issue 18, must-hold 1 to 6), over real TLS sockets against the
 * real stack (two API processes, Redis, the database, workers): SDK 5.6.0's and 5.0.3's lines
 * replayed by device-client/node/pushlink-replay.ts, expected lines from the protocol file.
 *
 * A window in which a line must NOT arrive ends with a barrier: an invalid line on the same socket,
 * answered with an `mt 1` text. A socket's lines are handled in order, so the barrier's answer
 * proves the lines before it were handled in full (a subscribe's decision included).
 */
import {
  PushlinkReplay,
  type PushlinkDevice,
  type ServerLine,
} from '../../../device-client/node/pushlink-replay';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { connectSse } from '../../helpers/sse';
import { barrier as pushlinkBarrier } from '../../helpers/pushlink-barrier';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

jest.setTimeout(240_000);
/** A line's deadline: under 2 s unloaded (the must-hold), ten times that on a loaded machine. */
const LINE_MS = 20_000;
const SAMPLE = 'dev.apkrelay.sample';
const TEXT = {
  key: 'Device register failed: Invalid API Key. Probably caused by the wrong configuration.',
  pkg: 'Device register failed: Invalid Package. Probably you never uploaded this app.',
  disabled:
    'Device register failed: Installation disabled. The plan has no free installation for this device; its owner can enable it.',
};

const METRICS_TOKEN = 'legacy-push-metrics-token';
let stack: TestStack;
let second: Awaited<ReturnType<TestStack['startApi']>>;
/** The stack's clock runs this far ahead of the wall clock (must-hold 6 moves it). */
let clockAheadMs = 0;
const sockets: PushlinkReplay[] = [];

beforeAll(async () => {
  stack = await startStack({
    legacyPush: {},
    now: () => new Date(Date.now() + clockAheadMs),
    metricsToken: METRICS_TOKEN,
  });
  second = await stack.startApi();
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await stack.close();
});
afterEach(() => {
  // Must-hold 5: every server line, in every test, is one JSON object with mt and msg, nothing else.
  for (const s of sockets) {
    for (const line of s.lines) {
      expect(line.raw).toBeUndefined();
      expect(Object.keys(line).sort()).toEqual(['msg', 'mt']);
      expect(['0', '1']).toContain(line.mt);
      expect(typeof line.msg).toBe('string');
    }
  }
});

async function open(port = stack.legacyPushPort!): Promise<PushlinkReplay> {
  const s = await PushlinkReplay.connect({ host: '127.0.0.1', port, ca: stack.ca });
  sockets.push(s);
  return s;
}

/** Subscribes on a new socket of the given API process. */
async function device(d: PushlinkDevice, port?: number): Promise<PushlinkReplay> {
  const s = await open(port);
  s.subscribe(d);
  return s;
}

/** Every line before it was handled (test/helpers/pushlink-barrier.ts). */
const barrier = (s: PushlinkReplay) => pushlinkBarrier(s, LINE_MS);

async function nextLine(s: PushlinkReplay, index: number): Promise<ServerLine> {
  const lines = await s.waitForLines(index + 1, LINE_MS);
  if (lines.length <= index) throw new Error(`no line ${index} within ${LINE_MS} ms`);
  return lines[index]!;
}

async function md5Of(accountId: string, versionCode: number): Promise<string> {
  const apk = await stack.mongo.db
    .collection('apks')
    .findOne({ accountId, versionCode, package: SAMPLE });
  return apk!.md5 as string;
}

async function setCurrent(apiKey: string, versionCode: number): Promise<void> {
  const put = await request(`${stack.urls.admin}/api/v2/apps/${SAMPLE}/current`, {
    method: 'PUT',
    json: { versionCode },
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(put.status).toBe(200);
}

interface Listed {
  deviceId: string;
  status: string;
  online: boolean;
  channel: string;
  plVersion: string | null;
  metadata: Array<{ key: string; value: string }>;
}
async function listed(apiKey: string, query = ''): Promise<Listed[]> {
  const reply = await request(`${stack.urls.admin}/api/v2/apps/${SAMPLE}/installations${query}`, {
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(reply.status).toBe(200);
  return reply.json<{ installations: Listed[] }>().installations;
}

const mt0 = (md5: string) => ({ mt: '0', msg: md5 });
const mt1 = (msg: string) => ({ mt: '1', msg });

test('1: an outdated device is sent the current MD5, an up-to-date one nothing; heartbeats keep the socket', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk');
  const [m1, m2] = [await md5Of(id, 1), await md5Of(id, 2)];
  const outdated = await device({ apiKey, package: SAMPLE, deviceId: 'old', hash: m1 });
  expect(await nextLine(outdated, 0)).toEqual(mt0(m2));
  const upToDate = await device({ apiKey, package: SAMPLE, deviceId: 'new', hash: m2 });
  expect(await barrier(upToDate)).toEqual([]);
  for (let i = 0; i < 3; i++) [outdated, upToDate].forEach((s) => s.heartbeat());
  expect(await barrier(outdated)).toEqual([mt0(m2)]);
  expect(await barrier(upToDate)).toEqual([]);
  expect([outdated.socket.destroyed, upToDate.socket.destroyed]).toEqual([false, false]);
});

test('2: an upload made current reaches open sockets on both API processes', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const m1 = await md5Of(id, 1);
  const here = await device({ apiKey, package: SAMPLE, deviceId: 'here', hash: m1 });
  const there = await device(
    { apiKey, package: SAMPLE, deviceId: 'there', hash: m1 },
    second.legacyPushPort,
  );
  for (const s of [here, there]) expect(await barrier(s)).toEqual([]);
  // Uploaded through the first process's admin host; its verdict is the change. How fast it
  // arrives is measured by `npm run bench:legacy-push`, not bounded here on a shared machine.
  await uploadFixture(stack, apiKey, 'version-2.apk');
  const m2 = await md5Of(id, 2);
  for (const s of [here, there]) expect(await nextLine(s, 1)).toEqual(mt0(m2));
});

test('3: an abandoned download is given up exactly once (mt 0 with the installed MD5), never on reconnect', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk');
  await setCurrent(apiKey, 1);
  const [m1, m2] = [await md5Of(id, 1), await md5Of(id, 2)];
  const d = { apiKey, package: SAMPLE, deviceId: 'gave-up', hash: m1, lastDownloadHash: m2 };
  const first = await device(d);
  expect(await barrier(first)).toEqual([mt0(m1)]);
  first.close();
  await first.closed;
  for (const port of [second.legacyPushPort, stack.legacyPushPort]) {
    const again = await device(d, port);
    expect(await barrier(again)).toEqual([]);
    again.close();
  }

  // Offered live, then the owner moves back before it is applied: given up live, once.
  const live = await device({ apiKey, package: SAMPLE, deviceId: 'live', hash: m1 });
  expect(await barrier(live)).toEqual([]);
  await setCurrent(apiKey, 2);
  expect(await nextLine(live, 1)).toEqual(mt0(m2));
  await setCurrent(apiKey, 1);
  expect(await nextLine(live, 2)).toEqual(mt0(m1));
  live.close();
  const back = await device({ ...d, deviceId: 'live' }, second.legacyPushPort);
  expect(await barrier(back)).toEqual([]);
});

test('4: bad key, unknown package, over-plan: one mt 1 text each, socket kept open; 7 at once on 5 seats across two processes → 5 enabled', async () => {
  const { apiKey, id } = await newAccount(stack, 5);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const m1 = await md5Of(id, 1);
  const badKey = await device({ apiKey: 'ak_wrong', package: SAMPLE, deviceId: 'k', hash: m1 });
  const badPkg = await device({ apiKey, package: 'com.example.none', deviceId: 'p', hash: m1 });
  expect(await barrier(badKey)).toEqual([mt1(TEXT.key)]);
  expect(await barrier(badPkg)).toEqual([mt1(TEXT.pkg)]);

  const ports = [stack.legacyPushPort, second.legacyPushPort];
  const seven = await Promise.all(
    Array.from({ length: 7 }, (_, i) =>
      device({ apiKey, package: SAMPLE, deviceId: `seat-${i}`, hash: m1 }, ports[i % 2]),
    ),
  );
  const answers = await Promise.all(seven.map((s) => barrier(s)));
  expect(answers.filter((a) => a.length === 0)).toHaveLength(5);
  expect(answers.filter((a) => a.length > 0)).toEqual([[mt1(TEXT.disabled)], [mt1(TEXT.disabled)]]);
  const db = stack.mongo.db;
  expect(await db.collection('installations').countDocuments({ accountId: id })).toBe(7);
  expect(
    await db.collection('installations').countDocuments({ accountId: id, status: 'enabled' }),
  ).toBe(5);
  expect(await db.collection('seats').countDocuments({ accountId: id })).toBe(5);
  // Refused sockets stay open, and hear of no update.
  await uploadFixture(stack, apiKey, 'version-2.apk');
  const m2 = await md5Of(id, 2);
  const enabled = seven.filter((_, i) => answers[i]!.length === 0);
  for (const s of enabled) expect(await nextLine(s, 1)).toEqual(mt0(m2));
  for (const s of [badKey, badPkg, ...seven.filter((_, i) => answers[i]!.length > 0)]) {
    s.heartbeat();
    expect((await barrier(s)).filter((l) => l.mt === '0')).toEqual([]);
    expect(s.socket.destroyed).toBe(false);
  }
});

test("5: SDK 5.0.3's shorter line is served; a resubscribe with new metadata updates the installation, not a second one", async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk');
  const [m1, m2] = [await md5Of(id, 1), await md5Of(id, 2)];
  const old = { apiKey, package: SAMPLE, deviceId: 'kitkat', hash: m1, sdk: '5.0.3' as const };
  const s = await device({ ...old, metadata: { store: '1' } });
  expect(await nextLine(s, 0)).toEqual(mt0(m2));
  s.subscribe({ ...old, metadata: { store: '2', lane: '7' } });
  await barrier(s);
  const rows = (await listed(apiKey)).filter((r) => r.deviceId === 'kitkat');
  expect(rows).toMatchObject([
    {
      channel: 'pushlink',
      plVersion: '5.0.3',
      status: 'enabled',
      metadata: [
        { key: 'store', value: '2' },
        { key: 'lane', value: '7' },
      ],
    },
  ]);
  expect(await stack.mongo.db.collection('installations').countDocuments({ accountId: id })).toBe(
    1,
  );
});

test('6: a device silent for three heartbeat intervals is offline; SSE and PushLink devices are listed together', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const m1 = await md5Of(id, 1);
  const reg = await request(`${stack.urls.push}/api/v2/installations`, {
    method: 'POST',
    json: { package: SAMPLE, deviceId: 'sse-1', installedMd5: m1 },
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(reg.status).toBe(200);
  const s = await device({ apiKey, package: SAMPLE, deviceId: 'pl-1', hash: m1 });
  await barrier(s);
  const rows = await listed(apiKey);
  expect(rows.map((r) => [r.deviceId, r.channel, r.plVersion, r.online]).sort()).toEqual([
    ['pl-1', 'pushlink', '5.6.0', true],
    ['sse-1', 'sse', null, true],
  ]);
  // Three intervals (30 s each) and a little more pass without a line: offline, socket open.
  clockAheadMs += 3 * 30_000 + 1_000;
  expect((await listed(apiKey, '?status=offline')).map((r) => r.deviceId).sort()).toEqual([
    'pl-1',
    'sse-1',
  ]);
  // Its heartbeat makes it online again.
  s.heartbeat();
  await eventually('the heartbeat to count', async () =>
    (await listed(apiKey, '?status=online')).some((r) => r.deviceId === 'pl-1'),
  );
  expect(s.socket.destroyed).toBe(false);
});

test('by default (LEGACY_PUSH_TLS_MIN unset) a TLS 1.0 handshake is refused', async () => {
  await expect(
    PushlinkReplay.connect({
      host: '127.0.0.1',
      port: stack.legacyPushPort!,
      ca: stack.ca,
      minVersion: 'TLSv1',
      maxVersion: 'TLSv1',
    }),
  ).rejects.toThrow();
});

test('subscribed PushLink sockets count in apkrelay_push_streams_open, as SSE streams do, under their own channel', async () => {
  const openStreams = async () => {
    const reply = await request(`${stack.urls.admin}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      ca: stack.ca,
    });
    const of = (channel: string) => {
      const series = `apkrelay_push_streams_open{channel="${channel}"} `;
      const line = reply.text.split('\n').find((l) => l.startsWith(series));
      return Number(line?.slice(series.length));
    };
    return { sse: of('sse'), pushlink: of('pushlink') };
  };
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const before = await openStreams();
  const s = await device({ apiKey, package: SAMPLE, deviceId: 'counted', hash: '' });
  await barrier(s);
  expect(await openStreams()).toEqual({ sse: before.sse, pushlink: before.pushlink + 1 });

  // An SSE stream of the same app counts under sse.
  const reg = await request(`${stack.urls.push}/api/v2/installations`, {
    method: 'POST',
    json: { package: SAMPLE, deviceId: 'counted-sse', installedMd5: await md5Of(id, 1) },
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(reg.status).toBe(200);
  const sse = connectSse(
    `${stack.urls.push}/api/v2/stream?package=${SAMPLE}&deviceId=counted-sse`,
    {
      ca: stack.ca,
      apiKey,
    },
  );
  try {
    await sse.next('status');
    await eventually('the SSE stream to count', async () => {
      const now = await openStreams();
      return now.sse === before.sse + 1 && now.pushlink === before.pushlink + 1;
    });
  } finally {
    await sse.close();
  }
});
