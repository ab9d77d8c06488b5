/**
 * One PushLink SDK socket (../shared/spec/pushlink-device-protocol.md): lines in, a registration
 * and the hub's decisions out, as `mt 0`/`mt 1` lines only (shared/devices/pushlink-protocol.ts).
 *
 * The device subscribes once per connection (and again on the same socket when its metadata
 * changes), then sends a bare `\n` every heartbeat. A subscribe registers or refreshes the
 * installation exactly as the SSE side's registration does (same store, seats, status), then the
 * socket joins the hub like an SSE stream: same decisions, same notices relayed through Redis.
 * A refused device (bad key, unknown package, disabled) is told why and its socket stays open:
 * closing it would make the SDK reconnect every 10 s.
 *
 * Bounds: a line's length, lines per second, an absolute deadline from connecting to the first
 * successful subscribe (a refused device is closed then, not at once), an idle timeout well above
 * the heartbeat (the device's clamped), and unread output (a device that stops reading is dropped
 * before the server buffers much). The listener bounds connections (connection-gate.ts).
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AppDoc } from '../../../shared/catalog/types';
import {
  installationId,
  REGISTER_TEXT,
  subscribeDevice,
  type DeviceLookups,
} from '../../../shared/devices/store';
import {
  apkLine,
  DISABLED_TEXT,
  MAX_LINE_BYTES,
  parseDeviceLine,
  textLine,
  type Subscribe,
} from '../../../shared/devices/pushlink-protocol';
import { apiKeyAccount, isAuthRateLimited, isKeyRefused } from '../../auth';
import type { ApiDeps } from '../../deps';
import { AppError } from '../../../shared/errors';
import type { Delivery, DeviceChannel } from '../channel';

/** Socket limits (legacy-listener.ts sets them from the settings). */
export interface SocketBounds {
  /**
   * A connection must subscribe within this of connecting, whatever it sends meanwhile (an
   * absolute deadline; a subscribe under way when it passes is waited for).
   */
  readonly subscribeTimeoutMs: number;
  /** Lines a device may send in one second before it is dropped (the SDK sends one per beat). */
  readonly linesPerSecond: number;
  /** Output a device may leave unread before it is dropped. */
  readonly maxUnreadBytes: number;
  /** Longest heartbeat a device may ask for; a longer one is clamped (LEGACY_PUSH_MAX_HEARTBEAT_SECONDS). */
  readonly maxHeartbeatSeconds: number;
}

export const DEFAULT_SOCKET_BOUNDS: SocketBounds = {
  subscribeTimeoutMs: 20_000,
  linesPerSecond: 20,
  maxUnreadBytes: 16 * 1024,
  maxHeartbeatSeconds: 300,
};

/** Silence allowed before a socket is closed, in heartbeat intervals (offline after three). */
const IDLE_BEATS = 5;
/** A socket records a sighting at most this often. */
const SEEN_EVERY_MS = 1_000;

const TOO_MANY_LINES = 'Device register failed: Too many lines; reconnect later.';
const TOO_LONG = `Device register failed: Invalid subscribe line. Longer than ${MAX_LINE_BYTES} bytes.`;
const OTHER_INSTALLATION =
  'Device register failed: This connection already serves another installation; reconnect to subscribe it.';
const RATE_LIMITED = 'Device register failed: Too many failed API key attempts; retry later.';
const SERVER_ERROR = 'Device register failed: Server unavailable; reconnect later.';
const TOO_MANY_NEW = 'Device register failed: Too many new devices for this app; retry later.';

interface Subscribed {
  readonly identity: string;
  readonly app: AppDoc;
  readonly installationId: string;
}

export class PushlinkSocket implements DeviceChannel {
  readonly kind = 'pushlink';
  readonly beatsWhileOpen = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private linesThisSecond = 0;
  private second = 0;
  private lastSeenAt = 0;
  private subscribed: Subscribed | undefined;
  private closing = false;
  /** Lines are handled one after the other: a resubscribe waits for the subscribe before it. */
  private queue: Promise<void> = Promise.resolve();
  private readonly deadline: NodeJS.Timeout;
  private deadlinePassed = false;
  private subscribing = false;
  private toldSubscribed = false;

  constructor(
    private readonly socket: Socket,
    private readonly deps: ApiDeps,
    private readonly lookups: DeviceLookups,
    private readonly bounds: SocketBounds,
    /** Told once, when the socket's first subscribe succeeded. */
    private readonly onSubscribed: () => void = () => undefined,
  ) {
    socket.setNoDelay(true);
    this.deadline = setTimeout(() => this.onDeadline(), bounds.subscribeTimeoutMs);
    socket.once('close', () => clearTimeout(this.deadline));
    // The idle timeout of a subscribed socket (idleMs) ends it.
    socket.on('timeout', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => socket.destroy());
  }

  /** The subscribe deadline: closes a socket that has not subscribed (nor is subscribing). */
  private onDeadline(): void {
    this.deadlinePassed = true;
    if (!this.subscribed && !this.subscribing) this.socket.destroy();
  }

  get isConnected(): boolean {
    return !this.socket.destroyed && this.socket.writable;
  }

  onceClosed(fn: () => void): void {
    if (this.socket.destroyed) fn();
    else this.socket.once('close', fn);
  }

  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  unreadBytes(): number {
    return this.socket.writableLength;
  }

  greet(status: 'enabled' | 'disabled'): void {
    if (status === 'disabled') this.write(textLine(DISABLED_TEXT));
  }

  deliver(_notices: unknown, what: Delivery): void {
    // The version offer supersedes a give-up: the SDK drops a pending download for a newer one.
    if (what.version) this.write(apkLine(what.version.md5));
    else if (what.giveup && what.installedMd5) this.write(apkLine(what.installedMd5));
  }

  /** Writes a server line; a device that leaves too much unread is dropped instead. */
  private write(line: string): void {
    if (!this.isConnected) return;
    if (this.socket.writableLength > this.bounds.maxUnreadBytes) {
      this.deps.log.warn('pushlink socket dropped: its device stopped reading');
      this.socket.destroy();
      return;
    }
    this.socket.write(line);
  }

  private onData(chunk: Buffer): void {
    if (this.closing) return;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.pending.push(chunk.subarray(start, nl));
      const line = Buffer.concat(this.pending);
      this.pending = [];
      this.pendingBytes = 0;
      start = nl + 1;
      if (!this.admit()) return;
      this.queue = this.queue.then(() => this.onLine(line)).catch((err) => this.failed(err));
    }
    const rest = chunk.subarray(start);
    this.pendingBytes += rest.length;
    if (this.pendingBytes > MAX_LINE_BYTES) return this.drop(TOO_LONG);
    if (rest.length > 0) this.pending.push(Buffer.from(rest));
  }

  /** Counts a line against the per-second bound; past it, the device is told and dropped. */
  private admit(): boolean {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.second) [this.second, this.linesThisSecond] = [second, 0];
    if (++this.linesThisSecond <= this.bounds.linesPerSecond) return true;
    this.drop(TOO_MANY_LINES);
    return false;
  }

  /** A subscribe that failed (Redis or the database down): the device reconnects and retries. */
  private failed(err: unknown): void {
    this.deps.log.warn({ err: (err as Error).message }, 'pushlink subscribe failed');
    this.drop(SERVER_ERROR);
  }

  private drop(text: string): void {
    if (this.closing) return;
    this.closing = true;
    this.write(textLine(text));
    this.pending = [];
    this.socket.end();
    this.socket.destroySoon();
  }

  private async onLine(line: Buffer): Promise<void> {
    if (!this.isConnected) return;
    const parsed = parseDeviceLine(line.at(-1) === 13 ? line.subarray(0, -1) : line);
    if (parsed.kind === 'invalid') return this.write(textLine(parsed.text));
    if (parsed.kind === 'subscribe') {
      // The subscribe has arrived: the time its registration takes (a loaded database) must not
      // count against the subscribe deadline, or a fleet reconnecting at once is dropped in a loop.
      this.subscribing = true;
      try {
        return await this.subscribe(parsed.subscribe);
      } finally {
        this.subscribing = false;
        this.afterSubscribe();
      }
    }
    await this.beat();
  }

  /** A refused subscribe after the deadline closes the socket; a first success clears it. */
  private afterSubscribe(): void {
    if (!this.subscribed) {
      if (this.deadlinePassed) this.socket.destroy();
      return;
    }
    if (this.toldSubscribed) return;
    this.toldSubscribed = true;
    clearTimeout(this.deadline);
    this.onSubscribed();
  }

  /** A line from a subscribed device: it is seen (at most one write a second). */
  private async beat(): Promise<void> {
    const s = this.subscribed;
    const now = this.deps.now();
    if (!s || now.getTime() - this.lastSeenAt < SEEN_EVERY_MS) return;
    this.lastSeenAt = now.getTime();
    const scope = { accountId: s.app.accountId, package: s.app.package };
    await this.deps.live.seen(scope, [s.installationId], now).catch(() => undefined);
  }

  private async subscribe(sub: Subscribe): Promise<void> {
    const { registration: input } = sub;
    const identity = JSON.stringify([sub.apiKey, input.package, input.deviceId]);
    if (this.subscribed && this.subscribed.identity !== identity) {
      return this.write(textLine(OTHER_INSTALLATION));
    }
    const account = await this.authenticate(sub.apiKey, input.package);
    if (!account) return;
    const app = await this.lookups.app(account.id, input.package);
    if (!app) return this.write(textLine(REGISTER_TEXT.INVALID_PACKAGE));
    const now = this.deps.now();
    const admitNew = () => this.deps.registrations.admit(sub.apiKey, app, now.getTime());
    let inst;
    try {
      inst = await subscribeDevice(this.deps, account, app, input, now, admitNew);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'DEVICE_REGISTRATIONS_RATE_LIMITED')) throw err;
      // The protocol has no Retry-After: closed, the SDK subscribes again on its 10 s cycle.
      return this.drop(TOO_MANY_NEW);
    }
    const key = installationId(account.id, input.package, input.deviceId).toHexString();
    this.subscribed = { identity, app, installationId: key };
    this.lastSeenAt = this.deps.now().getTime();
    this.socket.setTimeout(this.idleMs(sub));
    await this.deps.push.attach(
      app,
      key,
      input.deviceId,
      // What the device reports now, not what an earlier connection left in the document.
      {
        status: inst.status,
        installedMd5: input.installedMd5,
        lastDownloadedMd5: input.lastDownloadedMd5,
        metadata: inst.metadata,
      },
      this,
      '',
    );
  }

  /**
   * Silence that closes a subscribed socket: several of the longer of both heartbeats, the
   * device's clamped to LEGACY_PUSH_MAX_HEARTBEAT_SECONDS. The protocol has no way to refuse an
   * interval, so a device asking for more is served; it is closed after IDLE_BEATS clamped beats
   * of silence and reconnects on its next 10 s cycle.
   */
  private idleMs(sub: Subscribe): number {
    const asked = Math.min(sub.heartbeatSeconds ?? 0, this.bounds.maxHeartbeatSeconds);
    return IDLE_BEATS * Math.max(this.deps.limits.heartbeatSeconds, asked) * 1000;
  }

  /**
   * The account of the key (the account key or a device key of `pkg`), or null after telling the
   * device why not.
   */
  private async authenticate(apiKey: string, pkg: string) {
    const auth = { ...this.deps, accounts: this.lookups.accounts };
    const client = { socket: { remoteAddress: this.socket.remoteAddress } };
    try {
      const noHeaders = { setHeader: () => noHeaders } as unknown as Pick<
        ServerResponse,
        'setHeader'
      >;
      const account = await apiKeyAccount(auth, client, noHeaders, apiKey, {
        need: { scope: 'device', package: pkg },
      });
      if (!account) this.write(textLine(REGISTER_TEXT.INVALID_KEY));
      return account;
    } catch (err) {
      if (isKeyRefused(err)) {
        this.write(textLine(err.message));
        return null;
      }
      if (!isAuthRateLimited(err)) throw err;
      this.write(textLine(RATE_LIMITED));
      return null;
    }
  }
}
