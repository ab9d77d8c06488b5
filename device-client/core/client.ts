/**
 * `Client` of spec section 4.4 as a class: one instance per installation (an app runs one; the
 * fleet simulator runs thousands in one process). Strategy, idle, metadata and activity may be
 * set before `start`; `start` validates its parameters, builds the platform's ports and starts
 * registration, the push stream and exception delivery. A second `start` is ignored with a log
 * line.
 */
import { clientParts, type ClientHooks, type ClientParts } from './client-parts';
import type { ClientEvent, EventListener } from './events';
import { exceptionReport } from './exception-report';
import type { Cancel, Ports } from './ports';
import {
  checkKey,
  pairs,
  REQUIRED_START_PARAMS,
  StartParamsError,
  type ClientOptions,
  type StartParams,
} from './start-params';
import { Strategies, type StrategyName, type StrategyObject } from './strategies';

export { REQUIRED_START_PARAMS, StartParamsError, type ClientOptions, type StartParams };

interface Running extends ClientParts {
  readonly ports: Ports;
  readonly params: StartParams;
  lastDownloadedMd5: string | null;
  stopCapture: Cancel | undefined;
  /** The start sequence (saved state read, stream started); `close` waits for it. */
  ready: Promise<void>;
}

export class DeviceClient<P extends StartParams = StartParams> {
  private readonly strategies = new Strategies();
  private idleFlag = true;
  private activity: unknown = undefined;
  private readonly metadata = new Map<string, string>();
  private readonly exceptionMetadata = new Map<string, string>();
  private readonly listeners = new Set<EventListener>();
  private maxQueue = 50;
  private captureWanted = true;
  private status: 'enabled' | 'disabled' | null = null;
  private running: Running | null = null;
  private readonly early: Array<{ fp: string; body: ExceptionBodyLike }> = [];

  constructor(
    private readonly makePorts: (params: P) => Ports,
    private readonly options: ClientOptions = {},
  ) {}

  on(listener: EventListener): Cancel {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit = (event: ClientEvent): void => {
    for (const l of this.listeners) l(event);
  };

  start(params: P): void {
    if (this.running) {
      this.running.ports.logger.log(
        'warn',
        'Client.start was already called in this process: this call is ignored',
      );
      return;
    }
    const p = (params ?? {}) as unknown as Record<string, unknown>;
    const missing = REQUIRED_START_PARAMS.filter((k) => typeof p[k] !== 'string' || p[k] === '');
    if (missing.length > 0) throw new StartParamsError(missing);
    const ports = this.makePorts(params);
    const running: Running = {
      ports,
      params,
      ...clientParts(ports, params, this.hooks()),
      lastDownloadedMd5: null,
      stopCapture: undefined,
      ready: Promise.resolve(),
    };
    this.running = running;
    for (const e of this.early.splice(0))
      running.exceptions.enqueue(e.fp, {
        ...e.body,
        package: params.packageName,
        deviceId: params.deviceId,
        hash: params.installedMd5 ?? null,
      });
    if (this.captureWanted) this.enableExceptionNotification();
    running.ready = (async () => {
      await running.exceptions.load();
      await running.updates.load();
      running.push.start();
    })().catch((err: unknown) =>
      ports.logger.log('error', `start failed: ${(err as Error).message}`),
    );
  }

  /** What the running parts read of this client, and tell it. */
  private hooks(): ClientHooks {
    return {
      options: this.options,
      strategies: this.strategies,
      metadata: this.metadata,
      maxQueue: this.maxQueue,
      emit: this.emit,
      idle: () => this.idleFlag,
      activity: () => this.activity,
      status: () => this.status,
      setStatus: (s) => this.setStatus(s),
      lastDownloadedMd5: () => this.running?.lastDownloadedMd5 ?? null,
      downloaded: (md5) => {
        if (this.running) this.running.lastDownloadedMd5 = md5;
      },
    };
  }

  private setStatus(status: 'enabled' | 'disabled'): void {
    this.status = status;
  }

  /** The status the server last gave: enabled, disabled, or null before registration. */
  getStatus(): 'enabled' | 'disabled' | null {
    return this.status;
  }

  setCurrentStrategy(name: StrategyName): void {
    this.strategies.set(name);
    const r = this.running;
    if (r) {
      r.updates.withdraw();
      r.updates.present();
    }
  }

  getCurrentStrategy(): StrategyObject {
    return this.strategies.object;
  }

  setCurrentActivity(activity: unknown): void {
    this.activity = activity;
    this.running?.updates.activityChanged();
  }

  /** See spec "Idle flag": false → nothing is shown, broadcast or installed until it is true. */
  idle(value: boolean): void {
    if (typeof value !== 'boolean') throw new TypeError('idle takes a boolean');
    this.idleFlag = value;
    const r = this.running;
    if (!r) return;
    if (value) r.updates.present();
    else r.updates.withdraw();
  }

  isIdle(): boolean {
    return this.idleFlag;
  }

  hasPendingUpdate(): boolean {
    return this.running?.updates.hasPendingUpdate() ?? false;
  }

  /** Custom code (CUSTOM strategy) applies the downloaded update. */
  applyUpdate(): Promise<boolean> {
    return this.running?.updates.apply() ?? Promise.resolve(false);
  }

  addMetadata(key: string, value: string): void {
    this.metadata.set(checkKey(key), String(value));
  }

  addExceptionMetadata(key: string, value: string): void {
    this.exceptionMetadata.set(checkKey(key), String(value));
  }

  sendAsyncException(error: unknown, extra?: Readonly<Record<string, string>>): void {
    this.report(error, true, extra);
  }

  private report(
    error: unknown,
    handled: boolean,
    extra?: Readonly<Record<string, string>>,
    sync = false,
  ): void {
    const r = this.running;
    const { fingerprint, body } = exceptionReport({
      error,
      handled,
      extra: extra ?? {},
      metadata: [...pairs(this.metadata), ...pairs(this.exceptionMetadata)],
      packageName: r?.params.packageName ?? '',
      deviceId: r?.params.deviceId ?? '',
      hash: r?.params.installedMd5 ?? null,
    });
    if (!r) {
      this.early.push({ fp: fingerprint, body });
      return;
    }
    r.exceptions.enqueue(fingerprint, body, sync);
  }

  enableExceptionNotification(): void {
    this.captureWanted = true;
    const r = this.running;
    if (!r || r.stopCapture) return;
    r.stopCapture = r.ports.errorCapture.install((error) =>
      this.report(error, false, undefined, true),
    );
  }

  disableExceptionNotification(): void {
    this.captureWanted = false;
    this.running?.stopCapture?.();
    if (this.running) this.running.stopCapture = undefined;
  }

  setMaxExceptionQueueSize(size: number): void {
    if (!Number.isInteger(size) || size < 1)
      throw new TypeError('the queue size must be a whole number, at least 1');
    this.maxQueue = size;
    this.running?.exceptions.setMaxSize(size);
  }

  /** Resolves true once every queued exception was delivered (or LOST), false on timeout. */
  flush(timeoutMs: number): Promise<boolean> {
    return this.running?.exceptions.flush(timeoutMs) ?? Promise.resolve(true);
  }

  /** Flushes for at most `timeoutMs`, then closes the stream and stops every timer. */
  async close(timeoutMs: number): Promise<boolean> {
    const r = this.running;
    if (!r) return true;
    await r.ready;
    r.push.stop();
    r.updates.stop();
    r.stopCapture?.();
    const flushed = await r.exceptions.close(timeoutMs);
    r.ports.dispose?.();
    return flushed;
  }
}

type ExceptionBodyLike = ReturnType<typeof exceptionReport>['body'];
