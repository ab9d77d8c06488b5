/**
 * Issue 31, finding 2: the PushLink listener (LEGACY_PUSH_PORT) over real TLS sockets.
 * - The subscribe deadline is absolute: a socket trickling bytes of a never-ending line is closed
 *   (bytes used to reset an idle timer, so it stayed open for as long as it trickled).
 * - Sockets that have not subscribed yet are bounded per client address, and all sockets in
 *   total; a refused connection is closed at once and counted in /metrics
 *   (`apkrelay_legacy_push_refused_total{reason}`); a device that subscribed no longer counts
 *   against its address (a fleet behind one NAT).
 * - The heartbeat a device asks for is clamped to LEGACY_PUSH_MAX_HEARTBEAT_SECONDS: a device
 *   asking for 86,400 s that then goes silent is closed after five clamped beats.
 */
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { PushlinkReplay } from '../../../device-client/node/pushlink-replay';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { openLegacySocket } from '../../helpers/legacy-socket';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

jest.setTimeout(180_000);
const SAMPLE = 'dev.apkrelay.sample';
const TOKEN = 'metrics-token-legacy-push-bounds';
const PER_ADDRESS = 3;
const TOTAL = 5;
let stack: TestStack;
let apiKey: string;
const sockets: PushlinkReplay[] = [];
const raw: Array<{ destroy(): void }> = [];

beforeAll(async () => {
  stack = await startStack({
    heartbeatSeconds: 1,
    metricsToken: TOKEN,
    legacyPush: {
      bounds: {
        subscribeTimeoutMs: 2_000,
        maxPendingPerAddress: PER_ADDRESS,
        maxConnections: TOTAL,
        maxHeartbeatSeconds: 1,
      },
    },
  });
  apiKey = (await newAccount(stack)).apiKey;
  await uploadFixture(stack, apiKey, 'version-1.apk');
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
  for (const s of raw.splice(0)) s.destroy();
});
afterAll(() => stack?.close());

/** A TLS connection from `localAddress`: 'open' once the handshake is done, else 'refused'. */
function connectFrom(localAddress: string): Promise<'open' | 'refused'> {
  return new Promise((resolve) => {
    const tcp = netConnect({ host: '127.0.0.1', localAddress, port: stack.legacyPushPort! });
    const s = tlsConnect({ socket: tcp, ca: stack.ca, checkServerIdentity: () => undefined });
    raw.push(s, tcp);
    s.once('secureConnect', () => resolve('open'));
    s.once('error', () => resolve('refused'));
    s.once('close', () => resolve('refused'));
  });
}

async function refusals(): Promise<Record<string, number>> {
  const r = await request(`${stack.urls.admin}/metrics`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    ca: stack.ca,
  });
  const out: Record<string, number> = {};
  for (const m of r.text.matchAll(/^apkrelay_legacy_push_refused_total\{reason="(\w+)"\} (\d+)$/gm))
    out[m[1]!] = Number(m[2]);
  return out;
}

test('bytes that never make a subscribe do not hold a socket past the subscribe deadline', async () => {
  const s = await openLegacySocket(stack, sockets);
  let closed = false;
  void s.closed.then(() => (closed = true));
  const timer = setInterval(() => s.send('{'), 200);
  try {
    await eventually('the trickling socket closed', () => closed);
  } finally {
    clearInterval(timer);
  }
  expect(s.lines).toEqual([]);
});

test('sockets not yet subscribed are bounded per address and in total, refusals counted', async () => {
  const before = await refusals();
  for (let i = 0; i < PER_ADDRESS; i++) expect(await connectFrom('127.0.0.1')).toBe('open');
  expect(await connectFrom('127.0.0.1')).toBe('refused');
  expect(await connectFrom('127.0.0.2')).toBe('open');
  expect(await connectFrom('127.0.0.2')).toBe('open');
  // TOTAL (5) open now: any address is refused.
  expect(await connectFrom('127.0.0.3')).toBe('refused');
  const after = await refusals();
  expect((after.address ?? 0) - (before.address ?? 0)).toBe(1);
  expect((after.total ?? 0) - (before.total ?? 0)).toBe(1);
});

test('a subscribed device frees its address; the heartbeat it asks for is clamped', async () => {
  // The previous test's sockets may not be closed on the server's side yet.
  const admitted = () =>
    eventually('a connection admitted', () => openLegacySocket(stack, sockets).catch(() => null));
  for (let i = 0; i < PER_ADDRESS; i++) {
    const s = await admitted();
    s.subscribe({ apiKey, package: SAMPLE, deviceId: `nat-${i}`, hash: '' });
    await s.waitForLines(1, 60_000);
    expect(s.lines[0]).toMatchObject({ mt: '0' });
  }
  // Three subscribed devices from 127.0.0.1: a fourth may still connect from there.
  const fourth = await admitted();
  fourth.subscribe({
    apiKey,
    package: SAMPLE,
    deviceId: 'nat-3',
    hash: '',
    heartbeatSeconds: 86_400,
  });
  await fourth.waitForLines(1, 60_000);
  expect(fourth.lines[0]).toMatchObject({ mt: '0' });
  // Asked for a day between beats, then silent: closed after five beats of 1 s (the cap).
  await eventually('the silent device closed', () => fourth.socket.destroyed);
});
