/**
 * The fan-out benchmark's floor: a minimal raw Node SSE broadcaster in its own process (so its RSS
 * can be read like the API's). `GET /stream?deviceId=D` (any Bearer token) answers the event-stream
 * headers and a `status` event and keeps the response; `POST /publish?bytes=B` writes one `version`
 * event whose data is B bytes (naming each device, as apkrelay's events do) to every open response.
 * No database, no signing, no per-session library state: what is left is TLS, sockets and Node.
 * Given no certificate it speaks plain HTTP (http.createServer), like apkrelay with TLS=off.
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
import path from 'node:path';

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
      res.write(`event: status\ndata: {"status":"enabled"}\nid: 0\n\n`);
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
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.on('disconnect', () => {
    for (const res of open.values()) res.destroy();
    server.close(() => process.exit(0));
  });
}

/** Starts the broadcaster (HTTPS with the given certificate, or HTTP); resolves once it listens. */
export async function startBaseline(tls: BaselineTls): Promise<Baseline> {
  const files = tls ? [tls.certFile, tls.keyFile] : [];
  const child: ChildProcess = fork(path.join(__dirname, 'fanout-baseline.js'), [
    '--child',
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

if (require.main === module && process.argv[2] === '--child') {
  const [certFile, keyFile] = process.argv.slice(3);
  runChild(certFile && keyFile ? { certFile, keyFile } : null);
}
