/**
 * Issue 31, finding 1: one POST of a delivery (shared/webhooks/deliver.ts) against real slow
 * HTTPS receivers on loopback. WEBHOOK_TIMEOUT_MS is one deadline over connect, headers and body
 * (a receiver trickling a byte every 1.5 s with the deadline at 2 s is cut off after at most two
 * bytes, however long it would go on), and at most EXCERPT_BYTES (512, docs/webhooks.md) of a
 * reply are read: a reply that never ends is not waited for once they are in.
 */
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { AddressInfo, Server, Socket } from 'node:net';
import { postPinned, type DeliverOptions } from '../../../shared/webhooks/deliver';
import { eventually } from '../../helpers/eventually';
import { track } from '../../helpers/resources';
import { testTls } from '../../helpers/stack';

jest.setTimeout(60_000);

const TRICKLE_MS = 1_500;
const OPTIONS: DeliverOptions = { allowPrivate: true, timeoutMs: 2_000, ca: testTls().cert };
const ADDRESS = { address: '127.0.0.1', family: 4 };

interface Trickle {
  /** Bytes the receiver had written when the client hung up; null while it has not. */
  sentAtClose: number | null;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Every socket a receiver accepted is destroyed when it closes (it would trickle on). */
async function listening(server: Server): Promise<string> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = track('slow receiver', async () => {
    sockets.forEach((s) => s.destroy());
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  closers.push(close);
  return `https://localhost:${(server.address() as AddressInfo).port}/hook`;
}

/** Writes `text` one byte every TRICKLE_MS on `socket` (never ending), counting into `state`. */
function trickle(write: (b: string) => boolean, onClose: (f: () => void) => void, text: string) {
  const state: Trickle = { sentAtClose: null };
  let sent = 0;
  const timer = setInterval(() => {
    write(text[sent % text.length]!);
    sent += 1;
  }, TRICKLE_MS);
  onClose(() => {
    clearInterval(timer);
    state.sentAtClose = sent;
  });
  return state;
}

test('a reply body trickled a byte every 1.5 s is cut at the 2 s deadline', async () => {
  let state: Trickle | undefined;
  const server = createHttpsServer(testTls(), (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.flushHeaders();
    state = trickle(
      (b) => res.write(b),
      (f) => res.socket!.once('close', f),
      'ok',
    );
  });
  const url = new URL(await listening(server));
  await expect(postPinned(url, ADDRESS, {}, '{}', OPTIONS)).rejects.toThrow(/2000 ms/);
  // Hung up at the deadline: by 2 s the receiver had sent one byte (at 1.5 s); two if late.
  const sent = await eventually('the receiver sees the hang-up', () => state?.sentAtClose ?? null);
  expect(sent).toBeLessThanOrEqual(2);
});

test('a status line trickled a byte every 1.5 s is cut at the 2 s deadline', async () => {
  let state: Trickle | undefined;
  const server = createTlsServer(testTls(), (socket: TLSSocket) => {
    socket.resume();
    state = trickle(
      (b) => socket.write(b),
      (f) => socket.once('close', f),
      `HTTP/1.1 200 OK\r\nx-slow: ${'a'.repeat(100)}\r\n`,
    );
  });
  const url = new URL(await listening(server));
  await expect(postPinned(url, ADDRESS, {}, '{}', OPTIONS)).rejects.toThrow(/2000 ms/);
  const sent = await eventually('the receiver sees the hang-up', () => state?.sentAtClose ?? null);
  expect(sent).toBeLessThanOrEqual(2);
});

test('of a reply that never ends, the first 512 bytes are read and the rest is not awaited', async () => {
  const server = createHttpsServer(testTls(), (req, res) => {
    req.resume();
    res.writeHead(201, { 'content-type': 'text/plain' });
    res.write('a'.repeat(300));
    res.write('b'.repeat(300));
    // ...and never ends.
  });
  const url = new URL(await listening(server));
  const reply = await postPinned(url, ADDRESS, {}, '{}', { ...OPTIONS, timeoutMs: 60_000 });
  expect(reply.statusCode).toBe(201);
  expect(reply.excerpt).toBe('a'.repeat(300) + 'b'.repeat(212));
});
