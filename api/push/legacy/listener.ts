/**
 * The legacy push listener (LEGACY_PUSH_PORT): TLS over TCP carrying the PushLink SDK's
 * newline-delimited JSON (pushlink-socket.ts). Same certificate as the HTTPS hosts; TLS 1.2 and
 * up unless the operator admits TLS 1.0/1.1 (LEGACY_PUSH_TLS_MIN) for Android < 5 devices. With
 * TLS=off it speaks plain TCP behind the operator's TLS-terminating proxy. Off by default.
 * Connections are admitted within bounds (connection-gate.ts), refusals counted in /metrics.
 */
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type SecureVersion } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { TlsMaterial } from '../../../shared/crypto/tls';
import type { DeviceLookups } from '../../../shared/devices/store';
import type { ApiDeps } from '../../deps';
import { TLS12_CIPHERS, TLS13_CIPHERS } from '../../server';
import { ConnectionGate, type Admitted } from './connection-gate';
import { DEFAULT_SOCKET_BOUNDS, PushlinkSocket, type SocketBounds } from './pushlink-socket';

export interface LegacyPushListener {
  readonly port: number;
  /** Stops accepting, ends the sockets, and cuts what is left at the deadline. */
  close(deadlineMs: number): Promise<void>;
}

export interface LegacyPushOptions {
  readonly host: string;
  readonly port: number;
  /** Undefined: plain TCP (TLS=off). */
  readonly tls: TlsMaterial | undefined;
  /** Lowest TLS version admitted (LEGACY_PUSH_TLS_MIN); default TLSv1.2. */
  readonly tlsMin?: SecureVersion;
  readonly bounds?: Partial<LegacyPushBounds>;
}

/** The socket bounds, and the listener's own: connections in total, and not yet subscribed per address. */
export interface LegacyPushBounds extends SocketBounds {
  /** Open connections in total (LEGACY_PUSH_MAX_CONNECTIONS). */
  readonly maxConnections: number;
  /** Connections of one client address that have not subscribed yet (LEGACY_PUSH_MAX_PENDING_PER_ADDRESS). */
  readonly maxPendingPerAddress: number;
}

export const DEFAULT_LEGACY_PUSH_BOUNDS: LegacyPushBounds = {
  ...DEFAULT_SOCKET_BOUNDS,
  maxConnections: 20_000,
  maxPendingPerAddress: 32,
};

/**
 * Suites for TLS 1.0/1.1 clients (no AEAD there): forward-secret CBC only, admitted only when the
 * operator lowers the minimum; OpenSSL 3 refuses these versions below security level 0.
 */
const OLD_TLS_CIPHERS = [
  'ECDHE-ECDSA-AES128-SHA',
  'ECDHE-RSA-AES128-SHA',
  'ECDHE-ECDSA-AES256-SHA',
  'ECDHE-RSA-AES256-SHA',
].join(':');

function createServer(options: LegacyPushOptions, onSocket: (s: Socket) => void): Server {
  if (!options.tls) return createTcpServer(onSocket);
  const min = options.tlsMin ?? 'TLSv1.2';
  const old = min === 'TLSv1' || min === 'TLSv1.1';
  return createTlsServer(
    {
      cert: options.tls.cert,
      key: options.tls.key,
      minVersion: min,
      ciphers: `${TLS13_CIPHERS}:${TLS12_CIPHERS}${old ? `:${OLD_TLS_CIPHERS}:@SECLEVEL=0` : ''}`,
      honorCipherOrder: true,
      handshakeTimeout:
        options.bounds?.subscribeTimeoutMs ?? DEFAULT_SOCKET_BOUNDS.subscribeTimeoutMs,
    },
    onSocket,
  );
}

export async function listenLegacyPush(
  deps: ApiDeps,
  lookups: DeviceLookups,
  options: LegacyPushOptions,
): Promise<LegacyPushListener> {
  const bounds = { ...DEFAULT_LEGACY_PUSH_BOUNDS, ...options.bounds };
  const sockets = new Set<Socket>();
  const gate = new ConnectionGate(bounds);
  /** Admitted connections by their remote end, until their TLS socket (or itself) takes over. */
  const admitted = new Map<string, Admitted>();
  const remote = (s: Socket) => `${s.remoteAddress}|${s.remotePort}`;
  const server = createServer(options, (socket) => {
    const entry = admitted.get(remote(socket));
    if (socket.destroyed || !entry) return void socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    new PushlinkSocket(socket, deps, lookups, bounds, () => entry.subscribed());
  });
  // First of the 'connection' listeners: a refused connection costs no TLS handshake.
  server.prependListener('connection', (raw: Socket) => {
    const verdict = gate.admit(raw.remoteAddress ?? 'unknown');
    if (typeof verdict === 'string') {
      deps.metrics.legacyPushRefused.inc({ reason: verdict });
      return void raw.destroy();
    }
    const key = remote(raw);
    admitted.set(key, verdict);
    raw.once('close', () => {
      admitted.delete(key);
      verdict.closed();
    });
  });
  // A failed handshake (a scanner, an HTTP client) only ends that connection.
  server.on('tlsClientError', (_err, socket: Socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    close: (deadlineMs) =>
      (closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => sockets.forEach((s) => s.destroy()), deadlineMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        // The hub ends its sockets on closing; those that never subscribed end here.
        sockets.forEach((s) => s.end());
      })),
  };
}
