/**
 * The worker process: MongoDB, waiting Redis connections, the processors of every queue, and one
 * shutdown path (close workers, letting active jobs finish; then Redis and Mongo).
 */
import type { Queue } from 'bullmq';
import { createKeyRing } from '../shared/crypto/keys';
import { loadPinnedKeys } from '../shared/crypto/pinned-keys';
import { redisNoticeSink } from '../shared/notices/notice-sink';
import { requestingDeltas } from '../shared/delta/requests';
import { deltaGenerateQueue } from '../shared/queues/delta-generate';
import { queueDeliverySink } from '../shared/queues/delivery-sink';
import { webhookDeliveryQueue } from '../shared/queues/webhook-delivery';
import { listenedQueue } from '../shared/queues/listened-connection';
import { gridFsBlobStore } from '../shared/storage/blob-store';
import { ensureIndexes } from '../shared/indexes';
import type { Logger } from '../shared/log';
import type { ConnectOptions } from '../shared/storage/connect-options';
import { connectMongo, type Mongo } from '../shared/storage/mongo';
import { bullPrefix, closeRedis, createWorkerRedis } from '../shared/storage/redis';
import { createProcessors } from './queue-processors';
import type { BackupSettings } from './backup/backup-processor';
import { startWorkerRuntime } from './runtime';
import { startStoreWatch } from './store-watch';
import type { WebhookSettings } from './webhooks/delivery-processor';
import { startStrandedWatch } from './webhooks/stranded-watch';
import type { SpikeSettings } from './exceptions/events';
import { DEFAULT_ROLLOUT_SETTINGS, type RolloutSettings } from '../shared/rollouts/health';
import type { DeltaSettings } from '../shared/delta/generate-delta';

export interface WorkerOptions extends ConnectOptions {
  readonly now?: () => Date;
  readonly schedulers?: boolean;
  readonly lockMs?: number;
  /** Where ingest copies an upload's ciphertext for verification. Default: the OS temp dir. */
  readonly tmpDir?: string;
  /** Backups: where, how long, and when (`cron` in `tz`; unset cron: no schedule installed). */
  readonly backup?: BackupSettings & { readonly cron?: string };
  /** The rollout health gate (ROLLOUT_*) and HEARTBEAT_SECONDS; default: the product's. */
  readonly rollouts?: RolloutSettings;
  /** Delta patches (DELTA_*). */
  readonly deltas?: DeltaSettings;
  readonly heartbeatSeconds?: number;
  /** Webhook delivery (WEBHOOK_*); default: private addresses refused, disabled after 3 days. */
  readonly webhooks?: WebhookSettings;
  /** EXCEPTION_SPIKE_*; default: 50 reports and 3× the previous hour. */
  readonly spike?: SpikeSettings;
}

/** One MongoDB round trip of a processor (the longest is a backup's batch); a free connection. */
const WORKER_MONGO_DEADLINES = { socketTimeoutMS: 60_000, waitQueueTimeoutMS: 30_000 };

/** How often the worker checks that its MongoDB client is not wedged (store-watch.ts). */
const STORE_WATCH_EVERY_MS = 10_000;

/**
 * The stranded-delivery sweep (workers/webhooks/stranded-watch.ts): how often, and how long a
 * pending delivery must have been untouched (longer than emitting's insert-then-enqueue).
 */
const STRANDED_SWEEP_EVERY_MS = 60_000;
const STRANDED_GRACE_MS = 5 * 60_000;

/** A processor's Redis command (a marker, a lock, a queue add): milliseconds when healthy. */
const PROCESSOR_REDIS_COMMAND_MS = 10_000;

export interface WorkerProcess {
  /** Waits for active jobs; the process-level deadline (ops/process/shutdown.ts) cuts it short. */
  close(): Promise<void>;
  /** What the close is doing (`running` before it starts, `closed` after): for a close that hangs. */
  closingStep(): string;
}

export async function startWorkers(options: WorkerOptions): Promise<WorkerProcess> {
  const mongo = await connectMongo(options.mongoUrl, options.database, WORKER_MONGO_DEADLINES);
  // The processors' own connection: every command under a deadline (no blocking commands here).
  const redis = createWorkerRedis(
    options.redisUrl,
    'apkrelay:worker-notices',
    PROCESSOR_REDIS_COMMAND_MS,
  );
  redis.on('error', (err: Error) =>
    options.log.warn({ err: err.message }, 'redis (worker processors) connection error'),
  );
  const onError = (err: Error) => options.log.warn({ err: err.message }, 'queue (workers) error');
  const at = { connection: redis, prefix: bullPrefix(redis, options.queuePrefix) };
  const deliveryQueue = listenedQueue(webhookDeliveryQueue.name, at, onError);
  const deltaQueue = listenedQueue(deltaGenerateQueue.name, at, onError);
  const closeAll = async () => {
    await deltaQueue.close();
    await deliveryQueue.close();
    await closeRedis(redis);
    await mongo.close();
  };
  try {
    await ensureIndexes(mongo.db);
    // Like the API: refuse to start when the pinned keys need a key that is not configured.
    const keys = await loadPinnedKeys(
      mongo.db,
      createKeyRing(options.masterKey, options.previousMasterKeys),
    );
    const runtime = await startWorkerRuntime({
      redisUrl: options.redisUrl,
      prefix: options.queuePrefix,
      log: options.log,
      processors: createProcessors({
        db: mongo.db,
        blobs: gridFsBlobStore(mongo.db),
        keys,
        redis,
        prefix: options.queuePrefix,
        notices: requestingDeltas(
          redisNoticeSink({ redis, prefix: options.queuePrefix, failFast: false }),
          deltaQueue,
          (err) => options.log.warn({ err }, 'delta patches not requested'),
        ),
        deliveries: queueDeliverySink(deliveryQueue),
        ...(options.webhooks ? { webhooks: options.webhooks } : {}),
        ...(options.spike ? { spike: options.spike } : {}),
        now: options.now ?? (() => new Date()),
        ...(options.tmpDir ? { tmpDir: options.tmpDir } : {}),
        ...(options.backup ? { backup: options.backup } : {}),
        ...(options.rollouts ? { rollouts: options.rollouts } : {}),
        ...(options.deltas ? { deltas: options.deltas } : {}),
        ...(options.heartbeatSeconds ? { heartbeatSeconds: options.heartbeatSeconds } : {}),
      }),
      rolloutEveryMs: (options.rollouts ?? DEFAULT_ROLLOUT_SETTINGS).evaluationMs,
      ...(options.backup?.cron
        ? { backupSchedule: { pattern: options.backup.cron, tz: options.backup.tz } }
        : {}),
      schedulers: options.schedulers ?? true,
      ...(options.lockMs ? { lockMs: options.lockMs } : {}),
    });
    const looks = startLooks(options, mongo, deliveryQueue);
    return stepwiseClose(options.log, [
      ['stopping the store and webhook watches', () => looks.stop()],
      ['closing the queue workers', () => runtime.close()],
      ['closing the Redis and MongoDB connections', closeAll],
    ]);
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/**
 * The worker process's close: once, step by step, each step said as it starts, so that past the
 * shutdown deadline the log names the one that hung (and `closingStep` does for a caller).
 */
function stepwiseClose(
  log: Logger,
  steps: ReadonlyArray<readonly [string, () => Promise<void>]>,
): WorkerProcess {
  let closing: Promise<void> | undefined;
  let step = 'running';
  return {
    close: () =>
      (closing ??= (async () => {
        for (const [name, run] of steps) {
          step = name;
          log.info({ step }, 'workers closing');
          await run();
        }
        step = 'closed';
      })()),
    closingStep: () => step,
  };
}

/** The worker process's own repeated looks: its MongoDB client, and stranded webhook deliveries. */
function startLooks(options: WorkerOptions, mongo: Mongo, deliveryQueue: Queue) {
  const stranded = startStrandedWatch({
    db: mongo.db,
    queue: deliveryQueue,
    log: options.log,
    everyMs: STRANDED_SWEEP_EVERY_MS,
    graceMs: STRANDED_GRACE_MS,
    now: options.now ?? (() => new Date()),
  });
  const storeWatch = startStoreWatch({
    client: mongo.client,
    url: options.mongoUrl,
    log: options.log,
    everyMs: STORE_WATCH_EVERY_MS,
  });
  return {
    async stop(): Promise<void> {
      stranded.stop();
      await storeWatch.stop();
    },
  };
}
