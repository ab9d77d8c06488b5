/**
 * A running apkrelay for integration tests: the real API (three HTTPS listeners on ephemeral
 * ports) and, unless disabled, the real workers, against the real Redis and Mongo, isolated in
 * their own database and queue prefix. `close()` stops everything and drops the database.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startApi, type ApiProcess } from '../../api/main';
import type { LegacyPushBounds } from '../../api/push/legacy/listener';
import { freePort } from '../../ops/services/child';
import type { AuthFailureLimits } from '../../shared/accounts/auth-throttle';
import type { Logger } from '../../shared/log';
import type { RolloutSettings } from '../../shared/rollouts/health';
import type { UploadLimits } from '../../shared/uploads/upload-limits';
import { selfSignedCertificate, type TlsMaterial } from '../../shared/crypto/tls';
import { connectMongo, type Mongo } from '../../shared/storage/mongo';
import { startWorkers, type WorkerProcess } from '../../workers/main';
import type { SpikeSettings } from '../../workers/exceptions/events';
import type { WebhookSettings } from '../../workers/webhooks/delivery-processor';
import { track } from './resources';
import { isolation, serviceUrls, testLogger } from './services';

let tls: TlsMaterial | undefined;
/**
 * How long the workers may take to close before the stack's close names what they were doing:
 * their own graces (10 s for jobs, 10 s more once disconnected, 5 s for the store watch) and a
 * margin, under the 60 s hook timeout. A CI run once found them never closed, with no clue why.
 */
const WORKERS_CLOSE_MS = 40_000;

/** `work`, or an error naming what it was still doing after `ms`. */
async function closeWithin(ms: number, work: Promise<void>, doing: () => string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still closing after ${ms} ms: ${doing()}`)), ms);
  });
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export function testTls(): TlsMaterial {
  return (tls ??= selfSignedCertificate(['localhost'], new Date()));
}

export interface TestStack {
  readonly urls: { readonly admin: string; readonly web: string; readonly push: string };
  /** The PushLink SDK's push listener (option `legacyPush`), on 127.0.0.1. */
  readonly legacyPushPort: number | undefined;
  readonly ca: string;
  readonly mongo: Mongo;
  readonly database: string;
  readonly prefix: string;
  readonly masterKey: Buffer;
  readonly dataDir: string;
  readonly redisUrl: string;
  readonly mongoUrl: string;
  startWorkers(): Promise<WorkerProcess>;
  /**
   * Another API process on the same database and queue prefix (same clock and limits): for tests
   * of rules that must hold across API processes. Closed with the stack.
   */
  startApi(): Promise<{
    readonly urls: TestStack['urls'];
    readonly legacyPushPort: number | undefined;
  }>;
  close(): Promise<void>;
}

export async function startStack(
  options: {
    workers?: boolean;
    maxApkBytes?: number;
    maxExceptionBytes?: number;
    heartbeatSeconds?: number;
    now?: () => Date;
    /** Same key as another stack's: a restored database stays readable. Default: random. */
    masterKey?: Buffer;
    /** Default: the test logger (TEST_LOG_LEVEL, silent). */
    log?: Logger;
    metricsToken?: string;
    /** Slow-sender bounds of the three listeners (default: the product's, 20 s and 1 h). */
    listenerTimeouts?: { headersMs: number; requestMs: number };
    /** Another Redis than the shared test one (fault tests restart their own). */
    redisUrl?: string;
    /** Another MongoDB-protocol server than the shared test one. */
    mongoUrl?: string;
    /** The workers' directory for local ciphertext copies. Default: the OS temporary directory. */
    workerTmpDir?: string;
    /**
     * Public sign-up (SIGNUP, SIGNUPS_PER_ADDRESS). Default: open and not limited, because test
     * files sign up many accounts from one loopback address; sign-up tests set their own limit.
     */
    signups?: { open?: boolean; perAddress?: number };
    /** Failed API keys per client address and per key (AUTH_FAILURES_*). Default: the product's. */
    authFailures?: AuthFailureLimits;
    /** Proxies believed about the client address (TRUST_PROXY). Default: none. */
    trustProxy?: false | readonly string[];
    /**
     * Downloads through the local ciphertext cache (DOWNLOAD_CACHE_MB), under the stack's data
     * directory, shared by its API processes as in production. Default: on, 256 MiB.
     */
    downloadCache?: boolean;
    /** DOWNLOAD_MEMORY_MB in bytes: downloads from decrypted APKs held in memory. Default: off. */
    downloadMemoryBytes?: number;
    /** Upload intake bounds (UPLOAD_* settings). Default: the product's. */
    uploads?: Partial<UploadLimits>;
    /**
     * ADMIN_HOST: the admin listener's own address (default: HOST, 127.0.0.1 here). Its URL then
     * names that address; the test certificate names `localhost`, so reach it with servername.
     */
    adminHost?: string;
    /** The PushLink SDK's push listener (LEGACY_PUSH_PORT, on a free port; TLS_MIN). Default: off. */
    legacyPush?: {
      tlsMin?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2';
      /** The per-socket bounds (api/push/legacy/pushlink-socket.ts). Default: the product's. */
      bounds?: Partial<LegacyPushBounds>;
    };
    /** The rollout health gate settings (ROLLOUT_*), the workers' and the API's. Default: the product's. */
    rollouts?: RolloutSettings;
    /** The workers' webhook delivery (WEBHOOK_*, plus a CA to trust). Default: the product's. */
    webhooks?: WebhookSettings;
    /** EXCEPTION_SPIKE_*. Default: the product's. */
    spike?: SpikeSettings;
    /** WEBHOOK_REDELIVERIES_PER_MINUTE, WEBHOOK_OVER_PLAN_WINDOW_SECONDS. Default: the product's. */
    webhookLimits?: { redeliveriesPerMinute?: number; overPlanWindowMs?: number };
    /** DEVICE_NEW_REGISTRATIONS_PER_KEY / _PER_APP. Default: the product's. */
    registrationLimits?: { perKey: number; perApp: number };
  } = {},
): Promise<TestStack> {
  const shared = options.redisUrl && options.mongoUrl ? undefined : serviceUrls();
  const redisUrl = options.redisUrl ?? shared!.redisUrl;
  const mongoUrl = options.mongoUrl ?? shared!.mongoUrl;
  const { database, prefix } = isolation();
  const masterKey = options.masterKey ?? randomBytes(32);
  const log = options.log ?? testLogger();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-test-'));
  const material = testTls();
  const closers: Array<() => Promise<void>> = [];
  const mongo = await connectMongo(mongoUrl, database);
  closers.push(
    track(`mongo ${database}`, async () => {
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.close();
    }),
  );
  const common = { log, redisUrl, mongoUrl, database, queuePrefix: prefix, masterKey };
  const launchWorkers = async (): Promise<WorkerProcess> => {
    const workers = await startWorkers({
      ...common,
      schedulers: false,
      ...(options.rollouts ? { rollouts: options.rollouts } : {}),
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
      ...(options.spike ? { spike: options.spike } : {}),
      ...(options.heartbeatSeconds ? { heartbeatSeconds: options.heartbeatSeconds } : {}),
      ...(options.workerTmpDir ? { tmpDir: options.workerTmpDir } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    const close = track('workers', () =>
      closeWithin(WORKERS_CLOSE_MS, workers.close(), () => `workers: ${workers.closingStep()}`),
    );
    closers.push(close);
    return { close, closingStep: () => workers.closingStep() };
  };
  if (options.workers ?? true) await launchWorkers();
  const url = (port: number) => `https://localhost:${port}`;
  const launchApi = async () => {
    const ports = { admin: await freePort(), web: await freePort(), push: await freePort() };
    const urls = {
      admin: options.adminHost ? `https://${options.adminHost}:${ports.admin}` : url(ports.admin),
      web: url(ports.web),
      push: url(ports.push),
    };
    const api: ApiProcess = await startApi({
      ...common,
      tls: material,
      host: '127.0.0.1',
      ...(options.adminHost ? { adminHost: options.adminHost } : {}),
      ports,
      publicUrls: { base: urls.admin, web: urls.web, push: urls.push },
      limits: {
        maxApkBytes: options.maxApkBytes ?? 64 * 1024 * 1024,
        uploadWaitTimeoutMs: 60_000,
        heartbeatSeconds: options.heartbeatSeconds ?? 30,
        ...(options.maxExceptionBytes ? { maxExceptionBytes: options.maxExceptionBytes } : {}),
        ...(options.uploads ? { uploads: options.uploads } : {}),
      },
      ...(options.now ? { now: options.now } : {}),
      ...(options.rollouts ? { rollouts: options.rollouts } : {}),
      ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
      ...(options.listenerTimeouts ? { listenerTimeouts: options.listenerTimeouts } : {}),
      signups: {
        open: options.signups?.open ?? true,
        perAddress: options.signups?.perAddress ?? 0,
      },
      ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
      ...(options.authFailures ? { authFailureLimits: options.authFailures } : {}),
      ...(options.webhookLimits ? { webhookLimits: options.webhookLimits } : {}),
      ...(options.registrationLimits ? { registrationLimits: options.registrationLimits } : {}),
      ...(options.legacyPush
        ? { legacyPush: { port: await freePort(), ...options.legacyPush } }
        : {}),
      uploadSpoolDir: path.join(dataDir, 'spool', 'uploads'),
      ...((options.downloadCache ?? true)
        ? { downloadCache: { dir: path.join(dataDir, 'cache', 'apks'), maxBytes: 256 * 1024 ** 2 } }
        : {}),
      ...(options.downloadMemoryBytes
        ? { downloadMemory: { maxBytes: options.downloadMemoryBytes } }
        : {}),
    });
    closers.push(track('api', () => api.close(1_000)));
    return { urls, legacyPushPort: api.legacyPushPort };
  };
  const { urls, legacyPushPort } = await launchApi();
  return {
    urls,
    legacyPushPort,
    ca: material.cert,
    mongo,
    database,
    prefix,
    masterKey,
    dataDir,
    redisUrl,
    mongoUrl,
    startWorkers: launchWorkers,
    startApi: launchApi,
    async close() {
      // API first (stop intake), then workers, then the database. Every closer runs even when
      // one fails, so a failing API close is reported as itself, not as everything left open.
      const errors: unknown[] = [];
      for (const close of [...closers].reverse())
        await close().catch((e: unknown) => errors.push(e));
      await rm(dataDir, { recursive: true, force: true });
      if (errors.length > 0) throw new AggregateError(errors, 'closing the test stack failed');
    },
  };
}
