/**
 * Exception delivery, after Sentry's offline transport: a persistent, bounded queue (oldest
 * dropped with a log line when full), one report in flight at a time, the report that failed
 * stays at the front, exponential backoff (capped) after network failures and 5xx, `Retry-After`
 * honoured on 429/503, and the server's budget hint honoured (none remaining: hold the queue
 * until a slot frees). Statuses in the log are exactly REGISTERED, QUEUED and LOST. Identical
 * reports (same fingerprint) are not sent twice. Nothing is sent before the installation's first
 * registration of this run is answered: the service takes reports only from registered
 * installations, so one sent earlier would be LOST. While registration fails, reports are QUEUED.
 */
import { backoffDelay, type BackoffPolicy } from './backoff';
import { judgeReportReply } from './exception-verdict';
import type { EventListener } from './events';
import type { Cancel, Ports } from './ports';
import { coerceError } from './errors';

export interface ExceptionBody {
  readonly package: string;
  readonly hash: string | null;
  readonly deviceId: string;
  readonly stack: readonly string[];
  readonly handled: boolean;
  readonly metadata: ReadonlyArray<{ key: string; value: string }>;
  readonly extra: ReadonlyArray<{ key: string; value: string }>;
}

interface Item {
  readonly fingerprint: string;
  readonly body: ExceptionBody;
  queuedLogged: boolean;
}

export interface ExceptionQueueOptions {
  readonly ports: Ports;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly backoff: BackoffPolicy;
  readonly emit: EventListener;
  maxSize: number;
}

const QUEUE_KEY = 'exceptions-queue';
const SENT_KEY = 'exceptions-sent';
const SENT_KEPT = 500;

export class ExceptionQueue {
  private items: Item[] = [];
  private sent: string[] = [];
  private attempt = 0;
  private sending = false;
  private timer: Cancel | undefined;
  private closed = false;
  /** Until the saved queue is read, nothing is sent and nothing overwrites it. */
  private loaded = false;
  private writes: Promise<void> = Promise.resolve();
  private waiters: Array<() => void> = [];
  /** Until the push connection's registration is answered, nothing is sent. */
  private registered = false;
  /** Why the last registration attempt failed, while none succeeded; null when none failed. */
  private unregisteredBecause: string | null = null;

  constructor(private readonly o: ExceptionQueueOptions) {}

  get size(): number {
    return this.items.length;
  }

  async load(): Promise<void> {
    const [queue, sent] = await Promise.all([
      this.o.ports.storage.read(QUEUE_KEY),
      this.o.ports.storage.read(SENT_KEY),
    ]);
    const saved = queue ? (JSON.parse(queue) as Item[]) : [];
    this.sent = sent ? (JSON.parse(sent) as string[]) : [];
    // Reports made between start and this load may repeat saved or sent ones: kept once.
    const known = new Set([...this.sent, ...saved.map((i) => i.fingerprint)]);
    const fresh = this.items.filter((i) => !known.has(i.fingerprint));
    if (fresh.length < this.items.length) {
      this.log('info', `${this.items.length - fresh.length} identical exception(s) not sent twice`);
    }
    this.items = [...saved.map((i) => ({ ...i, queuedLogged: false })), ...fresh];
    this.loaded = true;
    this.trim();
    void this.persist();
    this.pump();
  }

  private log(level: 'info' | 'warn' | 'error', message: string): void {
    this.o.ports.logger.log(level, message);
  }

  /** Persists the queue; writes are chained so the last state always lands last. */
  private persist(sync = false): Promise<void> {
    if (!this.loaded) return this.writes;
    const queue = JSON.stringify(this.items);
    const sent = JSON.stringify(this.sent);
    const { storage } = this.o.ports;
    if (sync && storage.writeSync) {
      storage.writeSync(QUEUE_KEY, queue);
      return this.writes;
    }
    this.writes = this.writes
      .then(() => storage.write(QUEUE_KEY, queue))
      .then(() => storage.write(SENT_KEY, sent))
      .catch((err: unknown) =>
        this.log('error', `exception queue not saved: ${coerceError(err).message}`),
      );
    return this.writes;
  }

  private trim(): void {
    while (this.items.length > this.o.maxSize) {
      const dropped = this.items.shift()!;
      this.log(
        'warn',
        `exception queue full (${this.o.maxSize}): dropped the oldest report ${dropped.fingerprint.slice(0, 12)}`,
      );
    }
  }

  setMaxSize(size: number): void {
    if (!Number.isInteger(size) || size < 1)
      throw new TypeError('the exception queue size must be a whole number, at least 1');
    this.o.maxSize = size;
    this.trim();
    void this.persist();
  }

  /** Adds a report; `sync` writes it to storage before returning (the process is crashing). */
  enqueue(fingerprint: string, body: ExceptionBody, sync = false): boolean {
    if (this.sent.includes(fingerprint) || this.items.some((i) => i.fingerprint === fingerprint)) {
      this.log('info', `identical exception ${fingerprint.slice(0, 12)} not sent twice`);
      return false;
    }
    const item: Item = { fingerprint, body, queuedLogged: false };
    this.items.push(item);
    this.trim();
    // While the service is unreachable, new reports are held at once.
    if (this.timer && this.attempt > 0) this.markQueued(item, 'service unreachable');
    if (this.unregisteredBecause) this.markQueued(item, this.unregisteredBecause);
    void this.persist(sync);
    this.pump();
    return true;
  }

  private markQueued(item: Item, reason: string): void {
    if (item.queuedLogged) return;
    item.queuedLogged = true;
    this.log('warn', `exception ${item.fingerprint.slice(0, 12)}: QUEUED (${reason})`);
    this.o.emit({ event: 'exception', status: 'QUEUED', fingerprint: item.fingerprint, reason });
  }

  /** The installation is registered: reports may go. */
  onRegistered(): void {
    this.registered = true;
    this.unregisteredBecause = null;
    this.pump();
  }

  /** A registration attempt failed: the reports wait (QUEUED) for the next one to succeed. */
  onRegistrationFailed(reason: string): void {
    if (this.registered) return;
    this.unregisteredBecause = `not registered yet: ${reason}`;
    for (const i of this.items) this.markQueued(i, this.unregisteredBecause);
  }

  private pump(): void {
    if (!this.loaded || !this.registered || this.sending || this.timer || this.closed) return;
    if (this.items.length === 0) return;
    this.sending = true;
    void this.sendFront().finally(() => {
      this.sending = false;
      if (this.items.length === 0) this.notify();
      else if (!this.timer) this.pump();
    });
  }

  private wait(ms: number): void {
    this.timer = this.o.ports.clock.setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, ms);
  }

  private async sendFront(): Promise<void> {
    const item = this.items[0];
    if (!item) return;
    let reply;
    try {
      reply = await this.o.ports.transport.request({
        method: 'POST',
        url: `${this.o.baseUrl}/api/v2/exceptions`,
        headers: { authorization: `Bearer ${this.o.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(item.body),
      });
    } catch (err) {
      return this.retryLater(`network: ${coerceError(err).message}`, null);
    }
    const outcome = judgeReportReply(reply, this.o.ports.clock.now());
    if (outcome.kind === 'retry') return this.retryLater(outcome.reason, outcome.retryAfterMs);
    this.attempt = 0;
    const { status, reason, message } = outcome;
    this.items = this.items.filter((i) => i !== item);
    this.sent = [...this.sent, item.fingerprint].slice(-SENT_KEPT);
    this.log(
      status === 'REGISTERED' ? 'info' : 'warn',
      `exception ${item.fingerprint.slice(0, 12)}: ${status}${reason ? ` (${reason}: ${message})` : ''}`,
    );
    this.o.emit({ event: 'exception', status, fingerprint: item.fingerprint, reason });
    await this.persist();
    if (outcome.holdMs !== null && this.items.length > 0) {
      for (const i of this.items)
        this.markQueued(i, `sending limit reached until ${outcome.holdUntil}`);
      this.wait(outcome.holdMs);
    }
  }

  private retryLater(reason: string, retryAfter: number | null): void {
    for (const i of this.items) this.markQueued(i, reason);
    const delay = Math.max(
      backoffDelay(this.o.backoff, this.attempt, this.o.ports.clock.random()),
      retryAfter ?? 0,
    );
    this.attempt++;
    this.wait(delay);
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves true once the queue is empty, false when `timeoutMs` passes first. */
  flush(timeoutMs: number): Promise<boolean> {
    if (this.items.length === 0 && !this.sending) return this.writes.then(() => true);
    return new Promise<boolean>((resolve) => {
      let cancel: Cancel = () => undefined;
      const done = () => {
        cancel();
        resolve(this.writes.then(() => true));
      };
      this.waiters.push(done);
      cancel = this.o.ports.clock.setTimeout(
        () => {
          this.waiters = this.waiters.filter((w) => w !== done);
          resolve(this.writes.then(() => false));
        },
        timeoutMs,
        true,
      );
    });
  }

  /** Flushes for at most `timeoutMs`, then stops sending; what is left stays persisted. */
  async close(timeoutMs: number): Promise<boolean> {
    const flushed = await this.flush(timeoutMs);
    this.closed = true;
    this.timer?.();
    this.timer = undefined;
    await this.persist();
    return flushed;
  }
}
