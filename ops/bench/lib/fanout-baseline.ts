/**
 * The fan-out benchmark's yardsticks, each in its own process (so its RSS can be read like the
 * API's), driven by the same clients:
 * - `http`, the baseline: a minimal raw Node SSE broadcaster on node:http(s). `GET
 *   /stream?deviceId=D` (any Bearer token) answers the event-stream headers and a `status` event
 *   and keeps the response; `POST /publish?bytes=B` writes one `version` event whose data is B
 *   bytes (naming each device, as apkrelay's events do) to every open response. No database, no
 *   signing, no per-session library state: what is left is TLS, sockets and Node's HTTP server.
 * - `socket`, the floor: the same two exchanges over bare sockets (node:tls, or node:net), with no
 *   HTTP server at all: it reads the request line, writes a fixed response head and keeps the
 *   socket. What a stream costs below any HTTP stack: the socket and, over TLS, OpenSSL's state.
 * Given no certificate both speak plain HTTP, like apkrelay with TLS=off.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

export interface Baseline {
  readonly pid: number;
  readonly url: string;
  stop(): Promise<void>;
}

function eventData(deviceId: string, bytes: number): string {
  const head = JSON.stringify({ type: 'version', deviceId, pad: '' });
  const pad = 'x'.repeat(Math.max(0, bytes - head.length));
  return JSON.stringify({ type: 'version', deviceId, pad });
}

/** A certificate and its key (PEM files), or null for plain HTTP. */
export type BaselineTls = { readonly certFile: string; readonly keyFile: string } | null;

/** `http`: the raw broadcaster on node:http(s); `socket`: the floor, bare sockets. */
export type BaselineKind = 'http' | 'socket';

const STREAM_HEAD =
  'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n' +
  'connection: keep-alive\r\n\r\n';
const STATUS_EVENT = `event: status\ndata: {"status":"enabled"}\nid: 0\n\n`;
const MAX_HEAD_BYTES = 16 * 1024;

function listen(server: Server): void {
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
}

/**
 * The floor: reads each connection's request head, then either keeps the socket as a stream
 * (`GET /stream?deviceId=D`, written to as a body read until close) or publishes to every kept
 * socket and answers (`POST /publish?bytes=B`). Bench-only parsing of the bench's own clients.
 */
function runSocketChild(tls: BaselineTls): void {
  const open = new Map<string, Socket>();
  let counter = 0;
  const onHead = (socket: Socket, head: string) => {
    const [method, target = '/'] = head.slice(0, head.indexOf('\r\n')).split(' ');
    const url = new URL(target, 'http://localhost');
    if (method === 'GET' && url.pathname === '/stream') {
      const deviceId = url.searchParams.get('deviceId') ?? '';
      socket.write(STREAM_HEAD + STATUS_EVENT);
      open.set(deviceId, socket);
      socket.on('close', () => {
        if (open.get(deviceId) === socket) open.delete(deviceId);
      });
    } else if (method === 'POST' && url.pathname === '/publish') {
      const bytes = Number(url.searchParams.get('bytes') ?? 0);
      const id = ++counter;
      for (const [deviceId, stream] of open) {
        stream.write(`event: version\ndata: ${eventData(deviceId, bytes)}\nid: ${id}\n\n`);
      }
      const body = JSON.stringify({ sent: open.size });
      socket.end(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n' +
          `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    } else {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    }
  };
  const onSocket = (socket: Socket) => {
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        socket.removeListener('data', onData);
        onHead(socket, head);
      } else if (head.length > MAX_HEAD_BYTES) socket.destroy();
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  };
  listen(
    tls
      ? createTlsServer(
          { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) },
          onSocket,
        )
      : createTcpServer(onSocket),
  );
  process.on('disconnect', () => {
    for (const socket of open.values()) socket.destroy();
    process.exit(0);
  });
}

function runChild(tls: BaselineTls): void {
  const open = new Map<string, ServerResponse>();
  let counter = 0;
  const handle: RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/stream') {
      const deviceId = url.searchParams.get('deviceId') ?? '';
      if (!/^Bearer \S+$/.test(req.headers.authorization ?? '') || !deviceId) {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      res.write(STATUS_EVENT);
      open.set(deviceId, res);
      res.on('close', () => {
        if (open.get(deviceId) === res) open.delete(deviceId);
      });
    } else if (req.method === 'POST' && url.pathname === '/publish') {
      const bytes = Number(url.searchParams.get('bytes') ?? 0);
      const id = ++counter;
      for (const [deviceId, stream] of open) {
        stream.write(`event: version\ndata: ${eventData(deviceId, bytes)}\nid: ${id}\n\n`);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ sent: open.size }));
    } else {
      res.writeHead(404).end();
    }
  };
  const server = tls
    ? createHttpsServer(
        { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) },
        handle,
      )
    : createHttpServer(handle);
  server.keepAliveTimeout = 0;
  listen(server);
  process.on('disconnect', () => {
    for (const res of open.values()) res.destroy();
    server.close(() => process.exit(0));
  });
}

/** Starts a yardstick (HTTPS with the given certificate, or HTTP); resolves once it listens. */
export async function startBaseline(tls: BaselineTls, kind: BaselineKind): Promise<Baseline> {
  const files = tls ? [tls.certFile, tls.keyFile] : [];
  const child: ChildProcess = fork(path.join(__dirname, 'fanout-baseline.js'), [
    `--child=${kind}`,
    ...files,
  ]);
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`baseline broadcaster exited (${String(code)})`);
    }),
  ])) as [{ port: number }];
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    if (child.connected) child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const scheme = tls ? 'https' : 'http';
  return { pid: child.pid ?? -1, url: `${scheme}://127.0.0.1:${message.port}`, stop };
}

if (require.main === module && process.argv[2]?.startsWith('--child=')) {
  const [certFile, keyFile] = process.argv.slice(3);
  const tls = certFile && keyFile ? { certFile, keyFile } : null;
  if (process.argv[2] === '--child=socket') runSocketChild(tls);
  else runChild(tls);
}
