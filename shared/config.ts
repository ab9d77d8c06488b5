/**
 * Every setting of apkrelay, read once from the environment and validated.
 *
 * `loadConfig(env)` is pure: it never touches the disk or the network, reports every bad variable
 * in one `ConfigError`, and returns a frozen object. It is the only place that reads
 * `process.env`; everything else receives the config (or a part of it) as a parameter.
 * Side effects that depend on settings (generating a master key or a TLS certificate when none is
 * given, starting embedded Redis/Mongo) live in their own modules and take the config.
 */
import { HALT_ALPHA, type RolloutSettings } from './rollouts/health';
import path from 'node:path';
import { IANAZone } from 'luxon';
import { isClusterUrl, parseClusterUrl } from './storage/redis-url';
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from './uploads/upload-limits';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

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
  readonly trustProxy: false | number | readonly string[];
  /** Failed API-key authentications allowed per client address, and per presented key, in 15 min (0: no limit). */
  readonly authFailuresPerAddress: number;
  readonly authFailuresPerKey: number;
  /** Public sign-up (API and web): open, or closed (accounts only via `apkrelay account create`). */
  readonly signup: 'open' | 'closed';
  /** Sign-up attempts allowed per client address in an hour (0: no limit). */
  readonly signupsPerAddress: number;
  /** Local cache of APK ciphertext for downloads, in MiB under `dataDir/cache/apks` (0: off). */
  readonly downloadCacheMiB: number;
  /** A request's headers must arrive within this (and a TLS handshake end within it). */
  readonly headersTimeoutMs: number;
  /** A whole request, body included, must arrive within this; the reply may take longer. */
  readonly requestTimeoutMs: number;
  /** Bounds on upload intake (UPLOAD_* settings; see docs/uploads-limits.md). */
  readonly uploads: UploadLimits;
  /**
   * Webhook delivery (docs/webhooks.md): WEBHOOK_ALLOW_PRIVATE (deliver to loopback, private,
   * link-local and multicast addresses too; default off), WEBHOOK_DISABLE_AFTER_DAYS (an
   * endpoint failing without a success for this long is disabled), WEBHOOK_TIMEOUT_MS.
   */
  readonly webhooks: {
    readonly allowPrivate: boolean;
    readonly disableAfterDays: number;
    readonly timeoutMs: number;
  };
  /** EXCEPTION_SPIKE_MIN / _FACTOR: when an hour's reports are a spike (docs/webhooks.md). */
  readonly exceptionSpike: { readonly min: number; readonly factor: number };
  /** LEGACY_PUSH_PORT: the PushLink SDK's push listener (docs/pushlink-sdk.md); unset: off. */
  readonly legacyPushPort: number | undefined;
  /** LEGACY_PUSH_TLS_MIN: lowest TLS version that listener admits (TLSv1 for Android < 5). */
  readonly legacyPushTlsMin: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;
const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

/** Collects problems while reading variables so that one run reports all of them. */
class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  port(name: string, fallback: number): number {
    return this.integer(name, fallback, 1, 65535);
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  url(name: string, protocols: readonly string[]): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return value.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name} must be a ${protocols.join(' or ')} URL (got "${value}")`);
      return undefined;
    }
  }

  key32(name: string, value = this.raw(name)): Buffer | undefined {
    if (value === undefined) return undefined;
    const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64') : undefined;
    if (bytes?.length !== 32) {
      this.problems.push(`${name} must be 32 bytes encoded in base64 (44 characters)`);
      return undefined;
    }
    return bytes;
  }
}

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
    ...requestTimeouts(r),
    uploads: uploadLimits(r),
    ...legacyPush(r, [port, webPort, pushPort]),
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return Object.freeze(config);
}

function rolloutSettings(r: Reader): RolloutSettings {
  return {
    evaluationMs: r.integer('ROLLOUT_EVALUATION_SECONDS', 300, 1, 86_400) * 1000,
    soakMs: r.integer('ROLLOUT_SOAK_SECONDS', 3600, 0, 30 * 86_400) * 1000,
    factor: r.integer('ROLLOUT_HALT_FACTOR', 2, 1, 100),
    minExceptions: r.integer('ROLLOUT_MIN_EXCEPTIONS', 10, 1, 1_000_000),
    alpha: HALT_ALPHA,
  };
}

function masterKeys(r: Reader) {
  const masterKey = r.key32('MASTER_KEY');
  const list = r.raw('MASTER_KEY_PREVIOUS')?.split(',') ?? [];
  const masterKeyPrevious = list.flatMap(
    (v) => r.key32('MASTER_KEY_PREVIOUS (each key)', v.trim()) ?? [],
  );
  const all = [masterKey, ...masterKeyPrevious].map((k) => k?.toString('base64'));
  if (list.length > 0 && r.raw('MASTER_KEY') === undefined) {
    r.problems.push('MASTER_KEY_PREVIOUS needs MASTER_KEY (the key that seals from now on)');
  } else if (new Set(all).size !== all.length) {
    r.problems.push('MASTER_KEY_PREVIOUS must not repeat a key or MASTER_KEY');
  }
  return { masterKey, masterKeyPrevious };
}

function requestTimeouts(r: Reader) {
  const headersTimeoutMs = r.integer('HEADERS_TIMEOUT_MS', 20_000, 100, 600_000);
  const requestTimeoutMs = r.integer('REQUEST_TIMEOUT_MS', 3_600_000, 100, 86_400_000);
  if (requestTimeoutMs < headersTimeoutMs) {
    r.problems.push(
      `REQUEST_TIMEOUT_MS must not be shorter than HEADERS_TIMEOUT_MS (got ${requestTimeoutMs} < ${headersTimeoutMs})`,
    );
  }
  return { headersTimeoutMs, requestTimeoutMs };
}

function uploadLimits(r: Reader): UploadLimits {
  const d = DEFAULT_UPLOAD_LIMITS;
  return Object.freeze({
    preAuthBytes: r.integer('UPLOAD_PREAUTH_BYTES', d.preAuthBytes, 0, 16 * 1024 ** 2),
    progressBytes: r.integer('UPLOAD_PROGRESS_BYTES', d.progressBytes, 1, 64 * 1024 ** 2),
    progressWindowMs: r.integer('UPLOAD_PROGRESS_WINDOW_MS', d.progressWindowMs, 100, 3_600_000),
    perAddress: r.integer('UPLOADS_PER_ADDRESS', d.perAddress, 1, 100_000),
    total: r.integer('UPLOADS_TOTAL', d.total, 1, 100_000),
  });
}

const TLS_VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;

function legacyPush(r: Reader, taken: readonly number[]) {
  const on = r.raw('LEGACY_PUSH_PORT') !== undefined;
  const legacyPushPort = on ? r.port('LEGACY_PUSH_PORT', 0) : undefined;
  if (legacyPushPort && taken.includes(legacyPushPort)) {
    r.problems.push(`LEGACY_PUSH_PORT must differ from PORT, WEB_PORT and PUSH_PORT`);
  }
  const min = r.raw('LEGACY_PUSH_TLS_MIN') ?? 'TLSv1.2';
  const legacyPushTlsMin = TLS_VERSIONS.find((v) => v === min);
  if (!legacyPushTlsMin) {
    r.problems.push(`LEGACY_PUSH_TLS_MIN must be one of ${TLS_VERSIONS.join(', ')} (got "${min}")`);
  }
  return { legacyPushPort, legacyPushTlsMin: legacyPushTlsMin ?? 'TLSv1.2' };
}

/** One Redis (`redis:`, `rediss:`) or a cluster (`redis+cluster:`, storage/redis-url.ts). */
function redisUrl(r: Reader): string | undefined {
  const value = r.raw('REDIS_URL');
  if (value === undefined || !isClusterUrl(value)) return r.url('REDIS_URL', ['redis:', 'rediss:']);
  try {
    parseClusterUrl(value);
    return value;
  } catch (err) {
    // The value is not echoed: it may carry the password.
    r.problems.push(`REDIS_URL names a cluster but is malformed: ${(err as Error).message}`);
    return undefined;
  }
}

function queuePrefix(r: Reader): string {
  const value = r.raw('QUEUE_PREFIX') ?? 'apkrelay';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(value)) {
    r.problems.push(`QUEUE_PREFIX must be 1-64 letters, digits, "_" or "-" (got "${value}")`);
  }
  return value;
}

const CRON_FIELD = /^[0-9A-Za-z*/,?#-]+$/;

function webhookSettings(r: Reader) {
  return {
    webhooks: {
      allowPrivate: r.oneOf('WEBHOOK_ALLOW_PRIVATE', ['on', 'off'], 'off') === 'on',
      disableAfterDays: r.integer('WEBHOOK_DISABLE_AFTER_DAYS', 3, 1, 365),
      timeoutMs: r.integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    },
    exceptionSpike: {
      min: r.integer('EXCEPTION_SPIKE_MIN', 50, 1, 1_000_000),
      factor: r.integer('EXCEPTION_SPIKE_FACTOR', 3, 1, 1000),
    },
  };
}

function backupSettings(r: Reader, cwd: string) {
  const backupCron = r.raw('BACKUP_CRON') ?? '0 30 2 * * *';
  const fields = backupCron.split(/\s+/);
  if (![5, 6].includes(fields.length) || !fields.every((f) => CRON_FIELD.test(f))) {
    r.problems.push(`BACKUP_CRON must be a cron pattern of 5 or 6 fields (got "${backupCron}")`);
  }
  const backupTz = r.raw('BACKUP_TZ') ?? 'UTC';
  if (!IANAZone.isValidZone(backupTz)) {
    r.problems.push(`BACKUP_TZ must be an IANA time zone such as Europe/Paris (got "${backupTz}")`);
  }
  const dataDir = path.resolve(cwd, r.raw('DATA_DIR') ?? '.data');
  const dir = r.raw('BACKUP_DIR');
  return {
    backupCron,
    backupTz,
    backupDir: dir === undefined ? path.join(dataDir, 'backups') : path.resolve(cwd, dir),
    backupKeepDays: r.integer('BACKUP_KEEP_DAYS', 14, 1, 3650),
  };
}

function metricsToken(r: Reader): string | undefined {
  const value = r.raw('METRICS_TOKEN');
  if (value !== undefined && !/^[\x21-\x7e]{16,256}$/.test(value)) {
    r.problems.push('METRICS_TOKEN must be 16 to 256 printable characters without spaces');
  }
  return value;
}

const PROXY_ITEM = /^(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(\/\d{1,3})?)$/;

function trustProxy(r: Reader): Config['trustProxy'] {
  const value = r.raw('TRUST_PROXY');
  if (value === undefined || value === 'off') return false;
  if (/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 10) return Number(value);
  const items = value.split(',').map((v) => v.trim());
  if (items.every((v) => PROXY_ITEM.test(v) && !/^\d+$/.test(v))) return items;
  r.problems.push(
    `TRUST_PROXY must be off, a hop count from 1 to 10, or a comma-separated list of addresses, subnets, loopback, linklocal or uniquelocal (got "${value}")`,
  );
  return false;
}

/** The process's own environment; the one sanctioned read of `process.env`. */
export function processEnv(): Env {
  return process.env;
}
