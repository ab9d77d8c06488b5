/**
 * A fleet of simulated PushLink SDK devices (`apkrelay device-sim --protocol pushlink`): each
 * holds the SDK's push socket on the legacy listener (device-client/node/pushlink-replay.ts),
 * heartbeats, and acts on server lines as ../shared/spec/pushlink-device-protocol.md says SDK
 * 5.x does: `mt 0` with the installed hash withdraws the update (`giveup`), with the last
 * downloaded hash shows it again (`apply`), any other hash is downloaded from `GET /download` and
 * its MD5 checked (`downloaded`); `mt 1` texts are reported as `message`. With `apply`, a verified
 * download is "installed": the device reconnects announcing the new hash, as the restarted app
 * would. A closed socket is reopened on the SDK's next 10 s cycle. Exceptions go out as the SDK
 * sends them: one per heartbeat, through the form `POST /exception`, once each (the SDK deletes a
 * report on any reply, so the reply text is the verdict).
 */
import { createHash } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { PushlinkReplay, type SdkVersion, type ServerLine } from '../node/pushlink-replay';
import { deviceIds, type SimulatedFleetBase } from './fleet';

export interface PushlinkFleetOptions extends SimulatedFleetBase {
  /** The legacy push listener (LEGACY_PUSH_PORT). */
  readonly host: string;
  readonly port: number;
  readonly sdk?: SdkVersion;
  readonly heartbeatSeconds?: number;
  /** Install verified downloads (reconnect with the new hash); default false. */
  readonly apply?: boolean;
  /** Delay before reopening a closed socket; default 10 s, the SDK's listener cycle. */
  readonly reconnectMs?: number;
  readonly onEvent: (event: PushlinkFleetEvent) => void;
}

export type PushlinkFleetEvent = { readonly device: string; readonly event: string } & Readonly<
  Record<string, unknown>
>;

export interface PushlinkFleet {
  readonly started: Promise<void>;
  close(): Promise<void>;
}

export function startPushlinkFleet(o: PushlinkFleetOptions): PushlinkFleet {
  const devices = deviceIds(o.devicePrefix ?? 'sim', o.devices).map((id) => new SimDevice(o, id));
  let closing = false;
  const rate = o.startRate ?? 1_000;
  const started = (async () => {
    for (let i = 0; i < devices.length && !closing; i++) {
      devices[i]!.start();
      // Pause every few devices so `rate` devices start per second.
      if ((i + 1) % Math.max(1, Math.ceil(rate / 20)) === 0) {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  })();
  return {
    started,
    async close() {
      closing = true;
      await started;
      await Promise.all(devices.map((d) => d.stop()));
    },
  };
}

/** One simulated SDK device: its socket, what it runs and what it last downloaded. */
class SimDevice {
  private installed: string;
  private lastDownloadHash = '';
  private socket: PushlinkReplay | null = null;
  private stopped = false;
  private beat: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  /** Exceptions not sent yet: one goes out per heartbeat, as the SDK sends them. */
  private unsent: number[];
  /** Set when the device installs an update: its socket closes and the new app reconnects. */
  private restarting = false;
  private readonly work = new Set<Promise<void>>();
  private readonly http: Http;

  constructor(
    private readonly o: PushlinkFleetOptions,
    private readonly deviceId: string,
  ) {
    this.installed = o.installedMd5 ?? '';
    this.unsent = Array.from({ length: o.exceptions ?? 0 }, (_, i) => i + 1);
    this.http = { baseUrl: o.baseUrl, ca: o.ca, insecure: o.insecure ?? false };
  }

  start(): void {
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.beat);
    this.socket?.close();
    await Promise.all([...this.work]);
  }

  private emit(event: string, details: Record<string, unknown> = {}): void {
    this.o.onEvent({ device: this.deviceId, event, ...details });
  }

  /** Runs `p` as the device's work: awaited on stop, a failure reported as an `error` event. */
  private track(p: Promise<void>): void {
    const tracked = p.catch((err: unknown) =>
      this.emit('error', { message: (err as Error).message }),
    );
    this.work.add(tracked);
    void tracked.finally(() => this.work.delete(tracked));
  }

  private async connect(): Promise<void> {
    this.retry = undefined;
    if (this.stopped) return;
    const { o } = this;
    let socket: PushlinkReplay;
    try {
      socket = await PushlinkReplay.connect({
        host: o.host,
        port: o.port,
        ...(o.ca !== undefined ? { ca: o.ca } : { trust: o.insecure ? 'insecure' : 'system' }),
      });
    } catch (err) {
      this.emit('error', { message: `push: ${(err as Error).message}` });
      return this.reconnectLater();
    }
    if (this.stopped) return socket.close();
    this.socket = socket;
    socket.onLine((line) => this.track(this.onLine(line)));
    socket.subscribe({
      apiKey: o.apiKey,
      package: o.packageName,
      deviceId: this.deviceId,
      hash: this.installed,
      lastDownloadHash: this.lastDownloadHash,
      sdk: o.sdk ?? '5.6.0',
      heartbeatSeconds: o.heartbeatSeconds ?? 30,
      metadata: { simulator: 'apkrelay device-sim' },
    });
    this.emit('subscribed', { hash: this.installed });
    this.beat = setInterval(
      () => {
        socket.heartbeat();
        const next = this.unsent.shift();
        if (next !== undefined) this.track(this.sendException(next));
      },
      (o.heartbeatSeconds ?? 30) * 1000,
    );
    void socket.closed.then(() => this.onClosed(socket));
  }

  private onClosed(socket: PushlinkReplay): void {
    clearInterval(this.beat);
    if (this.socket === socket) this.socket = null;
    if (this.stopped) return;
    if (this.restarting) {
      this.restarting = false;
      return void this.connect();
    }
    this.emit('disconnected');
    this.reconnectLater();
  }

  private reconnectLater(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => void this.connect(), this.o.reconnectMs ?? 10_000);
  }

  /** What SDK 5.x does with a server line (pushlink-device-protocol.md, "What the SDK does"). */
  private async onLine(line: ServerLine): Promise<void> {
    const mt = String(line.mt);
    if (typeof line.msg !== 'string' || (mt !== '0' && mt !== '1')) {
      return this.emit('error', { message: `not a server line: ${JSON.stringify(line)}` });
    }
    if (mt === '1') return this.emit('message', { text: line.msg });
    const md5 = line.msg;
    if (md5 === this.installed) return this.emit('giveup', { md5 });
    if (md5 !== this.lastDownloadHash) {
      const got = await download(
        this.http,
        this.o,
        this.deviceId,
        this.installed,
        this.lastDownloadHash,
      );
      this.emit('downloaded', { md5: got.md5, verified: got.md5 === md5, bytes: got.bytes });
      if (got.md5 !== md5) return;
      this.lastDownloadHash = md5;
    }
    this.emit('apply', { md5 });
    if (this.o.apply && !this.stopped) {
      this.installed = md5; // the new APK runs: its process opens a new socket with the new hash
      this.restarting = true;
      this.socket?.close();
    }
  }

  private async sendException(n: number): Promise<void> {
    const reply = await postException(this.http, this.o, this.deviceId, this.installed, n);
    this.emit('exception', { reply });
  }
}

interface Http {
  readonly baseUrl: string;
  readonly ca: string | undefined;
  readonly insecure: boolean;
}

function call(
  http: Http,
  path: string,
  init: { method: 'GET' | 'POST'; body?: string; onBody: (chunk: Buffer) => void },
): Promise<{ status: number; type: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      new URL(path, `${http.baseUrl}/`),
      {
        method: init.method,
        ...(http.ca !== undefined ? { ca: http.ca } : {}),
        rejectUnauthorized: !http.insecure,
        headers: init.body
          ? { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' }
          : {},
      },
      (res) => {
        res.on('data', init.onBody);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** `GET /download` as the SDK sends it; the body's MD5 (not kept: a simulator has no disk). */
async function download(
  http: Http,
  o: PushlinkFleetOptions,
  deviceId: string,
  installed: string,
  lastDownloadHash: string,
): Promise<{ md5: string; bytes: number }> {
  const query = new URLSearchParams({
    package: o.packageName,
    api_key: o.apiKey,
    hash: installed,
    pid: '4242',
    deviceId,
    plVersion: o.sdk ?? '5.6.0',
    androidId: `aid-${deviceId}`,
    lastDownloadHash,
  });
  const digest = createHash('md5');
  let bytes = 0;
  const reply = await call(http, `download?${query.toString()}`, {
    method: 'GET',
    onBody: (chunk) => {
      digest.update(chunk);
      bytes += chunk.length;
    },
  });
  // The SDK accepts a body only with the APK content type (anything else is an error text).
  if (reply.status !== 200 || !reply.type.includes('application/vnd.android.package-archive')) {
    throw new Error(`download: ${reply.status} ${reply.type}`);
  }
  return { md5: digest.digest('hex'), bytes };
}

/** `POST /exception` as the SDK sends it; the reply text (the SDK deletes the report on any). */
async function postException(
  http: Http,
  o: PushlinkFleetOptions,
  deviceId: string,
  installed: string,
  n: number,
): Promise<string> {
  const form = new URLSearchParams({ package: o.packageName, api_key: o.apiKey, hash: installed });
  form.append('deviceId', deviceId);
  form.append('st[]', `java.lang.IllegalStateException: simulated exception ${n} on ${deviceId}`);
  form.append('st[]', '\tat dev.apkrelay.sim.Device.run(Device.java:1)');
  const chunks: Buffer[] = [];
  await call(http, 'exception', {
    method: 'POST',
    body: form.toString(),
    onBody: (c) => chunks.push(c),
  });
  return Buffer.concat(chunks).toString('utf8');
}
