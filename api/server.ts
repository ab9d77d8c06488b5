/** HTTPS (or plain HTTP behind a TLS-terminating proxy) listeners with a forceful close. */
import { createServer as createHttpServer, type Server, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TlsMaterial } from '../shared/crypto/tls';

export interface Listener {
  readonly server: Server;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish until `deadline`, then cuts what is left. */
  close(deadlineMs: number): Promise<void>;
}

export async function listen(
  handler: RequestListener,
  options: { host: string; port: number; tls: TlsMaterial | undefined },
): Promise<Listener> {
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handler)
    : createHttpServer(handler);
  // Slow senders must not hold sockets forever.
  server.headersTimeout = 30_000;
  server.requestTimeout = 0; // uploads may legitimately take long; per-route limits apply
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    close: (deadlineMs) =>
      (closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), deadlineMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      })),
  };
}
