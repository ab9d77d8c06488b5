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
   * Closes `ingestEvents`: gracefully within `deadlineMs` (by force past it) when its connection
   * is ready, at once by force when it is not. BullMQ runs a QueueEvents on its own duplicate of
   * the connection it is given (closing `eventsRedis` does not close that one), and
   * QueueEvents.close() first waits for the duplicate to be ready: forever while Redis does not
   * answer, the duplicate meanwhile holding its socket or its reconnect timer.
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
  const made: Droppable[] = [];
  const onEventsError = (err: Error) => log.warn({ err: err.message }, 'queue events error');
  const ingestEvents = new QueueEvents(
    apkIngestQueue.name,
    { connection: eventsRedis, prefix: bullPrefix(eventsRedis, options.queuePrefix) },
    droppable(made, listenedConnection(onEventsError)),
  );
  ingestEvents.on('error', onEventsError);
  const closeIngestEvents = async (deadlineMs: number) => {
    // Started in every case: it stops the events' read loop, which would go on otherwise.
    const closing = ingestEvents.close();
    if (!made.every((connection) => connection.ready())) {
      // Nothing to close gracefully, and the close would wait for Redis to come back. It may
      // never settle once its connection is dropped (a connection dropped between reconnect
      // attempts ends without an 'end' event): it holds no socket or timer, nobody waits for it.
      closing.catch(() => undefined);
      for (const connection of made) connection.drop();
      return;
    }
    const closed = await withDeadline(closing, deadlineMs, 'closing queue events')
      .then(() => true)
      .catch(() => false);
    if (!closed) for (const connection of made) connection.drop();
  };
  return { mongo, keys, redis, eventsRedis, producers, ingestEvents, closeIngestEvents };
}

/** A connection BullMQ made: whether its Redis client is ready, and its forced close. */
interface Droppable {
  ready(): boolean;
  drop(): void;
}

/** BullMQ's connection class `base` (its extension point), each instance added to `made`. */
function droppable(made: Droppable[], base: typeof RedisConnection): typeof RedisConnection {
  return class extends base {
    constructor(...args: ConstructorParameters<typeof RedisConnection>) {
      super(...args);
      made.push({
        ready: () => this._client.status === 'ready',
        // At once, ready or not: ioredis never reconnects a connection closed by disconnect().
        drop: () => this._client.disconnect(),
      });
    }
  };
}
