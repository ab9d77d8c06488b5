/**
 * A replay of the official PushLink Android SDK's push channel (../shared/spec/
 * pushlink-device-protocol.md), for tests and benchmarks: a TLS socket (chain verified, host name
 * not, as the SDK does), SDK 5.6.0's subscribe line (or 5.0.3's, without
 * `heartbeatIntervalInSeconds`, `lastDownloadHash` and `currentStrategy`), bare `\n` heartbeats,
 * the whole subscribe line again when metadata changes. It keeps every server line it reads,
 * parsed (a line that is not JSON is kept as `{ raw }`), and does not act on them: what the SDK
 * would do with a line is for the caller to check. The SDK's one-line-per-10-s reading pace is
 * not reproduced. The lines' bytes are the protocol layer's (device-client/protocol/pushlink-lines.ts),
 * the same the server reads and writes.
 */
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { connect as tcpConnect, type Socket } from 'node:net';
import {
  readServerLine,
  subscribeLine as encodeSubscribeLine,
  type ServerLine,
} from '../protocol/pushlink-lines';

export type { ServerLine };

export type SdkVersion = '5.6.0' | '5.0.3';

export interface PushlinkDevice {
  readonly apiKey: string;
  readonly package: string;
  readonly deviceId: string;
  /** MD5 of the installed APK; '' when unreadable. */
  readonly hash: string;
  /** SDK 5.6.0 only (5.0.3 does not send it). */
  readonly lastDownloadHash?: string;
  readonly strategy?: 'STATUS_BAR' | 'FRIENDLY_POPUP' | 'ANNOYING_POPUP' | 'CUSTOM' | 'NO_STRATEGY';
  readonly metadata?: Readonly<Record<string, string>>;
  readonly sdk?: SdkVersion;
  readonly heartbeatSeconds?: number;
}

/** The subscribe line the SDK writes (with its `\n`): the key sets of 5.6.0 and 5.0.3. */
export function subscribeLine(d: PushlinkDevice): string {
  const sdk = d.sdk ?? '5.6.0';
  return encodeSubscribeLine({
    deviceId: d.deviceId,
    apiKey: d.apiKey,
    package: d.package,
    hash: d.hash,
    plVersion: sdk,
    pid: '4242',
    localAdress: '/10.0.2.15:41234',
    brand: 'google',
    model: 'Pixel 3a',
    buildId: 'RQ3A.211001.001',
    osVersion: sdk === '5.0.3' ? '4.4.2' : '11',
    androidId: `aid-${d.deviceId}`,
    metadata: d.metadata ?? {},
    ...(sdk === '5.0.3'
      ? {}
      : {
          heartbeatIntervalInSeconds: d.heartbeatSeconds ?? 30,
          lastDownloadHash: d.lastDownloadHash ?? '',
          currentStrategy: d.strategy ?? 'STATUS_BAR',
        }),
  });
}

export interface ReplayOptions {
  readonly host: string;
  readonly port: number;
  /**
   * The server's certificate chain; undefined: plain TCP (a server behind a TLS proxy), unless
   * `trust` says how to verify it otherwise.
   */
  readonly ca?: string;
  /** Without `ca`: TLS verified by the system's trusted roots, or not verified at all (labs). */
  readonly trust?: 'system' | 'insecure';
  /** Lowest TLS version to offer (an Android < 5 device: TLSv1). */
  readonly minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2';
  readonly maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
}

export class PushlinkReplay {
  readonly lines: ServerLine[] = [];
  /** Resolves when the server closed the socket (or it failed). */
  readonly closed: Promise<void>;
  private buffered = '';
  private waiters: Array<() => void> = [];
  private listeners: Array<(line: ServerLine) => void> = [];

  private constructor(readonly socket: Socket | TLSSocket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        resolve();
        this.wake();
      });
    });
    socket.on('error', () => undefined);
  }

  /** Opens the socket as the SDK does (connected, handshake done). */
  static async connect(o: ReplayOptions): Promise<PushlinkReplay> {
    const tls = o.ca !== undefined || o.trust !== undefined;
    const socket = !tls
      ? tcpConnect({ host: o.host, port: o.port })
      : tlsConnect({
          host: o.host,
          port: o.port,
          ...(o.ca !== undefined ? { ca: o.ca } : {}),
          rejectUnauthorized: o.ca !== undefined || o.trust === 'system',
          checkServerIdentity: () => undefined,
          ...(o.minVersion ? { minVersion: o.minVersion } : {}),
          ...(o.maxVersion ? { maxVersion: o.maxVersion } : {}),
          ...(o.minVersion === 'TLSv1' || o.minVersion === 'TLSv1.1'
            ? { ciphers: 'DEFAULT:@SECLEVEL=0' }
            : {}),
        });
    await new Promise<void>((resolve, reject) => {
      socket.once(tls ? 'secureConnect' : 'connect', () => resolve());
      socket.once('error', reject);
    });
    return new PushlinkReplay(socket);
  }

  /** Calls `listener` with every server line read from now on. */
  onLine(listener: (line: ServerLine) => void): void {
    this.listeners.push(listener);
  }

  /** Writes raw bytes (a test's malformed input). */
  send(data: string | Buffer): void {
    this.socket.write(data);
  }

  subscribe(device: PushlinkDevice): void {
    this.send(subscribeLine(device));
  }

  heartbeat(): void {
    this.send('\n');
  }

  /**
   * Waits until `count` server lines have arrived or the socket closed (the caller checks how
   * many came); throws after `timeoutMs` with neither, naming what it waited for.
   */
  async waitForLines(count: number, timeoutMs: number): Promise<ServerLine[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length < count && !this.socket.destroyed) {
      if (Date.now() >= deadline) {
        throw new Error(
          `waited ${timeoutMs} ms for ${count} server line(s) or the socket's close; ` +
            `${this.lines.length} came: ${JSON.stringify(this.lines).slice(0, 300)}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.lines;
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) !== -1) {
      const text = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      const line = readServerLine(text);
      this.lines.push(line);
      for (const listener of this.listeners) listener(line);
    }
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
