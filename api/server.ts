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

/**
 * TLS 1.2 suites: forward-secret (ECDHE) AEAD only, no CBC, no static RSA key exchange
 * (`AES128-SHA` was accepted, issue 24). TLS 1.3 suites are all forward-secret and stay as
 * Node sets them; TLS 1.0 and 1.1 are off (Node's default minimum is 1.2).
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/**
 * How long an idle keep-alive connection stays open. A proxy in front must drop its idle
 * connections to the API sooner (ops/deploy's nginx upstreams: `keepalive_timeout`), or it may
 * send a request on one the API is closing that very moment: the request fails (nginx answers 502
 * to a POST; a GET, retried on the other process, fails as well when that one's is stale too).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

export const TLS13_CIPHERS =
  'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256';

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
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  };
  const server: Server = options.tls
    ? createHttpsServer(
        {
          cert: options.tls.cert,
          key: options.tls.key,
          minVersion: 'TLSv1.2',
          ciphers: `${TLS13_CIPHERS}:${TLS12_CIPHERS}`,
          honorCipherOrder: true,
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
