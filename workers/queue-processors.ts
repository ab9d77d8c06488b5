/** The processor of every registered queue; the type makes a missing one a compile error. */
import type { Redis } from '../shared/storage/redis';
import type { Db } from 'mongodb';
import type { NoticeSink } from '../shared/notices/notice-sink';
import type { KeyRing } from '../shared/crypto/keys';
import type { RegisteredQueue } from '../shared/queues';
import type { PayloadOf, ResultOf } from '../shared/queues/definition';
import type { BlobStore } from '../shared/storage/blob-store';
import { liveState } from '../shared/devices/store';
import type { Processor } from './processor';
import type { DeliverySink, EmitDeps } from '../shared/webhooks/deliveries';
import { HEALTH_GATE_ACTOR } from '../shared/audit/types';
import { rolloutRecorder } from '../shared/rollouts/changes';
import { adoptionSampleProcessor } from './insights/adoption-sample-processor';
import { apkIngestProcessor } from './uploads/ingest-processor';
import { backupProcessor, type BackupSettings } from './backup/backup-processor';
import { exceptionIngestProcessor } from './exceptions/ingest-processor';
import { DEFAULT_SPIKE, type SpikeSettings } from './exceptions/events';
import { housekeepingProcessor } from './uploads/housekeeping-processor';
import { rolloutHealthProcessor } from './rollouts/health-processor';
import { crashCounter } from '../shared/rollouts/crash-counter';
import { DEFAULT_ROLLOUT_SETTINGS, type RolloutSettings } from '../shared/rollouts/health';
import {
  DEFAULT_WEBHOOK_SETTINGS,
  webhookDeliveryProcessor,
  type WebhookDeliveryDeps,
  type WebhookSettings,
} from './webhooks/delivery-processor';
import { redisAccountSlots } from '../shared/webhooks/account-slots';
import { redisKeys } from '../shared/redis-keys';
import { deltaGenerateProcessor } from './deltas/generate-processor';
import { DELTA_BUCKET } from '../shared/delta/collections';
import { DEFAULT_DELTA_SETTINGS, type DeltaSettings } from '../shared/delta/generate-delta';
import { gridFsBlobStore } from '../shared/storage/blob-store';

export type ProcessorMap = {
  [Q in RegisteredQueue as Q['name']]: Processor<PayloadOf<Q>, ResultOf<Q>>;
};

export interface ProcessorDeps {
  readonly db: Db;
  readonly blobs: BlobStore;
  readonly keys: KeyRing;
  readonly redis: Redis;
  readonly prefix: string;
  readonly notices: NoticeSink;
  readonly now: () => Date;
  /** Where ingest copies an upload's ciphertext for verification (default: OS temp dir). */
  readonly tmpDir?: string;
  /** Where and how long backups are kept; unset: this worker refuses backup jobs. */
  readonly backup?: BackupSettings;
  /** The rollout health gate's settings (default: the product's). */
  readonly rollouts?: RolloutSettings;
  /** HEARTBEAT_SECONDS: what "online" means for the health gate (default 30). */
  readonly heartbeatSeconds?: number;
  /** Webhook delivery (WEBHOOK_*; default: the product's, private addresses refused). */
  readonly webhooks?: WebhookSettings;
  /** When exception reports make an `exception.spike` event (EXCEPTION_SPIKE_*). */
  readonly spike?: SpikeSettings;
  /** Where events are queued for delivery (the webhook-delivery queue). */
  readonly deliveries: DeliverySink;
  /** Delta patches (DELTA_*; default: the product's). */
  readonly deltas?: DeltaSettings;
  /** The patches' blobs (default: the `deltas` GridFS bucket of `db`). */
  readonly deltaBlobs?: BlobStore;
}

export function createProcessors(deps: ProcessorDeps): ProcessorMap {
  return {
    housekeeping: housekeepingProcessor(deps),
    'apk-ingest': apkIngestProcessor({ ...deps, events: eventDeps(deps) }),
    'exception-ingest': exceptionIngestProcessor({
      ...deps,
      events: { events: eventDeps(deps), spike: deps.spike ?? DEFAULT_SPIKE },
    }),
    backup: backupProcessor({ ...deps, events: eventDeps(deps) }),
    'rollout-health': rolloutHealthProcessor(rolloutHealthDeps(deps)),
    'webhook-delivery': webhookDeliveryProcessor(webhookDeliveryDeps(deps)),
    'adoption-sample': adoptionSampleProcessor({
      db: deps.db,
      live: liveState(deps.redis, deps.prefix),
      now: deps.now,
    }),
    'delta-generate': deltaGenerateProcessor({
      db: deps.db,
      apkBlobs: deps.blobs,
      deltaBlobs: deps.deltaBlobs ?? gridFsBlobStore(deps.db, DELTA_BUCKET),
      keys: deps.keys,
      now: deps.now,
      settings: deps.deltas ?? DEFAULT_DELTA_SETTINGS,
    }),
  };
}

function rolloutHealthDeps(deps: ProcessorDeps) {
  const crashes = crashCounter(deps.redis, deps.prefix);
  return {
    db: deps.db,
    notices: deps.notices,
    live: liveState(deps.redis, deps.prefix),
    crashCount: (app: { _id: { toHexString(): string } }, apkId: string | null) =>
      crashes.read(app._id.toHexString(), apkId),
    heartbeatSeconds: deps.heartbeatSeconds ?? 30,
    settings: deps.rollouts ?? DEFAULT_ROLLOUT_SETTINGS,
    now: deps.now,
    recordChange: rolloutRecorder(
      { db: deps.db, now: deps.now, events: eventDeps(deps) },
      { actor: HEALTH_GATE_ACTOR, address: null },
    ),
  };
}

/** Where processors emit webhook events. */
export function eventDeps(deps: ProcessorDeps): EmitDeps {
  return { db: deps.db, now: deps.now, deliveries: deps.deliveries };
}

function webhookDeliveryDeps(deps: ProcessorDeps): WebhookDeliveryDeps {
  const webhooks = deps.webhooks ?? DEFAULT_WEBHOOK_SETTINGS;
  const limit = webhooks.accountConcurrency ?? DEFAULT_WEBHOOK_SETTINGS.accountConcurrency!;
  const key = redisKeys(deps.prefix).webhookSlots;
  return {
    db: deps.db,
    keys: deps.keys,
    now: deps.now,
    webhooks,
    slots: redisAccountSlots(deps.redis, key, limit),
  };
}
