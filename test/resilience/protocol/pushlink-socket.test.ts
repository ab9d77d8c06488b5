/**
 * Abuse of the PushLink SDK's push listener (LEGACY_PUSH_PORT) over real TLS sockets: malformed,
 * oversized, non-UTF-8 and flooding lines, seeded random bytes, plain text where TLS is expected.
 * Each must be answered with an `mt 1` text or dropped, never crash the API (the three hosts keep
 * answering, a well-formed device is still served), and every line the server writes is one JSON
 * object with `mt` and `msg` (issue 18, must-hold 5).
 */
import { connect } from 'node:net';
import { type PushlinkReplay, type ServerLine } from '../../../device-client/node/pushlink-replay';
import { MAX_LINE_BYTES } from '../../../shared/devices/pushlink-protocol';
import { newAccount } from '../../helpers/accounts';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { abuseCounter, probeEachTest } from './abuse-kit';
import { openLegacySocket } from '../../helpers/legacy-socket';

const SAMPLE = 'dev.apkrelay.sample';
/** How long an answer may take on a loaded 2-core machine (unloaded: milliseconds). */
const ANSWER_MS = 20_000;
const counter = abuseCounter('pushlink-socket');
const PREFIX = 'Device register failed: Invalid subscribe line.';

let stack: TestStack;
let apiKey: string;
const sockets: PushlinkReplay[] = [];
beforeAll(async () => {
  stack = await startStack({ legacyPush: {} });
  apiKey = (await newAccount(stack)).apiKey;
  await uploadFixture(stack, apiKey, 'version-1.apk');
});
afterAll(async () => {
  counter.record();
  for (const s of sockets) s.close();
  await stack.close();
});
probeEachTest(() => stack);
afterEach(() => {
  for (const s of sockets) for (const line of s.lines) expectServerLine(line);
  for (const s of sockets.splice(0)) s.close();
});

function expectServerLine(line: ServerLine): void {
  expect(line.raw).toBeUndefined();
  expect(Object.keys(line).sort()).toEqual(['msg', 'mt']);
  expect(['0', '1']).toContain(line.mt);
  expect(typeof line.msg).toBe('string');
}

const open = () => openLegacySocket(stack, sockets);

/** Sends `input` on a new socket; returns the first answer and whether the socket stayed open. */
async function answer(input: string | Buffer): Promise<{ msg: unknown; open: boolean }> {
  counter.add();
  const s = await open();
  s.send(input);
  const [first] = await s.waitForLines(1, ANSWER_MS);
  if (!first) throw new Error(`no answer to ${JSON.stringify(String(input).slice(0, 80))}`);
  // A dropped socket is closed right after its answer; an open one answers a heartbeat's barrier.
  s.send('x\n');
  await Promise.race([s.closed, s.waitForLines(2, ANSWER_MS)]);
  return { msg: first.msg, open: !s.socket.destroyed };
}

/** A well-formed device is served: the API survived what came before. */
async function expectServed(): Promise<void> {
  const s = await open();
  s.subscribe({ apiKey, package: SAMPLE, deviceId: 'healthy', hash: '' });
  const [line] = await s.waitForLines(1, ANSWER_MS);
  expect(line).toMatchObject({ mt: '0' });
}

test.each([
  ['not JSON', 'hello\n', `${PREFIX} Not JSON.`],
  ['a JSON array', '[1,2,3]\n', `${PREFIX} Not a JSON object.`],
  ['a JSON string', '"subscribe"\n', `${PREFIX} Not a JSON object.`],
  ['deep nesting', `${'['.repeat(30_000)}${']'.repeat(30_000)}\n`, `${PREFIX} Not a JSON object.`],
  [
    'wrong types',
    '{"apiKey":1,"package":[],"deviceId":{}}\n',
    `${PREFIX} package must be a string.`,
  ],
  [
    'a prototype key',
    '{"__proto__":{"apiKey":"x"},"package":"a.b","deviceId":"d"}\n',
    `${PREFIX} apiKey is required.`,
  ],
  [
    'non-UTF-8 bytes',
    Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d, 0x0a]),
    `${PREFIX} Not UTF-8.`,
  ],
  ['an overlong UTF-8 NUL', Buffer.from([0xc0, 0x80, 0x0a]), `${PREFIX} Not UTF-8.`],
])('%s is answered with an mt 1 text; the socket stays open', async (_name, input, text) => {
  expect(await answer(input)).toEqual({ msg: text, open: true });
  await expectServed();
});

test('a line longer than the bound (no newline yet) is answered and the socket dropped', async () => {
  expect(await answer(Buffer.alloc(MAX_LINE_BYTES + 10, 0x61))).toEqual({
    msg: `${PREFIX} Longer than ${MAX_LINE_BYTES} bytes.`,
    open: false,
  });
  await expectServed();
});

test('a flood of lines is answered once and dropped', async () => {
  const s = await open();
  counter.add();
  s.send('\n'.repeat(10_000));
  await s.closed;
  expect(s.lines).toEqual([
    { mt: '1', msg: 'Device register failed: Too many lines; reconnect later.' },
  ]);
  await expectServed();
});

test('seeded random bytes: each input answered or dropped, never a non-JSON line', async () => {
  let seed = 0x5eed;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32;
  const outcomes: Record<string, number> = {};
  for (let i = 0; i < 100; i++) {
    const bytes = Buffer.from(
      Array.from({ length: 1 + Math.floor(random() * 400) }, () => Math.floor(random() * 256)),
    );
    counter.add();
    const s = await open();
    s.send(Buffer.concat([bytes, Buffer.from('\n')]));
    // Returns on the first line or the server's close; throws, naming the wait, on neither.
    const lines = await s.waitForLines(1, ANSWER_MS).catch((err: Error) => {
      throw new Error(`input ${i} (${bytes.toString('hex').slice(0, 40)}…): ${err.message}`);
    });
    // Random bytes are never a subscribe: any answer is a refusal (mt 1).
    const outcome =
      lines.length > 0 ? `answered mt ${lines.map((l) => l.mt).join(',')}` : 'dropped';
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    s.close();
  }
  expect(Object.keys(outcomes).filter((o) => !/^(answered mt 1(,1)*|dropped)$/.test(o))).toEqual(
    [],
  );
  expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(100);
  await expectServed();
});

test('plain text where TLS is expected only ends that connection', async () => {
  counter.add();
  const socket = connect({ host: '127.0.0.1', port: stack.legacyPushPort! });
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise((resolve) => socket.once('close', resolve));
  await expectServed();
});
