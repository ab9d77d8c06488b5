/**
 * Every setting of apkrelay, read once from the environment and validated.
 *
 * `loadConfig(env)` is pure: it never touches the disk or the network, reports every bad variable
 * in one `ConfigError`, and returns a frozen object. It is the only place that reads
 * `process.env`; everything else receives the config (or a part of it) as a parameter.
 * Side effects that depend on settings (generating a master key or a TLS certificate when none is
 * given, starting embedded Redis/Mongo) live in their own modules and take the config.
 */
import path from 'node:path';
import type { RolloutSettings } from './rollouts/health';
import type { DeltaSettings } from './delta/generate-delta';
import type { UploadLimits } from './uploads/upload-limits';
import { Reader, type Env } from './config-reader';
import { downloadSettings, type DownloadOffload } from './config-downloads';
import type { LogLevel } from './log';
import {
  backupSettings,
  legacyPush,
  masterKeys,
  metricsToken,
  queuePrefix,
  redisUrl,
  requestTimeouts,
  rolloutSettings,
  deltaSettings,
  trustProxy,
  uploadLimits,
  webhookSettings,
  type TrustProxy,
} from './config-sections';
import { AppError } from './errors';

export type { LogLevel };

export interface Config {
  readonly host: string;
  /** ADMIN_HOST: the admin listener's address (default: HOST), e.g. 127.0.0.1 to keep it local. */
  readonly adminHost: string;
  /**
   * HSTS_MAX_AGE: `Strict-Transport-Security: max-age=<n>` on the admin and web hosts, in seconds;
   * 0: not sent. Default one year with TLS=on, 0 with TLS=off (the TLS-terminating proxy sends it,
   * unless this is set).
   */
  readonly hstsMaxAge: number;
  readonly port: number;
  readonly webPort: number;
  readonly pushPort: number;
  readonly publicBaseUrl: string;
  readonly publicWebUrl: string;
  readonly publicPushUrl: string;
  /** Unset: an embedded Redis is started under `dataDir`. */
  readonly redisUrl: string | undefined;
  /** Unset: an embedded MongoDB-protocol server is started under `dataDir`. */
  readonly mongoUrl: string | undefined;
  /** EMBEDDED_MONGO_BACKEND: the embedded FerretDB's storage (ignored with MONGO_URL or mongod). */
  readonly embeddedMongoBackend: 'postgresql' | 'sqlite';
  readonly dataDir: string;
  /** 32 bytes; unset: generated once into `dataDir/master.key`. */
  readonly masterKey: Buffer | undefined;
  /** MASTER_KEY_PREVIOUS: keys of before a rotation, most recent first; they only open. */
  readonly masterKeyPrevious: readonly Buffer[];
  readonly tls: boolean;
  readonly tlsCert: string | undefined;
  readonly tlsKey: string | undefined;
  readonly logLevel: LogLevel;
  /** Prefix of every Redis key (BullMQ queues included); lets several deployments share a Redis. */
  readonly queuePrefix: string;
  readonly shutdownTimeoutMs: number;
  /** Largest APK an upload may carry. */
  readonly maxApkBytes: number;
  /** How long the legacy upload endpoint waits for the worker's verdict. */
  readonly uploadWaitTimeoutMs: number;
  /** Largest exception report body (form or JSON, screenshot included). */
  readonly maxExceptionBytes: number;
  /**
   * A worker's lock on an active job; a job whose worker died is retried once its lock expires.
   * Shorter locks recover faster from crashes and cost more Redis traffic.
   */
  readonly jobLockMs: number;
  /** Devices report every so many seconds; three missed beats make an installation offline. */
  readonly heartbeatSeconds: number;
  /** The rollout health gate (ROLLOUT_*; docs/rollouts.md). */
  readonly rollouts: RolloutSettings;
  /** Delta patches (DELTA_*; docs/delta-updates.md). */
  readonly deltas: DeltaSettings;
  /** The executable search path (PATH), for locating redis-server, mongod/ferretdb, apksigner. */
  readonly searchPath: string;
  /** Nightly backup: cron pattern (6 fields, with seconds; or 5) and its time zone. */
  readonly backupCron: string;
  readonly backupTz: string;
  /** Where backup archives go (default `dataDir/backups`). */
  readonly backupDir: string;
  /** Archives older than this many days are deleted after each backup. */
  readonly backupKeepDays: number;
  /** Bearer token `/metrics` requires; unset: `/metrics` is off (404). */
  readonly metricsToken: string | undefined;
  /**
   * Which proxies in front of the listeners to believe about the client address
   * (`X-Forwarded-For`): false (none; the socket's peer is the client), a hop count, or addresses
   * and subnets (`loopback`, `10.0.0.0/8`, ...). Failed-auth throttling counts per client address.
   */
  readonly trustProxy: TrustProxy;
  /** Failed API-key authentications allowed per client address, and per presented key, in 15 min (0: no limit). */
  readonly authFailuresPerAddress: number;
  readonly authFailuresPerKey: number;
  /** Public sign-up (API and web): open, or closed (accounts only via `apkrelay account create`). */
  readonly signup: 'open' | 'closed';
  /** Sign-up attempts allowed per client address in an hour (0: no limit). */
  readonly signupsPerAddress: number;
  /** Local cache of APK ciphertext for downloads, in MiB under `dataDir/cache/apks` (0: off). */
  readonly downloadCacheMiB: number;
  /** Decrypted APKs held in the API's memory for downloads, in MiB (0: off; docs/downloads.md). */
  readonly downloadMemoryMiB: number;
  /** DOWNLOAD_OFFLOAD=nginx: nginx sends download bytes from a RAM-backed directory. */
  readonly downloadOffload: DownloadOffload;
  /** A request's headers must arrive within this (and a TLS handshake end within it). */
  readonly headersTimeoutMs: number;
  /** A whole request, body included, must arrive within this; the reply may take longer. */
  readonly requestTimeoutMs: number;
  /** Bounds on upload intake (UPLOAD_* settings; see docs/uploads-limits.md). */
  readonly uploads: UploadLimits;
  /**
   * Webhook delivery (docs/webhooks.md): WEBHOOK_ALLOW_PRIVATE (deliver to loopback, private,
   * link-local and multicast addresses too; default off), WEBHOOK_DISABLE_AFTER_DAYS (an
   * endpoint failing without a success for this long is disabled), WEBHOOK_TIMEOUT_MS (one
   * deadline over an attempt), WEBHOOK_ACCOUNT_CONCURRENCY (one account's attempts under way at
   * once), WEBHOOK_REDELIVERIES_PER_MINUTE (redeliveries by hand per account).
   */
  readonly webhooks: {
    readonly allowPrivate: boolean;
    readonly disableAfterDays: number;
    readonly timeoutMs: number;
    readonly accountConcurrency: number;
    readonly redeliveriesPerMinute: number;
    /** WEBHOOK_OVER_PLAN_WINDOW_SECONDS, as ms: one installation.over_plan per app per window. */
    readonly overPlanWindowMs: number;
  };
  /**
   * DEVICE_NEW_REGISTRATIONS_PER_KEY / _PER_APP: new installations per minute per presented key
   * and per app (docs/push.md#new-registrations).
   */
  readonly registrationLimits: { readonly perKey: number; readonly perApp: number };
  /** EXCEPTION_SPIKE_MIN / _FACTOR: when an hour's reports are a spike (docs/webhooks.md). */
  readonly exceptionSpike: { readonly min: number; readonly factor: number };
  /** LEGACY_PUSH_PORT: the PushLink SDK's push listener (docs/pushlink-sdk.md); unset: off. */
  readonly legacyPushPort: number | undefined;
  /** LEGACY_PUSH_TLS_MIN: lowest TLS version that listener admits (TLSv1 for Android < 5). */
  readonly legacyPushTlsMin: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  /**
   * LEGACY_PUSH_MAX_CONNECTIONS (sockets open in total), LEGACY_PUSH_MAX_PENDING_PER_ADDRESS (not
   * yet subscribed, per client address; 0: not limited), LEGACY_PUSH_MAX_HEARTBEAT_SECONDS (the
   * longest heartbeat a device may ask for; longer ones are clamped).
   */
  readonly legacyPushBounds: {
    readonly maxConnections: number;
    readonly maxPendingPerAddress: number;
    readonly maxHeartbeatSeconds: number;
  };
}

/** Every problem of the settings at once (CONFIG_INVALID); the process refuses to start. */
export class ConfigError extends AppError {
  constructor(readonly problems: readonly string[]) {
    super('CONFIG_INVALID', {
      message: `Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    });
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

export function loadConfig(env: Env, cwd: string = process.cwd()): Config {
  const r = new Reader(env);
  const port = r.port('PORT', 3000);
  const webPort = r.port('WEB_PORT', 3001);
  const pushPort = r.port('PUSH_PORT', 3002);
  if (new Set([port, webPort, pushPort]).size !== 3) {
    r.problems.push(
      `PORT, WEB_PORT and PUSH_PORT must differ (got ${port}, ${webPort}, ${pushPort})`,
    );
  }
  const tls = r.oneOf('TLS', ['on', 'off'], 'on') === 'on';
  const tlsCert = r.raw('TLS_CERT');
  const tlsKey = r.raw('TLS_KEY');
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    r.problems.push('TLS_CERT and TLS_KEY must be set together (paths to PEM files)');
  }
  const scheme = tls ? 'https' : 'http';
  const host = r.raw('HOST') ?? '0.0.0.0';
  const localUrl = (p: number) => `${scheme}://localhost:${p}`;
  const config: Config = {
    host,
    adminHost: r.raw('ADMIN_HOST') ?? host,
    hstsMaxAge: r.integer('HSTS_MAX_AGE', tls ? 31_536_000 : 0, 0, 2 ** 31 - 1),
    port,
    webPort,
    pushPort,
    publicBaseUrl: r.url('PUBLIC_BASE_URL', ['https:', 'http:']) ?? localUrl(port),
    publicWebUrl: r.url('PUBLIC_WEB_URL', ['https:', 'http:']) ?? localUrl(webPort),
    publicPushUrl: r.url('PUBLIC_PUSH_URL', ['https:', 'http:']) ?? localUrl(pushPort),
    redisUrl: redisUrl(r),
    mongoUrl: r.url('MONGO_URL', ['mongodb:', 'mongodb+srv:']),
    embeddedMongoBackend: r.oneOf('EMBEDDED_MONGO_BACKEND', ['postgresql', 'sqlite'], 'postgresql'),
    dataDir: path.resolve(cwd, r.raw('DATA_DIR') ?? '.data'),
    ...masterKeys(r),
    tls,
    tlsCert: tlsCert === undefined ? undefined : path.resolve(cwd, tlsCert),
    tlsKey: tlsKey === undefined ? undefined : path.resolve(cwd, tlsKey),
    logLevel: r.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    queuePrefix: queuePrefix(r),
    shutdownTimeoutMs: r.integer('SHUTDOWN_TIMEOUT_MS', 15_000, 100, 600_000),
    maxApkBytes: r.integer('MAX_APK_BYTES', 1024 ** 3, 1024, 8 * 1024 ** 3),
    uploadWaitTimeoutMs: r.integer('UPLOAD_WAIT_TIMEOUT_MS', 15 * 60_000, 1_000, 3_600_000),
    maxExceptionBytes: r.integer('MAX_EXCEPTION_BYTES', 2 * 1024 ** 2, 64 * 1024, 64 * 1024 ** 2),
    jobLockMs: r.integer('JOB_LOCK_MS', 30_000, 1_000, 600_000),
    heartbeatSeconds: r.integer('HEARTBEAT_SECONDS', 30, 1, 3600),
    rollouts: rolloutSettings(r),
    deltas: deltaSettings(r),
    searchPath: env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
    ...backupSettings(r, cwd),
    ...webhookSettings(r),
    metricsToken: metricsToken(r),
    trustProxy: trustProxy(r),
    authFailuresPerAddress: r.integer('AUTH_FAILURES_PER_ADDRESS', 100, 0, 1_000_000),
    authFailuresPerKey: r.integer('AUTH_FAILURES_PER_KEY', 20, 0, 1_000_000),
    signup: r.oneOf('SIGNUP', ['open', 'closed'], 'open'),
    signupsPerAddress: r.integer('SIGNUPS_PER_ADDRESS', 10, 0, 1_000_000),
    downloadCacheMiB: r.integer('DOWNLOAD_CACHE_MB', 2048, 0, 1024 * 1024),
    ...downloadSettings(r),
    ...requestTimeouts(r),
    uploads: uploadLimits(r),
    ...legacyPush(r, [port, webPort, pushPort]),
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return Object.freeze(config);
}

/** The process's own environment; the one sanctioned read of `process.env`. */
export function processEnv(): Env {
  return process.env;
}
