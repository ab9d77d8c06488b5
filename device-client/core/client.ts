/**
 * `Client` of spec section 4.4 as a class: one instance per installation (an app runs one; the
 * fleet simulator runs thousands in one process). Strategy, idle, metadata and activity may be
 * set before `start`; `start` validates its parameters, builds the platform's ports and starts
 * registration, the push stream and exception delivery. A second `start` is ignored with a log
 * line.
 */
import type { BackoffPolicy } from './backoff';
import type { ClientEvent, EventListener } from './events';
import { ExceptionQueue } from './exception-queue';
import { exceptionReport } from './exception-report';
import { PendingUpdate } from './pending-update';
import type { Cancel, Ports } from './ports';
import { PushConnection } from './push-connection';
import { routeEvent } from './route-event';
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

interface Running {
  readonly ports: Ports;
  readonly params: StartParams;
  readonly updates: PendingUpdate;
  readonly exceptions: ExceptionQueue;
  readonly push: PushConnection;
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
    const backoff = (b: BackoffPolicy | undefined, initialMs: number, maxMs: number) =>
      b ?? { initialMs, maxMs, jitter: 0.5 };
    const emit = this.emit;
    const updates = new PendingUpdate({
      ports,
      strategies: this.strategies,
      packageName: params.packageName,
      appName: params.appName || params.packageName,
      apiKey: params.apiKey,
      deviceId: params.deviceId,
      installedMd5: params.installedMd5 ?? null,
      applyIntervalMs: this.options.applyIntervalMs ?? 30_000,
      downloadBackoff: backoff(this.options.downloadBackoff, 1_000, 60_000),
      maxTamperedDownloads: this.options.maxTamperedDownloads ?? 3,
      idle: () => this.idleFlag,
      activity: () => this.activity,
      emit,
      downloaded: (md5) => {
        if (this.running) this.running.lastDownloadedMd5 = md5;
      },
    });
    const exceptions = new ExceptionQueue({
      ports,
      baseUrl: params.baseUrl.replace(/\/+$/, ''),
      apiKey: params.apiKey,
      backoff: backoff(this.options.exceptionBackoff, 1_000, 5 * 60_000),
      emit,
      maxSize: this.maxQueue,
    });
    const push = new PushConnection({
      ports,
      pushUrl: params.pushUrl.replace(/\/+$/, ''),
      apiKey: params.apiKey,
      ...(this.options.pushPublicKey ? { pushPublicKey: this.options.pushPublicKey } : {}),
      backoff: backoff(this.options.reconnectBackoff, 1_000, 60_000),
      registration: () => ({
        package: params.packageName,
        deviceId: params.deviceId,
        installedMd5: params.installedMd5 ?? null,
        lastDownloadedMd5: this.running?.lastDownloadedMd5 ?? null,
        strategy: this.strategies.name,
        ...(params.device ? { device: params.device } : {}),
        ...(params.location ? { location: params.location } : {}),
        metadata: pairs(this.metadata),
      }),
      emit,
      onEvent: (event, key, accountId) =>
        routeEvent(
          ports,
          params,
          key,
          accountId,
          event,
          updates,
          (s) => this.setStatus(s),
          () => this.status,
          emit,
        ),
      onStatus: (s) => {
        this.setStatus(s);
        exceptions.onRegistered();
      },
      onRegistrationFailed: (reason) => exceptions.onRegistrationFailed(reason),
    });
    const running: Running = {
      ports,
      params,
      updates,
      exceptions,
      push,
      lastDownloadedMd5: null,
      stopCapture: undefined,
      ready: Promise.resolve(),
    };
    this.running = running;
    for (const e of this.early.splice(0))
      exceptions.enqueue(e.fp, {
        ...e.body,
        package: params.packageName,
        deviceId: params.deviceId,
        hash: params.installedMd5 ?? null,
      });
    if (this.captureWanted) this.enableExceptionNotification();
    running.ready = (async () => {
      await exceptions.load();
      await updates.load();
      push.start();
    })().catch((err: unknown) =>
      ports.logger.log('error', `start failed: ${(err as Error).message}`),
    );
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
