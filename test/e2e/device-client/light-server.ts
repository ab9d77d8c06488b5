/**
 * A light HTTPS server speaking the device protocol (push key, registration, heartbeat, SSE
 * stream, download, exceptions) with the real push-signing code, for load tests of the
 * simulator itself: it answers from memory, so the numbers measure the client process, not a
 * database.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { derivePushKeys, publicKeyInfo, signEvent } from '../../../shared/devices/push-signing';
import { testTls } from '../../helpers/stack';

/** The account the light server's registration names and its notices are signed for. */
const LIGHT_ACCOUNT = '6745a1b2c3d4e5f6000000aa';

export interface LightServer {
  readonly url: string;
  readonly streams: Map<string, ServerResponse>;
  readonly registered: Set<string>;
  /** Sends a signed version event for `apk` to every open stream. */
  offer(pkg: string, apk: Buffer): number;
  close(): Promise<void>;
}

export async function startLightServer(): Promise<LightServer> {
  const keys = derivePushKeys(randomBytes(32));
  const streams = new Map<string, ServerResponse>();
  const registered = new Set<string>();
  let current: Buffer | null = null;
  let url = '';
  const tls = testTls();
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const u = new URL(req.url ?? '/', 'https://x');
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (u.pathname === '/api/v2/push-key') return json(200, publicKeyInfo(keys));
      if (u.pathname === '/api/v2/installations') {
        const b = JSON.parse(Buffer.concat(body).toString()) as {
          deviceId: string;
          package: string;
        };
        registered.add(b.deviceId);
        return json(200, {
          status: 'enabled',
          accountId: LIGHT_ACCOUNT,
          heartbeatSeconds: 30,
          streamUrl: `${url}/api/v2/stream?package=${b.package}&deviceId=${b.deviceId}`,
        });
      }
      if (u.pathname === '/api/v2/heartbeat')
        return json(200, { status: 'enabled', heartbeatSeconds: 30 });
      if (u.pathname === '/api/v2/exceptions')
        return json(202, { status: 'REGISTERED', reason: null, message: 'ok', budget: null });
      if (u.pathname === '/api/v2/stream') {
        const deviceId = u.searchParams.get('deviceId') ?? '';
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(
          `retry: 5000\n\nevent: status\nid: 0-0\ndata: {"status":"enabled","heartbeatSeconds":30}\n\n`,
        );
        streams.set(deviceId, res);
        res.on('close', () => streams.get(deviceId) === res && streams.delete(deviceId));
        return;
      }
      if (u.pathname === '/download' && current) {
        res.writeHead(200, { 'content-length': current.length, etag: '"x"' });
        return void res.end(current);
      }
      json(404, { error: { code: 'NOT_FOUND', message: 'no' } });
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `https://localhost:${(server.address() as AddressInfo).port}`;
  return {
    url,
    streams,
    registered,
    offer(pkg, apk) {
      current = apk;
      // One notice for every device of the app (format 2, `device: '*'`), as the fan-out signs it.
      const base = {
        v: 2,
        type: 'version',
        account: LIGHT_ACCOUNT,
        package: pkg,
        device: '*',
        apkId: 'apk-2',
        md5: createHash('md5').update(apk).digest('hex'),
        sha256: createHash('sha256').update(apk).digest('hex'),
        versionCode: 2,
        versionName: '2.0',
        size: apk.length,
        url: `${url}/download?package=${pkg}`,
        issuedAt: new Date().toISOString(),
      };
      const frame = `event: version\nid: 1-0\ndata: ${JSON.stringify(signEvent(keys, base))}\n\n`;
      for (const res of streams.values()) res.write(frame);
      return streams.size;
    },
    async close() {
      for (const res of streams.values()) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
