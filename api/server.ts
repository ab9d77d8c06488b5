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

/** Bounds on slow senders (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS). */
export interface ListenerTimeouts {
  /** Headers (and, with TLS, the handshake) must arrive within this. */
  readonly headersMs: number;
  /** The whole request, body included; the reply itself is not bounded by it. */
  readonly requestMs: number;
}

export const DEFAULT_LISTENER_TIMEOUTS: ListenerTimeouts = {
  headersMs: 20_000,
  requestMs: 3_600_000,
};

export async function listen(
  handler: RequestListener,
  options: {
    host: string;
    port: number;
    tls: TlsMaterial | undefined;
    timeouts?: ListenerTimeouts;
  },
): Promise<Listener> {
  const timeouts = options.timeouts ?? DEFAULT_LISTENER_TIMEOUTS;
  // Slow senders (slowloris) must not hold sockets: Node answers 408 and closes a connection
  // whose headers, or whole request, did not arrive in time. It checks every
  // connectionsCheckingInterval (default 30 s, far too coarse for short bounds).
  const httpOptions = {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, timeouts.headersMs / 4)),
    keepAliveTimeout: 5_000,
  };
  const server: Server = options.tls
    ? createHttpsServer(
        {
          cert: options.tls.cert,
          key: options.tls.key,
          // A TLS handshake trickled byte by byte is a slow sender too.
          handshakeTimeout: timeouts.headersMs,
          ...httpOptions,
        },
        handler,
      )
    : createHttpServer(httpOptions, handler);
  server.keepAliveTimeout = httpOptions.keepAliveTimeout;
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
