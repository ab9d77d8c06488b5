/**
 * Fakes of the device client's ports for unit tests: a clock that only moves when told, memory
 * storage, a scripted server (registration, push key, an event stream the test writes to,
 * downloads, exceptions) and recorders for UI, installer, broadcasts and log lines.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  DeviceClient,
  type ClientOptions,
  type StartParams,
} from '../../device-client/core/client';
import type { ClientEvent } from '../../device-client/core/events';
import type {
  Cancel,
  Clock,
  HttpReply,
  HttpRequest,
  OpenResponse,
  Ports,
  Storage,
} from '../../device-client/core/ports';
import { nodeCrypto } from '../../device-client/node/adapters';
import { derivePushKeys, publicKeyInfo, signEvent } from '../../shared/devices/push-signing';

/** Lets pending promise chains (fake I/O) run. */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

/** Timers fire only in `advance`; `now` starts at the instant given (default: the unit tests'). */
export class FakeClock implements Clock {
  private seq = 0;
  constructor(private t = Date.parse('2026-01-01T00:00:00Z')) {}
  timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.t;
  }
  random(): number {
    return 0; // no jitter: delays are exact
  }
  setTimeout(fn: () => void, ms: number): Cancel {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return () => this.timers.delete(id);
  }
  /** Delays of the timers now pending, from now. */
  pending(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.t).sort((a, b) => a - b);
  }
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    await settle();
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers)
        if (e[1].at <= target && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
      await settle();
    }
    this.t = target;
    await settle();
  }
}

export function memoryStorage(): Storage & {
  records: Map<string, string>;
  files: Map<string, Buffer>;
} {
  const records = new Map<string, string>();
  const files = new Map<string, Buffer>();
  return {
    records,
    files,
    read: (k) => Promise.resolve(records.get(k) || null),
    write: (k, v) => {
      records.set(k, v);
      return Promise.resolve();
    },
    writeSync: (k, v) => void records.set(k, v),
    fileSize: (n) => Promise.resolve(files.get(n)?.length ?? 0),
    append: (n, c) => {
      files.set(n, Buffer.concat([files.get(n) ?? Buffer.alloc(0), c]));
      return Promise.resolve();
    },
    removeFile: (n) => {
      files.delete(n);
      return Promise.resolve();
    },
    async *readFile(n) {
      const f = await Promise.resolve(files.get(n));
      if (f) yield f;
    },
    location: (n) => `file:///data/${n}`,
  };
}

/** An event stream the test writes to. */
export class FakeStream implements OpenResponse {
  status = 200;
  headers: Record<string, string> = { 'content-type': 'text/event-stream' };
  private queue: Array<Uint8Array | null> = [];
  private wake: (() => void) | undefined;
  closed = false;
  write(text: string): void {
    this.queue.push(Buffer.from(text));
    this.wake?.();
  }
  close(): void {
    this.closed = true;
    this.queue.push(null);
    this.wake?.();
  }
  get body(): AsyncIterable<Uint8Array> {
    return { [Symbol.asyncIterator]: () => this.chunks() };
  }
  private async *chunks(): AsyncGenerator<Uint8Array> {
    for (;;) {
      while (this.queue.length === 0) await new Promise<void>((r) => (this.wake = r));
      const next = this.queue.shift()!;
      if (next === null) return;
      yield next;
    }
  }
}

export const PKG = 'dev.apkrelay.sample';
export const DEVICE = 'device-1';
export const KEY = 'k'.repeat(32);
export const OLD_MD5 = 'a'.repeat(32);
/** The account the scripted server says the device's API key belongs to. */
export const ACCOUNT = '6745a1b2c3d4e5f6000000aa';

export function apkBytes(seed: string, size = 10_000): Buffer {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = (seed.charCodeAt(i % seed.length) * (i + 7)) & 0xff;
  return out;
}

export const pushKeys = derivePushKeys(randomBytes(32));

export function versionEvent(apk: Buffer, apkId: string, extra: Record<string, unknown> = {}) {
  return signEvent(pushKeys, {
    v: 2,
    type: 'version',
    account: ACCOUNT,
    package: PKG,
    device: DEVICE,
    apkId,
    md5: createHash('md5').update(apk).digest('hex'),
    sha256: createHash('sha256').update(apk).digest('hex'),
    versionCode: 2,
    versionName: '2.0',
    size: apk.length,
    url: `https://web.test/download?package=${PKG}`,
    issuedAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  });
}

export function giveupEvent(
  apkId: string,
  md5: string | null,
  issuedAt = '2026-01-01T00:00:00.000Z',
) {
  return signEvent(pushKeys, {
    v: 2,
    type: 'giveup',
    account: ACCOUNT,
    package: PKG,
    device: DEVICE,
    apkId,
    md5,
    issuedAt,
  });
}

export function sse(event: string, data: unknown, id = '1-0'): string {
  return `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
}

type Handler = (req: HttpRequest) => HttpReply | Promise<HttpReply>;

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpReply {
  return { status, headers, text: JSON.stringify(body) };
}

/** A device with fake ports against a scripted server. */
export class Harness {
  clock = new FakeClock();
  storage = memoryStorage();
  logs: string[] = [];
  events: ClientEvent[] = [];
  ui: string[] = [];
  broadcasts: Array<{ action: string; extras: Readonly<Record<string, string>> }> = [];
  installs: string[] = [];
  installFails = false;
  /** The installer never answers (the process is replaced before the OS's answer is heard). */
  installHangs = false;
  /** The status heartbeats are answered with. */
  heartbeatStatus = 200;
  requests: HttpRequest[] = [];
  streams: FakeStream[] = [];
  streamStatus = 200;
  /** Extra headers of the stream's reply (e.g. Retry-After with a 503 streamStatus). */
  streamHeaders: Record<string, string> = {};
  /** When set, answers registrations instead of the default 200. */
  registerReply: (() => HttpReply) | undefined;
  registerStatus: 'enabled' | 'disabled' = 'enabled';
  apk: Buffer = apkBytes('v2');
  /** Download behaviour: the bytes to serve for a request (default: honour Range). */
  download: (req: HttpRequest) => OpenResponse | Promise<OpenResponse> = (req) => this.serve(req);
  exceptions: Handler = () =>
    json(202, { status: 'REGISTERED', reason: null, message: 'ok', budget: null });
  offline = false;
  /** The uncaught-error handler the client installed, if any. */
  capture: ((error: unknown) => void) | undefined;
  popup: ((action: 'update' | 'not_now') => void) | undefined;
  notificationClick: (() => void) | undefined;
  client: DeviceClient;
  /** Ports added to the defaults (the delta ports: installedApk, inflater). */
  extraPorts: Partial<Ports> = {};

  constructor(options: ClientOptions = {}, storage?: Harness['storage']) {
    if (storage) this.storage = storage;
    this.client = this.newClient(options);
  }

  newClient(options: ClientOptions = {}): DeviceClient {
    const client = new DeviceClient((): Ports => this.ports(), options);
    client.on((e) => this.events.push(e));
    return client;
  }

  serve(req: HttpRequest, bytes = this.apk): OpenResponse {
    const from = Number(/bytes=(\d+)-/.exec(req.headers?.range ?? '')?.[1] ?? 0);
    const body = bytes.subarray(from);
    return {
      status: from > 0 ? 206 : 200,
      headers:
        from > 0 ? { 'content-range': `bytes ${from}-${bytes.length - 1}/${bytes.length}` } : {},
      body: (async function* () {
        yield await Promise.resolve(body);
      })(),
      close: () => undefined,
    };
  }

  ports(): Ports {
    return {
      ...this.extraPorts,
      clock: this.clock,
      storage: this.storage,
      crypto: nodeCrypto,
      logger: { log: (level, m) => void this.logs.push(`${level}: ${m}`) },
      ui: {
        showNotification: (n, onClick) => {
          this.ui.push(`notify ${n.title} | ${n.description}`);
          this.notificationClick = onClick;
        },
        cancelNotification: () => void this.ui.push('cancel notification'),
        showPopup: (_a, p, onButton) => {
          this.ui.push(`popup ${p.kind} ${p.message} [${p.buttons.map((b) => b.label).join('|')}]`);
          this.popup = onButton;
        },
        hidePopup: () => void this.ui.push('hide popup'),
      },
      installer: {
        install: (location) => {
          this.installs.push(location);
          if (this.installHangs) return new Promise<void>(() => undefined);
          return this.installFails
            ? Promise.reject(
                Object.assign(new Error('INSTALL_FAILED_VERSION_DOWNGRADE'), { osStatus: 4 }),
              )
            : Promise.resolve();
        },
      },
      broadcaster: { send: (action, extras) => void this.broadcasts.push({ action, extras }) },
      errorCapture: {
        install: (handler) => {
          this.capture = handler;
          return () => (this.capture = undefined);
        },
      },
      transport: {
        request: async (req) => {
          this.requests.push(req);
          if (this.offline) throw new Error('connect ECONNREFUSED');
          if (req.url.endsWith('/api/v2/push-key'))
            return json(200, {
              algorithm: 'Ed25519',
              publicKey: publicKeyInfo(pushKeys).publicKey,
            });
          if (req.url.endsWith('/api/v2/installations') && this.registerReply)
            return this.registerReply();
          if (req.url.endsWith('/api/v2/installations'))
            return json(200, {
              status: this.registerStatus,
              accountId: ACCOUNT,
              deviceId: DEVICE,
              heartbeatSeconds: 30,
              streamUrl: `https://push.test/api/v2/stream?package=${PKG}&deviceId=${DEVICE}`,
            });
          if (req.url.endsWith('/api/v2/heartbeat'))
            return json(this.heartbeatStatus, {
              status: this.registerStatus,
              heartbeatSeconds: 30,
            });
          if (req.url.endsWith('/api/v2/exceptions')) return this.exceptions(req);
          return json(404, { error: { code: 'NOT_FOUND', message: 'no' } });
        },
        open: async (req) => {
          this.requests.push(req);
          if (this.offline) throw new Error('connect ECONNREFUSED');
          if (req.url.includes('/api/v2/stream')) {
            const s = new FakeStream();
            s.status = this.streamStatus;
            Object.assign(s.headers, this.streamHeaders);
            this.streams.push(s);
            return s;
          }
          return this.download(req);
        },
      },
    };
  }

  get stream(): FakeStream {
    return this.streams[this.streams.length - 1]!;
  }

  start(params: Partial<StartParams> = {}): void {
    this.client.start({
      apiKey: KEY,
      deviceId: DEVICE,
      packageName: PKG,
      appName: 'Sample',
      pushUrl: 'https://push.test',
      baseUrl: 'https://admin.test',
      installedMd5: OLD_MD5,
      ...params,
    });
  }

  /** Starts, lets registration and the stream open, and sends the stream's status event. */
  async online(params: Partial<StartParams> = {}): Promise<void> {
    this.start(params);
    await settle();
    this.streams
      .at(-1)
      ?.write(sse('status', { status: this.registerStatus, heartbeatSeconds: 30 }, '0-0'));
    await settle();
  }

  of<E extends ClientEvent['event']>(name: E): Array<Extract<ClientEvent, { event: E }>> {
    return this.events.filter((e): e is Extract<ClientEvent, { event: E }> => e.event === name);
  }
}
