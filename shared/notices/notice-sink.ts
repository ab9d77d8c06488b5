/**
 * Where making an APK current announces it: the notice is appended to the app's Redis stream and
 * published (append-notice.ts) by whoever made the change, the API or the ingest worker, with no
 * queue in between. The append is idempotent by the app's `currentVersion`, so a retried request
 * or job re-sends the same notice harmlessly. A failed append fails the caller: the owner's
 * request gets DEPENDENCY_UNAVAILABLE (a retryable 503), an ingest job fails and BullMQ retries it.
 */
import { withDeadline } from '../deadline';
import { AppError } from '../errors';
import { redisKeys } from '../redis-keys';
import { RedisUnavailableError, type Redis } from '../storage/redis';
import { confirmReplicated, REPLICA_WAIT_MS } from '../storage/redis-replicas';
import { appendNotice, type Notice } from './append-notice';

export interface NoticeSink {
  publish(notice: Notice): Promise<void>;
}

/** An append that does not answer within this fails the caller (as a producer's enqueue did). */
const APPEND_DEADLINE_MS = 5_000;

export interface NoticeSinkOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /**
   * The API's producer connection: refuse at once when it is not ready (a request must not hang
   * while Redis is down). A worker's connection waits for Redis instead and is left alone.
   */
  readonly failFast: boolean;
}

export function redisNoticeSink(options: NoticeSinkOptions): NoticeSink {
  const { redis, prefix } = options;
  return {
    async publish(notice) {
      if (options.failFast && redis.status !== 'ready') {
        const message = 'Redis is unavailable (appending a version notice)';
        // Nothing was sent: surelyNotSent (storage/redis.ts) reads this cause.
        throw new AppError('DEPENDENCY_UNAVAILABLE', {
          message,
          cause: RedisUnavailableError.unsent(message),
        });
      }
      await withDeadline(
        {
          ms: APPEND_DEADLINE_MS,
          what: 'appending a version notice',
          code: 'DEPENDENCY_UNAVAILABLE',
          message: 'Redis did not answer appending a version notice in time',
        },
        () => appendNotice(redis, prefix, notice),
      );
      // Acknowledged means replicated on a cluster, as for an enqueued job (redis-replicas.ts).
      await withDeadline(
        {
          ms: REPLICA_WAIT_MS + 1_000,
          what: 'confirming a replica',
          code: 'DEPENDENCY_UNAVAILABLE',
        },
        () => confirmReplicated(redis, redisKeys(prefix).noticeStream(notice.appId)),
      ).catch(() => null);
    },
  };
}
