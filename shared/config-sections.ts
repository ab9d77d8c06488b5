/**
 * The settings of loadConfig (shared/config.ts) that take more than one line to read: each
 * validates its variables, reports problems to the Reader, and returns a fallback on a bad value.
 */
import path from 'node:path';
import { IANAZone } from 'luxon';
import { HALT_ALPHA, type RolloutSettings } from './rollouts/health';
import { isClusterUrl, parseClusterUrl } from './storage/redis-url';
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from './uploads/upload-limits';
import type { Reader } from './config-reader';
import { DEFAULT_DELTA_SETTINGS, type DeltaSettings } from './delta/generate-delta';

/** TRUST_PROXY: off, a hop count, or the trusted addresses and subnets. */
export type TrustProxy = false | number | readonly string[];

export function rolloutSettings(r: Reader): RolloutSettings {
  return {
    evaluationMs: r.integer('ROLLOUT_EVALUATION_SECONDS', 300, 1, 86_400) * 1000,
    soakMs: r.integer('ROLLOUT_SOAK_SECONDS', 3600, 0, 30 * 86_400) * 1000,
    factor: r.integer('ROLLOUT_HALT_FACTOR', 2, 1, 100),
    minExceptions: r.integer('ROLLOUT_MIN_EXCEPTIONS', 10, 1, 1_000_000),
    alpha: HALT_ALPHA,
  };
}

/** DELTA_*: which patches the generator makes and keeps (docs/delta-updates.md). */
export function deltaSettings(r: Reader): DeltaSettings {
  return {
    maxSources: r.integer('DELTA_MAX_SOURCES', DEFAULT_DELTA_SETTINGS.maxSources, 0, 50),
    maxShare: r.share('DELTA_MAX_SHARE', DEFAULT_DELTA_SETTINGS.maxShare),
  };
}

export function masterKeys(r: Reader) {
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

export function requestTimeouts(r: Reader) {
  const headersTimeoutMs = r.integer('HEADERS_TIMEOUT_MS', 20_000, 100, 600_000);
  const requestTimeoutMs = r.integer('REQUEST_TIMEOUT_MS', 3_600_000, 100, 86_400_000);
  if (requestTimeoutMs < headersTimeoutMs) {
    r.problems.push(
      `REQUEST_TIMEOUT_MS must not be shorter than HEADERS_TIMEOUT_MS (got ${requestTimeoutMs} < ${headersTimeoutMs})`,
    );
  }
  return { headersTimeoutMs, requestTimeoutMs };
}

export function uploadLimits(r: Reader): UploadLimits {
  const d = DEFAULT_UPLOAD_LIMITS;
  return Object.freeze({
    preAuthBytes: r.integer('UPLOAD_PREAUTH_BYTES', d.preAuthBytes, 0, 16 * 1024 ** 2),
    spoolBytes: r.integer('UPLOAD_SPOOL_BYTES', d.spoolBytes, 0, 1024 ** 4),
    progressBytes: r.integer('UPLOAD_PROGRESS_BYTES', d.progressBytes, 1, 64 * 1024 ** 2),
    progressWindowMs: r.integer('UPLOAD_PROGRESS_WINDOW_MS', d.progressWindowMs, 100, 3_600_000),
    perAddress: r.integer('UPLOADS_PER_ADDRESS', d.perAddress, 1, 100_000),
    total: r.integer('UPLOADS_TOTAL', d.total, 1, 100_000),
  });
}

const TLS_VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;

export function legacyPush(r: Reader, taken: readonly number[]) {
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
  const legacyPushBounds = {
    maxConnections: r.integer('LEGACY_PUSH_MAX_CONNECTIONS', 20_000, 1, 1_000_000),
    maxPendingPerAddress: r.integer('LEGACY_PUSH_MAX_PENDING_PER_ADDRESS', 32, 0, 1_000_000),
    maxHeartbeatSeconds: r.integer('LEGACY_PUSH_MAX_HEARTBEAT_SECONDS', 300, 30, 86_400),
  };
  return { legacyPushPort, legacyPushTlsMin: legacyPushTlsMin ?? 'TLSv1.2', legacyPushBounds };
}

/** One Redis (`redis:`, `rediss:`) or a cluster (`redis+cluster:`, storage/redis-url.ts). */
export function redisUrl(r: Reader): string | undefined {
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

export function queuePrefix(r: Reader): string {
  const value = r.raw('QUEUE_PREFIX') ?? 'apkrelay';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(value)) {
    r.problems.push(`QUEUE_PREFIX must be 1-64 letters, digits, "_" or "-" (got "${value}")`);
  }
  return value;
}

const CRON_FIELD = /^[0-9A-Za-z*/,?#-]+$/;

export function webhookSettings(r: Reader) {
  return {
    webhooks: {
      allowPrivate: r.oneOf('WEBHOOK_ALLOW_PRIVATE', ['on', 'off'], 'off') === 'on',
      disableAfterDays: r.integer('WEBHOOK_DISABLE_AFTER_DAYS', 3, 1, 365),
      timeoutMs: r.integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      accountConcurrency: r.integer('WEBHOOK_ACCOUNT_CONCURRENCY', 2, 1, 64),
      redeliveriesPerMinute: r.integer('WEBHOOK_REDELIVERIES_PER_MINUTE', 30, 1, 10_000),
      overPlanWindowMs: r.integer('WEBHOOK_OVER_PLAN_WINDOW_SECONDS', 3600, 60, 86_400) * 1000,
    },
    registrationLimits: {
      perKey: r.integer('DEVICE_NEW_REGISTRATIONS_PER_KEY', 120, 1, 1_000_000),
      perApp: r.integer('DEVICE_NEW_REGISTRATIONS_PER_APP', 600, 1, 1_000_000),
    },
    exceptionSpike: {
      min: r.integer('EXCEPTION_SPIKE_MIN', 50, 1, 1_000_000),
      factor: r.integer('EXCEPTION_SPIKE_FACTOR', 3, 1, 1000),
    },
  };
}

export function backupSettings(r: Reader, cwd: string) {
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

export function metricsToken(r: Reader): string | undefined {
  const value = r.raw('METRICS_TOKEN');
  if (value !== undefined && !/^[\x21-\x7e]{16,256}$/.test(value)) {
    r.problems.push('METRICS_TOKEN must be 16 to 256 printable characters without spaces');
  }
  return value;
}

const PROXY_ITEM = /^(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(\/\d{1,3})?)$/;

export function trustProxy(r: Reader): TrustProxy {
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
