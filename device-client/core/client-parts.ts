/**
 * The parts a started `DeviceClient` runs (client.ts): pending updates, the exception queue and
 * the push connection, built from the start parameters and wired to each other and to the client.
 */
import type { BackoffPolicy } from './backoff';
import type { ClientEvent } from './events';
import { ExceptionQueue } from './exception-queue';
import { InstallOutcomes } from './install-outcome';
import { PendingUpdate } from './pending-update';
import type { Ports } from './ports';
import { PushConnection } from './push-connection';
import { routeEvent } from './route-event';
import { pairs, type ClientOptions, type StartParams } from './start-params';
import type { Strategies } from './strategies';

type Status = 'enabled' | 'disabled';

/** What the parts read of the client, and tell it. */
export interface ClientHooks {
  readonly options: ClientOptions;
  readonly strategies: Strategies;
  readonly metadata: Map<string, string>;
  readonly maxQueue: number;
  readonly emit: (event: ClientEvent) => void;
  readonly idle: () => boolean;
  readonly activity: () => unknown;
  readonly status: () => Status | null;
  readonly setStatus: (status: Status) => void;
  /** The hash of the last APK downloaded in this run, or null. */
  readonly lastDownloadedMd5: () => string | null;
  readonly downloaded: (md5: string) => void;
}

export interface ClientParts {
  readonly updates: PendingUpdate;
  readonly exceptions: ExceptionQueue;
  readonly push: PushConnection;
}

function backoff(b: BackoffPolicy | undefined, initialMs: number, maxMs: number): BackoffPolicy {
  return b ?? { initialMs, maxMs, jitter: 0.5 };
}

function pendingUpdate(
  ports: Ports,
  params: StartParams,
  hooks: ClientHooks,
  outcomes: InstallOutcomes,
): PendingUpdate {
  const { options } = hooks;
  return new PendingUpdate({
    outcomes,
    ports,
    strategies: hooks.strategies,
    packageName: params.packageName,
    appName: params.appName || params.packageName,
    apiKey: params.apiKey,
    deviceId: params.deviceId,
    installedMd5: params.installedMd5 ?? null,
    applyIntervalMs: options.applyIntervalMs ?? 30_000,
    downloadBackoff: backoff(options.downloadBackoff, 1_000, 60_000),
    maxTamperedDownloads: options.maxTamperedDownloads ?? 3,
    idle: hooks.idle,
    activity: hooks.activity,
    emit: hooks.emit,
    downloaded: hooks.downloaded,
  });
}

function exceptionQueue(ports: Ports, params: StartParams, hooks: ClientHooks): ExceptionQueue {
  return new ExceptionQueue({
    ports,
    baseUrl: params.baseUrl.replace(/\/+$/, ''),
    apiKey: params.apiKey,
    backoff: backoff(hooks.options.exceptionBackoff, 1_000, 5 * 60_000),
    emit: hooks.emit,
    maxSize: hooks.maxQueue,
  });
}

function pushConnection(
  ports: Ports,
  params: StartParams,
  hooks: ClientHooks,
  updates: PendingUpdate,
  exceptions: ExceptionQueue,
  outcomes: InstallOutcomes,
): PushConnection {
  const { options, emit } = hooks;
  return new PushConnection({
    ports,
    pushUrl: params.pushUrl.replace(/\/+$/, ''),
    apiKey: params.apiKey,
    ...(options.pushPublicKey ? { pushPublicKey: options.pushPublicKey } : {}),
    backoff: backoff(options.reconnectBackoff, 1_000, 60_000),
    registration: () => ({
      package: params.packageName,
      deviceId: params.deviceId,
      installedMd5: params.installedMd5 ?? null,
      lastDownloadedMd5: hooks.lastDownloadedMd5(),
      strategy: hooks.strategies.name,
      ...(params.device ? { device: params.device } : {}),
      ...(params.location ? { location: params.location } : {}),
      metadata: pairs(hooks.metadata),
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
        hooks.setStatus,
        hooks.status,
        emit,
      ),
    onStatus: (s) => {
      hooks.setStatus(s);
      exceptions.onRegistered();
    },
    onRegistrationFailed: (reason) => exceptions.onRegistrationFailed(reason),
    lastInstall: outcomes,
  });
}

export function clientParts(ports: Ports, params: StartParams, hooks: ClientHooks): ClientParts {
  const outcomes = new InstallOutcomes(ports);
  const updates = pendingUpdate(ports, params, hooks, outcomes);
  const exceptions = exceptionQueue(ports, params, hooks);
  const push = pushConnection(ports, params, hooks, updates, exceptions, outcomes);
  return { updates, exceptions, push };
}
