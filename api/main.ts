/**
 * The API process: connects to Redis (fail-fast producer profile) and MongoDB, builds the
 * dependencies once, and serves the three hosts. `close()` is its one shutdown path: stop intake,
 * finish in-flight requests until the deadline, then close queues, Redis and Mongo.
 */
import { DEFAULT_ROLLOUT_SETTINGS, type RolloutSettings } from '../shared/rollouts/health';
import { setMaxListeners } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { redisAuthThrottle, type AuthFailureLimits } from '../shared/accounts/auth-throttle';
import { createAccountsService } from '../shared/accounts/service';
import { redisTotpThrottle } from '../shared/accounts/totp-throttle';
import { redisLoginThrottle } from '../shared/accounts/login-throttle';
import { redisSignupThrottle } from '../shared/accounts/signup-throttle';
import { redisKeys } from '../shared/redis-keys';
import { apkIngestQueue } from '../shared/queues/apk-ingest';
import { crashCounter } from '../shared/rollouts/crash-counter';
import { redisNoticeSink } from '../shared/notices/notice-sink';
import { requestingDeltas } from '../shared/delta/requests';
import { deltaGenerateQueue } from '../shared/queues/delta-generate';
import { gridFsScreenshots } from '../shared/exceptions/screenshots';
import { offloadDir } from './downloads/offload-dir';
import { isBlobServed } from './downloads/served-blob';
import { plaintextMemory } from './downloads/plaintext-memory';
import { cachedBlobStore } from '../shared/storage/blob-cache';
import { gridFsBlobStore } from '../shared/storage/blob-store';
import type { TlsMaterial } from '../shared/crypto/tls';
import { queueDeliverySink } from '../shared/queues/delivery-sink';
import { DEFAULT_OVER_PLAN_WINDOW_MS, overPlanEvents } from '../shared/webhooks/over-plan';
import { redisRedeliveryThrottle } from '../shared/webhooks/redelivery-throttle';
import {
  redisRegistrationThrottle,
  type RegistrationLimits,
} from '../shared/devices/registration-throttle';
import { webhookDeliveryQueue } from '../shared/queues/webhook-delivery';
import { ensureIndexes } from '../shared/indexes';
import { mongoReachable } from '../shared/storage/mongo';
import { closeRedis, redisReady } from '../shared/storage/redis';
import { createHostListener } from './app';
import type { ConnectOptions } from '../shared/storage/connect-options';
import { connect, type Connections } from './connections';
import type { ApiDeps } from './deps';
import { listen, type Listener, type ListenerTimeouts } from './server';
import { pushKeysFromSeed } from '../shared/devices/push-signing';
import { PushHub } from './push/hub';
import {
  listenLegacyPush,
  type LegacyPushListener,
  type LegacyPushOptions,
} from './push/legacy/listener';
import { liveState, deviceLookups } from '../shared/devices/store';
import type { Host } from './route-table';
import { createIngestClient } from './uploads/ingest-client';
import { uploadSlots } from './uploads/upload-slots';
import { spoolBudget, sweepSpool } from './uploads/pre-auth-hold';
import { createApiMetrics } from './metrics/api-metrics';
import { exceptionIntake } from './exceptions/wiring';
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from '../shared/uploads/upload-limits';

export interface ApiOptions extends ConnectOptions {
  /** Undefined: plain HTTP (TLS=off, behind a TLS-terminating proxy). */
  readonly tls: TlsMaterial | undefined;
  readonly host: string;
  /** ADMIN_HOST: the admin listener's address; unset: `host`. */
  readonly adminHost?: string;
  /** HSTS_MAX_AGE in seconds (0: none); unset: one year with TLS, none without. */
  readonly hstsMaxAge?: number;
  readonly ports: Readonly<Record<Host, number>>;
  readonly publicUrls: ApiDeps['publicUrls'];
  readonly limits: Omit<ApiDeps['limits'], 'heartbeatSeconds' | 'uploads'> & {
    readonly heartbeatSeconds?: number;
    /** UPLOAD_* settings; unset: DEFAULT_UPLOAD_LIMITS. */
    readonly uploads?: Partial<UploadLimits>;
  };
  readonly now?: () => Date;
  /** ROLLOUT_* (the workers' health gate), as the Rollouts tab shows it; unset: the product's. */
  readonly rollouts?: RolloutSettings;
  /** Bearer token of `/metrics` (METRICS_TOKEN); unset: metrics are off. */
  readonly metricsToken?: string;
  /** HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS; unset: 20 s and 1 h. */
  readonly listenerTimeouts?: ListenerTimeouts;
  /** AUTH_FAILURES_PER_ADDRESS / AUTH_FAILURES_PER_KEY; unset: 100 and 20 per 15 min. */
  readonly authFailureLimits?: AuthFailureLimits;
  /** TRUST_PROXY; unset: no proxy is believed. */
  readonly trustProxy?: false | number | readonly string[];
  /** SIGNUP / SIGNUPS_PER_ADDRESS; unset: open, 10 per client address per hour (0: no limit). */
  readonly signups?: { readonly open?: boolean; readonly perAddress?: number };
  /**
   * WEBHOOK_REDELIVERIES_PER_MINUTE (default 30) and WEBHOOK_OVER_PLAN_WINDOW_SECONDS (as ms;
   * default one hour), docs/webhooks.md.
   */
  readonly webhookLimits?: {
    readonly redeliveriesPerMinute?: number;
    readonly overPlanWindowMs?: number;
  };
  /** DEVICE_NEW_REGISTRATIONS_PER_KEY / _PER_APP (docs/push.md); default 120 and 600. */
  readonly registrationLimits?: RegistrationLimits;
  /** LEGACY_PUSH_PORT / LEGACY_PUSH_TLS_MIN: the PushLink SDK's push listener; unset: off. */
  readonly legacyPush?: Omit<LegacyPushOptions, 'host' | 'tls'>;
  /**
   * Where an upload's file that came before its API key is spooled (DATA_DIR/spool/uploads);
   * unset: a folder under the OS temporary directory.
   */
  readonly uploadSpoolDir?: string;
  /** DOWNLOAD_CACHE_MB: downloads read APK ciphertext through a local file cache; unset: off. */
  readonly downloadCache?: { readonly dir: string; readonly maxBytes: number };
  /** DOWNLOAD_MEMORY_MB: the bound of decrypted APKs held for downloads; unset: none held. */
  readonly downloadMemory?: { readonly maxBytes: number };
  /** DOWNLOAD_OFFLOAD=nginx: the RAM-backed directory nginx sends `/download` bytes from. */
  readonly downloadOffload?: { readonly dir: string };
}

export interface ApiProcess {
  readonly ports: Readonly<Record<Host, number>>;
  /** The legacy push listener's port, when it is on. */
  readonly legacyPushPort: number | undefined;
  close(deadlineMs: number): Promise<void>;
}

export async function startApi(options: ApiOptions): Promise<ApiProcess> {
  const { log } = options;
  const conn = await connect(options);
  const { mongo, redis, eventsRedis, producers } = conn;
  const listeners: Array<Listener | LegacyPushListener> = [];
  const stopping = new AbortController();
  // Every upload waiting for its verdict listens to it: as many as there are uploads in flight.
  setMaxListeners(0, stopping.signal);
  const pushKeys = pushKeysFromSeed(conn.keys.pinned('push-signing'));
  const limits: ApiDeps['limits'] = {
    ...options.limits,
    heartbeatSeconds: options.limits.heartbeatSeconds ?? 30,
    uploads: { ...DEFAULT_UPLOAD_LIMITS, ...options.limits.uploads },
  };
  const now = options.now ?? (() => new Date());
  const live = liveState(redis, options.queuePrefix);
  const pushHub = new PushHub({
    db: mongo.db,
    redis,
    live,
    redisUrl: options.redisUrl,
    prefix: options.queuePrefix,
    keys: pushKeys,
    webUrl: options.publicUrls.web,
    log,
    now,
    touchEveryMs: limits.heartbeatSeconds * 1000,
  });
  const release = async () => {
    await pushHub.close();
    // Bounded, then forced: shutdown ends, and lets go of Redis, while Redis does not answer.
    await conn.closeIngestEvents(3_000);
    await closeRedis(eventsRedis);
    await producers.close().catch(() => undefined);
    await closeRedis(redis);
    await mongo.close();
  };
  try {
    await ensureIndexes(mongo.db);
    const swept = await sweepSpool(spoolDirOf(options));
    if (swept > 0) log.warn({ swept }, 'removed upload spool files left by a crash');
    // Give the producer connection a moment, so the first requests find it ready; start anyway
    // when Redis is down (those requests then get a retryable 503).
    await redisReady(redis, 3_000).catch(() => log.warn('starting while Redis is unavailable'));
    pushHub.start();
    const deps = buildDeps(options, conn, {
      pushHub,
      live,
      pushKeys,
      limits,
      now,
      stopping: stopping.signal,
    });
    await listenAll(options, deps, listeners);
  } catch (err) {
    await Promise.all(listeners.map((l) => l.close(0)));
    await release();
    throw err;
  }
  const [admin, web, push, legacy] = listeners as [
    Listener,
    Listener,
    Listener,
    LegacyPushListener?,
  ];
  let closing: Promise<void> | undefined;
  return {
    ports: { admin: admin.port, web: web.port, push: push.port },
    legacyPushPort: legacy?.port,
    close: (deadlineMs) =>
      (closing ??= (async () => {
        // Uploads waiting for their verdict answer "still processing" now. The listeners stop
        // accepting before the push streams end, so a device reconnects to another process
        // (behind a proxy: the other upstream), not to this one, whose streams hear nothing more.
        stopping.abort();
        const closed = Promise.all(listeners.map((l) => l.close(deadlineMs)));
        await pushHub.close(); // open event streams would keep the listeners' close waiting
        await closed;
        await release();
      })()),
  };
}

/**
 * Starts the three hosts, then the legacy push listener when it is on, adding each to `listeners`
 * as it listens (so a failure closes those already started).
 */
async function listenAll(
  options: ApiOptions,
  deps: ApiDeps,
  listeners: Array<Listener | LegacyPushListener>,
): Promise<void> {
  for (const host of ['admin', 'web', 'push'] as const) {
    listeners.push(
      await listen(createHostListener(host, deps), {
        host: host === 'admin' ? (options.adminHost ?? options.host) : options.host,
        port: options.ports[host],
        tls: options.tls,
        ...(options.listenerTimeouts ? { timeouts: options.listenerTimeouts } : {}),
      }),
    );
  }
  if (options.legacyPush) {
    listeners.push(
      await listenLegacyPush(deps, deps.deviceLookups, {
        ...options.legacyPush,
        host: options.host,
        tls: options.tls,
      }),
    );
  }
}

function spoolDirOf(options: ApiOptions): string {
  return options.uploadSpoolDir ?? path.join(os.tmpdir(), 'apkrelay-upload-spool');
}

/** What startApi made before the dependencies: the push hub and the settled options. */
interface Made {
  readonly pushHub: PushHub;
  readonly live: ApiDeps['live'];
  readonly pushKeys: ApiDeps['pushKeys'];
  readonly limits: ApiDeps['limits'];
  readonly now: () => Date;
  readonly stopping: AbortSignal;
}

/** The per-client and per-account throttles, all counting in Redis. */
function throttles(
  options: ApiOptions,
  redis: Connections['redis'],
): Pick<
  ApiDeps,
  'authThrottle' | 'loginThrottle' | 'totpThrottle' | 'signups' | 'registrations' | 'redeliveries'
> {
  const keys = redisKeys(options.queuePrefix);
  return {
    authThrottle: redisAuthThrottle(redis, keys, options.authFailureLimits),
    loginThrottle: redisLoginThrottle(redis, keys),
    totpThrottle: redisTotpThrottle(redis, keys),
    signups: {
      open: options.signups?.open ?? true,
      throttle: redisSignupThrottle(redis, keys, options.signups?.perAddress),
    },
    registrations: redisRegistrationThrottle(redis, keys, options.registrationLimits),
    redeliveries: redisRedeliveryThrottle(
      redis,
      keys.webhookRedeliveries,
      options.webhookLimits?.redeliveriesPerMinute,
    ),
  };
}

/**
 * Where download bytes come from: the blob store (through the encrypted disk cache), the memory of
 * decrypted APKs, and nginx's offload directory, each as configured.
 */
function downloadTiers(options: ApiOptions, conn: Connections) {
  const { log } = options;
  const { mongo, keys } = conn;
  const stored = gridFsBlobStore(mongo.db);
  const blobs = options.downloadCache
    ? cachedBlobStore(stored, { ...options.downloadCache, log })
    : stored;
  const memory = options.downloadMemory
    ? plaintextMemory({ ...options.downloadMemory, blobs, keys })
    : undefined;
  const offload = options.downloadOffload
    ? offloadDir({
        ...options.downloadOffload,
        blobs,
        keys,
        log,
        isServed: (blobId) => isBlobServed(mongo.db, blobId),
      })
    : undefined;
  return { blobs, memory, offload };
}

/** The request handlers' dependencies, built once. */
function buildDeps(options: ApiOptions, conn: Connections, made: Made): ApiDeps {
  const { log } = options;
  const { mongo, keys, redis, producers, ingestEvents } = conn;
  const { pushHub, live, pushKeys, limits, now } = made;
  const { blobs, memory, offload } = downloadTiers(options, conn);
  const accounts = createAccountsService(mongo.db, keys);
  const deliveries = queueDeliverySink(producers.get(webhookDeliveryQueue.name));
  const slots = uploadSlots(limits.uploads);
  const intake = exceptionIntake({ db: mongo.db, accounts, redis, producers, live, now, log });
  return {
    log,
    db: mongo.db,
    accounts,
    ...throttles(options, redis),
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
    hstsMaxAge: options.hstsMaxAge ?? (options.tls ? 31_536_000 : 0),
    keys,
    redis,
    producers,
    now,
    push: pushHub,
    live,
    pushKeys,
    blobs,
    ...(memory ? { memory } : {}),
    ...(offload ? { offload } : {}),
    ingest: createIngestClient({
      db: mongo.db,
      blobs,
      keys,
      queue: producers.get(apkIngestQueue.name),
      events: ingestEvents,
      stopping: made.stopping,
    }),
    uploadSlots: slots,
    uploadSpool: { dir: spoolDirOf(options), budget: spoolBudget(limits.uploads.spoolBytes) },
    notices: requestingDeltas(
      redisNoticeSink({ redis, prefix: options.queuePrefix, failFast: true }),
      producers.get(deltaGenerateQueue.name),
      (err) => log.warn({ err }, 'delta patches not requested'),
    ),
    deliveries,
    overPlan: overPlanEvents({ db: mongo.db, now, deliveries }, log, {
      redis,
      keys: redisKeys(options.queuePrefix),
      windowMs: options.webhookLimits?.overPlanWindowMs ?? DEFAULT_OVER_PLAN_WINDOW_MS,
    }),
    crashes: crashCounter(redis, options.queuePrefix),
    deviceLookups: deviceLookups({ db: mongo.db, accounts }),
    exceptions: {
      intake,
      screenshots: gridFsScreenshots(mongo.db),
    },
    publicUrls: options.publicUrls,
    rollouts: options.rollouts ?? DEFAULT_ROLLOUT_SETTINGS,
    limits,
    readiness: {
      redis: async () => (await redis.ping()) === 'PONG',
      mongo: () => mongoReachable(mongo),
      workers: () => producers.allHaveWorkers(),
    },
    metrics: createApiMetrics({
      db: mongo.db,
      redis,
      prefix: options.queuePrefix,
      producers,
      openStreams: () => pushHub.openStreams(),
      uploadsReceiving: () => slots.held(),
      now,
    }),
    ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
  };
}
