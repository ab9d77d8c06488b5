/**
 * A webhook receiver for tests: a real HTTPS server on 127.0.0.1 (the test certificate names
 * `localhost`), recording every request with its raw body. It can be stopped and started again
 * on the same port, to play a receiver that is down for a while.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { track } from './resources';
import { testTls } from './stack';

export interface Received {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  readonly at: Date;
}

export interface Receiver {
  url: string;
  readonly received: Received[];
  /** The status the next requests are answered with (default 200). */
  status: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const tls = testTls();
  const received: Received[] = [];
  let server: Server | undefined;
  let port = 0;
  const self: Receiver = {
    url: '',
    received,
    status: 200,
    async start() {
      const s = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push({
            headers: req.headers,
            body: Buffer.concat(chunks).toString(),
            at: new Date(),
          });
          res
            .writeHead(self.status, { 'content-type': 'text/plain' })
            .end(`got it (${self.status})`);
        });
      });
      await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
      port = (s.address() as AddressInfo).port;
      server = s;
    },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    close: () => self.stop(),
  };
  await self.start();
  self.url = `https://localhost:${port}/hook`;
  self.close = track('webhook receiver', () => self.stop());
  return self;
}
