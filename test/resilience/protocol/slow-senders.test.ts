/**
 * Slow senders (slowloris) on each of the three listeners: headers trickled one byte at a time,
 * bodies trickled after complete headers, connections that never finish (or never start) their
 * TLS handshake. With HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS set short, every one is cut off
 * (408 where a reply is possible, then the socket closed) within the bound, while 40 of them at
 * once do not slow down answers to others.
 */
import { connect as tcpConnect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { track } from '../../helpers/resources';
import { startStack, type TestStack } from '../../helpers/stack';
import { abuseCounter, probeEachTest } from './abuse-kit';
import { openRaw, parseResponse, type RawConnection } from './raw-http';

const HEADERS_MS = 1_500;
const REQUEST_MS = 4_000;
/** Node checks the bounds every few hundred ms; the machine is shared and slow. */
const SLACK_MS = 3_000;
const counter = abuseCounter('slow-senders');

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({
    workers: false,
    listenerTimeouts: { headersMs: HEADERS_MS, requestMs: REQUEST_MS },
  });
});
afterAll(async () => {
  counter.record();
  await stack.close();
});
probeEachTest(() => stack);

type Listener = 'admin' | 'web' | 'push';
const LISTENERS: Listener[] = ['admin', 'web', 'push'];

/** A POST with a body on each host: the JSON, form and multipart parsers, and a 404. */
const BODY_ROUTES: Record<Listener, Array<{ path: string; type: string }>> = {
  admin: [
    { path: '/api/v2/accounts', type: 'application/json' },
    { path: '/exception', type: 'application/x-www-form-urlencoded' },
    { path: '/apps/api_upload', type: 'multipart/form-data; boundary=x' },
    { path: '/ui/login', type: 'application/x-www-form-urlencoded' },
  ],
  web: [{ path: '/d/some-token', type: 'application/json' }],
  push: [{ path: '/api/v2/installations', type: 'application/json' }],
};

/**
 * Trickles `bytes` one at a time every `everyMs` until the server closes the connection; returns
 * how long it stayed open and what the server said.
 */
async function trickle(connection: RawConnection, bytes: Buffer, everyMs: number) {
  const started = Date.now();
  for (let i = 0; i < bytes.length && !connection.isClosed(); i++) {
    await connection.write(bytes.subarray(i, i + 1));
    await Promise.race([sleep(everyMs, undefined, { ref: false }), connection.closed]);
  }
  await Promise.race([connection.closed, sleep(REQUEST_MS + SLACK_MS, undefined, { ref: false })]);
  const openMs = Date.now() - started;
  const closed = connection.isClosed();
  const reply = parseResponse(connection.received(), true);
  await connection.close();
  return { openMs, closed, status: reply?.status ?? null };
}

describe.each(LISTENERS)('%s listener', (listener) => {
  const url = () => stack.urls[listener];

  test('headers trickled one byte at a time: 408 and closed within HEADERS_TIMEOUT_MS', async () => {
    const head = Buffer.from(
      `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(500)}\r\n\r\n`,
    );
    const connections = await Promise.all(
      Array.from({ length: 40 }, () => openRaw(url(), stack.ca)),
    );
    counter.add(connections.length);
    const results = await Promise.all(connections.map((c) => trickle(c, head, 100)));
    for (const r of results) {
      expect(r.closed).toBe(true);
      expect(r.openMs).toBeLessThan(HEADERS_MS + SLACK_MS);
      expect(r.status).toBe(408);
    }
  });

  test.each(BODY_ROUTES[listener])(
    'a body trickled after complete headers ($path): cut off within REQUEST_TIMEOUT_MS',
    async ({ path, type }) => {
      const head = Buffer.from(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${type}\r\nContent-Length: 10000\r\n\r\n`,
      );
      const connections = await Promise.all(
        Array.from({ length: 10 }, () => openRaw(url(), stack.ca)),
      );
      counter.add(connections.length);
      const results = await Promise.all(
        connections.map(async (c) => {
          await c.write(head);
          return trickle(c, Buffer.alloc(10_000, 0x61), 100);
        }),
      );
      for (const r of results) {
        expect(r.closed).toBe(true);
        expect(r.openMs).toBeLessThan(REQUEST_MS + SLACK_MS);
        // 408 from the listener, or the route's own 4xx sent before the body was in.
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
      }
    },
  );

  test('a TLS connection that never sends a request: closed within HEADERS_TIMEOUT_MS', async () => {
    const connections = await Promise.all(
      Array.from({ length: 10 }, () => openRaw(url(), stack.ca)),
    );
    counter.add(connections.length);
    const started = Date.now();
    await Promise.all(
      connections.map((c) =>
        Promise.race([c.closed, sleep(HEADERS_MS + SLACK_MS * 2, undefined, { ref: false })]),
      ),
    );
    for (const c of connections) expect(c.isClosed()).toBe(true);
    expect(Date.now() - started).toBeLessThan(HEADERS_MS + SLACK_MS * 2);
    await Promise.all(connections.map((c) => c.close()));
  });

  test('a TLS handshake trickled one byte at a time (or never sent): closed within the bound', async () => {
    const target = new URL(url());
    counter.add(2);
    const outcomes = await Promise.all(
      [true, false].map(async (sendSomething) => {
        const socket = tcpConnect(Number(target.port), '127.0.0.1');
        const close = track('slow tcp socket', () => {
          socket.destroy();
          return Promise.resolve();
        });
        socket.on('error', () => undefined);
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        await new Promise((resolve) => socket.once('connect', resolve));
        const started = Date.now();
        // The first bytes of a TLS ClientHello record, one per 100 ms.
        const hello = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03]);
        let i = 0;
        while (!socket.destroyed && Date.now() - started < HEADERS_MS + SLACK_MS * 2) {
          if (sendSomething && i < hello.length) socket.write(hello.subarray(i, ++i));
          await Promise.race([sleep(100, undefined, { ref: false }), closed]);
        }
        const openMs = Date.now() - started;
        const wasClosed = socket.destroyed || socket.readyState === 'closed';
        await close();
        return { openMs, wasClosed };
      }),
    );
    for (const o of outcomes) {
      expect(o.wasClosed).toBe(true);
      expect(o.openMs).toBeLessThan(HEADERS_MS + SLACK_MS * 2);
    }
  });
});
