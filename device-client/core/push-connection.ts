/**
 * The device's link to the push host: pin the push-signing key (given, or trusted on first use
 * and stored), register the installation, hold the event stream open (reconnecting with
 * exponential backoff and jitter, never sooner than the server's `retry:`, resuming with
 * `Last-Event-ID`), and send a heartbeat every `heartbeatSeconds` carrying the downloaded hash,
 * the metadata when it changed, and the last installation's outcome until the server accepts it.
 */
import { backoffDelay, retryAfterMs, type BackoffPolicy } from './backoff';
import type { EventListener } from './events';
import type { Cancel, OpenResponse, Ports } from './ports';
import { SseParser, type SseEvent } from './sse-parser';
import { coerceError } from './errors';
import type { InstallOutcome } from './install-outcome';

export interface Registration {
  readonly package: string;
  readonly deviceId: string;
  readonly installedMd5: string | null;
  readonly lastDownloadedMd5: string | null;
  readonly strategy: string;
  readonly device?: { brand?: string; model?: string; osVersion?: string; sdkInt?: number };
  readonly location?: { lat: number; lon: number };
  readonly metadata: ReadonlyArray<{ key: string; value: string }>;
}

export interface PushConnectionOptions {
  readonly ports: Ports;
  readonly pushUrl: string;
  readonly apiKey: string;
  /** A pinned key (SPKI DER, base64); absent: the first key fetched is stored and pinned. */
  readonly pushPublicKey?: string;
  readonly backoff: BackoffPolicy;
  /** Longest silence (no event, no keep-alive comment) before the stream counts as dead. */
  readonly streamIdleMs?: number;
  readonly registration: () => Registration;
  readonly emit: EventListener;
  /** `accountId`: what the registration reply named ('' if nothing: an older server). */
  readonly onEvent: (event: SseEvent, publicKey: string, accountId: string) => Promise<void>;
  readonly onStatus: (status: 'enabled' | 'disabled') => void;
  /** A registration attempt failed (network, refusal): why. */
  readonly onRegistrationFailed?: (reason: string) => void;
  /** The last installation's outcome, sent as `lastInstall` on heartbeats until one is accepted. */
  readonly lastInstall?: {
    unreported(): Promise<InstallOutcome | null>;
    reported(sent: InstallOutcome): Promise<void>;
  };
}

const KEY_KEY = 'push-key';
const LAST_ID_KEY = 'last-event-id';

export class PushConnection {
  private stopped = false;
  private attempt = 0;
  private registered = false;
  private streamUrl: string | null = null;
  private heartbeatMs = 30_000;
  private retryMs = 0;
  private timer: Cancel | undefined;
  private heartbeatTimer: Cancel | undefined;
  private response: OpenResponse | undefined;
  private publicKey: string | null = null;
  private accountId = '';
  private sentMetadata = '';

  constructor(private readonly o: PushConnectionOptions) {}

  private log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void {
    this.o.ports.logger.log(level, message);
  }

  private headers(): Record<string, string> {
    return { authorization: `Bearer ${this.o.apiKey}`, 'content-type': 'application/json' };
  }

  start(): void {
    void this.run();
  }

  private async run(): Promise<void> {
    if (this.stopped) return;
    // A 429 or 503 refusal's Retry-After: never come back sooner than the server asked.
    let waitMs = 0;
    try {
      this.publicKey ??= await this.pinKey();
      if (!this.registered) await this.register();
      await this.stream();
    } catch (err) {
      if (this.stopped) return;
      this.log('warn', `push: ${coerceError(err).message}`);
      if (!this.registered) this.o.onRegistrationFailed?.(coerceError(err).message);
      if (err instanceof Refused) {
        this.o.emit({ event: 'error', message: err.message });
        waitMs = err.retryAfterMs ?? 0;
      }
    }
    if (this.stopped) return;
    const delay = Math.max(
      this.retryMs,
      waitMs,
      backoffDelay(this.o.backoff, this.attempt, this.o.ports.clock.random()),
    );
    this.attempt++;
    this.timer = this.o.ports.clock.setTimeout(() => void this.run(), delay);
  }

  /** The reply's Retry-After when it is a 429 or 503 (the server's "not now"), else null. */
  private retryAfter(reply: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
  }): number | null {
    if (reply.status !== 429 && reply.status !== 503) return null;
    return retryAfterMs(reply.headers['retry-after'], this.o.ports.clock.now());
  }

  private async pinKey(): Promise<string> {
    if (this.o.pushPublicKey) return this.o.pushPublicKey;
    const stored = await this.o.ports.storage.read(KEY_KEY);
    if (stored) return stored;
    const reply = await this.o.ports.transport.request({
      method: 'GET',
      url: `${this.o.pushUrl}/api/v2/push-key`,
    });
    const body =
      reply.status === 200
        ? (JSON.parse(reply.text) as { algorithm?: unknown; publicKey?: unknown })
        : {};
    if (body.algorithm !== 'Ed25519' || typeof body.publicKey !== 'string') {
      throw new Error(`push key not available (HTTP ${reply.status})`);
    }
    await this.o.ports.storage.write(KEY_KEY, body.publicKey);
    this.log('info', 'push key pinned (trust on first use)');
    return body.publicKey;
  }

  private async register(): Promise<void> {
    const body = this.o.registration();
    this.sentMetadata = JSON.stringify(body.metadata);
    const reply = await this.o.ports.transport.request({
      method: 'POST',
      url: `${this.o.pushUrl}/api/v2/installations`,
      headers: this.headers(),
      body: JSON.stringify(body),
    });
    if (reply.status !== 200) {
      throw new Refused(
        `registration refused: HTTP ${reply.status} ${errorText(reply.text)}`,
        this.retryAfter(reply),
      );
    }
    const r = JSON.parse(reply.text) as {
      status: 'enabled' | 'disabled';
      accountId?: unknown;
      heartbeatSeconds?: number;
      streamUrl?: string;
    };
    this.registered = true;
    // Notices must name this account (format 2); a reply without one (an older server) leaves
    // it empty, and every notice is refused.
    this.accountId = typeof r.accountId === 'string' ? r.accountId : '';
    this.streamUrl =
      r.streamUrl ??
      `${this.o.pushUrl}/api/v2/stream?package=${encodeURIComponent(body.package)}&deviceId=${encodeURIComponent(body.deviceId)}`;
    if (typeof r.heartbeatSeconds === 'number' && r.heartbeatSeconds > 0)
      this.heartbeatMs = r.heartbeatSeconds * 1000;
    this.log('info', `registered: ${r.status}`);
    this.o.emit({ event: 'registered', status: r.status });
    this.o.onStatus(r.status);
    this.scheduleHeartbeat();
  }

  private async stream(): Promise<void> {
    const lastId = await this.o.ports.storage.read(LAST_ID_KEY);
    const headers: Record<string, string> = { ...this.headers(), accept: 'text/event-stream' };
    delete headers['content-type'];
    if (lastId) headers['last-event-id'] = lastId;
    const res = await this.o.ports.transport.open({ method: 'GET', url: this.streamUrl!, headers });
    if (this.stopped) return res.close();
    this.response = res;
    if (res.status !== 200) {
      res.close();
      if (res.status === 404) this.registered = false;
      throw new Refused(`event stream refused: HTTP ${res.status}`, this.retryAfter(res));
    }
    const parser = new SseParser();
    const decoder = new TextDecoder();
    // A stream silent for longer than the server's keep-alive period is dead: reconnect.
    let watchdog: Cancel | undefined;
    const arm = () => {
      watchdog?.();
      watchdog = this.o.ports.clock.setTimeout(() => {
        this.log('warn', 'event stream silent; reconnecting');
        res.close();
      }, this.o.streamIdleMs ?? 90_000);
    };
    arm();
    try {
      for await (const chunk of res.body) {
        arm();
        for (const event of parser.feed(decoder.decode(chunk, { stream: true }))) {
          this.attempt = 0; // a working stream resets the backoff
          await this.o.onEvent(event, this.publicKey!, this.accountId);
          if (event.id !== null) await this.o.ports.storage.write(LAST_ID_KEY, event.id);
        }
        if (parser.retryMs !== null) this.retryMs = parser.retryMs;
        if (this.stopped) break;
      }
    } finally {
      watchdog?.();
      this.response = undefined;
      res.close();
      // Every event read was handled above: observers may take the end as a marker.
      if (!this.stopped) this.o.emit({ event: 'stream-ended' });
    }
    this.log('info', 'event stream ended; reconnecting');
  }

  private scheduleHeartbeat(): void {
    this.heartbeatTimer?.();
    this.heartbeatTimer = this.o.ports.clock.setTimeout(
      () => void this.heartbeat(),
      this.heartbeatMs,
    );
  }

  async heartbeat(): Promise<void> {
    if (this.stopped) return;
    const r = this.o.registration();
    const metadata = JSON.stringify(r.metadata);
    try {
      const outcome = (await this.o.lastInstall?.unreported()) ?? null;
      const body = {
        package: r.package,
        deviceId: r.deviceId,
        installedMd5: r.installedMd5,
        lastDownloadedMd5: r.lastDownloadedMd5,
        ...(metadata !== this.sentMetadata ? { metadata: r.metadata } : {}),
        ...(outcome ? { lastInstall: outcome } : {}),
      };
      const reply = await this.o.ports.transport.request({
        method: 'POST',
        url: `${this.o.pushUrl}/api/v2/heartbeat`,
        headers: this.headers(),
        body: JSON.stringify(body),
      });
      if (reply.status === 200) {
        this.sentMetadata = metadata;
        if (outcome) await this.o.lastInstall?.reported(outcome);
        const s = JSON.parse(reply.text) as { status?: 'enabled' | 'disabled' };
        if (s.status) this.o.onStatus(s.status);
      } else if (reply.status === 404) {
        this.registered = false;
      }
    } catch (err) {
      this.log('debug', `heartbeat failed: ${coerceError(err).message}`);
    }
    this.scheduleHeartbeat();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.();
    this.heartbeatTimer?.();
    this.response?.close();
  }
}

class Refused extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

function errorText(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    return body.error?.message ?? text.slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
}
