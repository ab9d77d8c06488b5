/**
 * What the API process connects to before it builds anything: MongoDB (with the key ring and its
 * pinned keys), the producer Redis and its queues, and the waiting Redis of upload verdicts.
 */
import { QueueEvents, type RedisConnection } from 'bullmq';
import { createKeyRing, type KeyRing } from '../shared/crypto/keys';
import { loadPinnedKeys } from '../shared/crypto/pinned-keys';
import { apkIngestQueue } from '../shared/queues/apk-ingest';
import { listenedConnection } from '../shared/queues/listened-connection';
import { createProducers, withDeadline } from '../shared/queues/producers';
import type { ConnectOptions } from '../shared/storage/connect-options';
import { connectMongo } from '../shared/storage/mongo';
import { bullPrefix, createProducerRedis, createWorkerRedis } from '../shared/storage/redis';

/** The connections the API process holds, and their one release path. */
export interface Connections {
  readonly mongo: Awaited<ReturnType<typeof connectMongo>>;
  /** The key ring, with the keys pinned in the database. */
  readonly keys: KeyRing;
  readonly redis: ReturnType<typeof createProducerRedis>;
  readonly eventsRedis: ReturnType<typeof createWorkerRedis>;
  readonly producers: ReturnType<typeof createProducers>;
  readonly ingestEvents: QueueEvents;
  /**
   * Closes `ingestEvents` within `deadlineMs`, by force past it. BullMQ runs a QueueEvents on its
   * own duplicate of the connection it is given (closing `eventsRedis` does not close that one),
   * and QueueEvents.close() first waits for the duplicate to be ready: forever while Redis does
   * not answer, the duplicate meanwhile holding its socket or its reconnect timer.
   */
  closeIngestEvents(deadlineMs: number): Promise<void>;
}

export async function connect(options: ConnectOptions): Promise<Connections> {
  const { log } = options;
  const mongo = await connectMongo(options.mongoUrl, options.database);
  // Refuses to start (MASTER_KEY_MISSING) when the pinned keys need a key that is not configured.
  const keys = await loadPinnedKeys(
    mongo.db,
    createKeyRing(options.masterKey, options.previousMasterKeys),
  ).catch(async (err: unknown) => {
    await mongo.close();
    throw err;
  });
  const redis = createProducerRedis(options.redisUrl, 'apkrelay:api');
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis (api) connection error'));
  const producers = createProducers(redis, options.queuePrefix, (err) =>
    log.warn({ err: err.message }, 'queue (api) error'),
  );
  // QueueEvents blocks on a stream read, so it gets its own (waiting) connection.
  const eventsRedis = createWorkerRedis(options.redisUrl, 'apkrelay:api-events');
  eventsRedis.on('error', (err: Error) =>
    log.warn({ err: err.message }, 'redis (api events) connection error'),
  );
  const drops: Array<() => void> = [];
  const onEventsError = (err: Error) => log.warn({ err: err.message }, 'queue events error');
  const ingestEvents = new QueueEvents(
    apkIngestQueue.name,
    { connection: eventsRedis, prefix: bullPrefix(eventsRedis, options.queuePrefix) },
    droppable(drops, listenedConnection(onEventsError)),
  );
  ingestEvents.on('error', onEventsError);
  const closeIngestEvents = async (deadlineMs: number) => {
    const closed = await withDeadline(ingestEvents.close(), deadlineMs, 'closing queue events')
      .then(() => true)
      .catch(() => false);
    if (!closed) for (const drop of drops) drop();
  };
  return { mongo, keys, redis, eventsRedis, producers, ingestEvents, closeIngestEvents };
}

/** BullMQ's connection class `base` (its extension point), each instance's forced close in `drops`. */
function droppable(drops: Array<() => void>, base: typeof RedisConnection): typeof RedisConnection {
  return class extends base {
    constructor(...args: ConstructorParameters<typeof RedisConnection>) {
      super(...args);
      // At once, ready or not: ioredis never reconnects a connection closed by disconnect().
      drops.push(() => this._client.disconnect());
    }
  };
}
