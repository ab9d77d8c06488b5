/**
 * The two Redis connection profiles. Producers (the API) fail fast so a request gets a 503 while
 * Redis is down instead of hanging; workers wait for Redis to come back (BullMQ requires
 * `maxRetriesPerRequest: null` for blocking connections).
 */
import { type Command, Redis, type RedisOptions, ReplyError } from 'ioredis';

export type { Redis };

/**
 * A command Redis never answered: the connection was closed, not writable, or out of retries.
 * It keeps ioredis's message (libraries such as BullMQ read it) and carries the original as cause.
 */
export class RedisUnavailableError extends Error {
  readonly code = 'REDIS_UNAVAILABLE';

  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = 'RedisUnavailableError';
  }
}

const CLASSIFIED = Symbol('apkrelay.outageClassified');

/**
 * ioredis rejects a command with a ReplyError when Redis answered, and with a plain Error when it
 * never did. This client turns the second kind into RedisUnavailableError, so callers tell an
 * outage by its class, not by ioredis's message text.
 */
class OutageClassifyingRedis extends Redis {
  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const marked = command as Command & { [CLASSIFIED]?: true };
    if (!marked[CLASSIFIED]) {
      marked[CLASSIFIED] = true;
      const reject = command.reject;
      command.reject = (err) =>
        reject(
          err instanceof ReplyError || err instanceof RedisUnavailableError
            ? err
            : new RedisUnavailableError(err),
        );
    }
    return super.sendCommand(command, stream);
  }
}

export function createProducerRedis(url: string, name = 'apkrelay:producer'): Redis {
  return new OutageClassifyingRedis(url, {
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  } satisfies RedisOptions);
}

export function createWorkerRedis(url: string, name = 'apkrelay:worker'): Redis {
  return new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
  } satisfies RedisOptions);
}

/** Resolves once the connection is ready (used at start-up; producers never wait per request). */
export async function redisReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}

/**
 * Closes gracefully when connected (pending replies arrive first), at once otherwise: QUIT on a
 * connection that is not up would wait for Redis forever.
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.quit(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, 2_000);
      }),
    ]);
  } catch {
    // fall through to disconnect
  } finally {
    clearTimeout(timer);
    if ((redis.status as string) !== 'end') redis.disconnect();
  }
}
