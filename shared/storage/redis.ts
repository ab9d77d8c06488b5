/**
 * The two Redis connection profiles. Producers (the API) fail fast so a request gets a 503 while
 * Redis is down instead of hanging; workers wait for Redis to come back (BullMQ requires
 * `maxRetriesPerRequest: null` for blocking connections).
 */
import { Redis, type RedisOptions } from 'ioredis';

export type { Redis };

export function createProducerRedis(url: string, name = 'apkrelay:producer'): Redis {
  return new Redis(url, {
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
