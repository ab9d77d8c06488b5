/**
 * BullMQ's connection class for every Queue, QueueEvents and Worker apkrelay makes, with an error
 * listener that outlives close(). A BullMQ connection waits for its Redis to be ready; closing it
 * removes its listeners but not that wait, and when the Redis connection later ends (closed while
 * connecting), the wait rejects with the last connection error, which BullMQ emits on the closed
 * connection: with no listener that is an unhandled exception (issue 33: seven `connect
 * ECONNREFUSED`, one per producer queue, after `exceptions/redis-down` closed its API). Here an
 * error with nobody listening goes to `onError` instead.
 */
import { Queue, RedisConnection } from 'bullmq';
import type { Redis } from '../storage/redis';

/** A RedisConnection class whose errors with no listener are passed to `onError`, never thrown. */
export function listenedConnection(onError: (err: Error) => void): typeof RedisConnection {
  return class ListenedConnection extends RedisConnection {
    override emit(event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'error' && this.listenerCount('error') === 0) {
        onError(args[0] instanceof Error ? args[0] : new Error(String(args[0])));
        return false;
      }
      return super.emit(event, ...args);
    }
  };
}

/** A Queue on `at` whose errors, its connection's before and after close included, reach `onError`. */
export function listenedQueue(
  name: string,
  at: { readonly connection: Redis; readonly prefix: string },
  onError: (err: Error) => void,
): Queue {
  const options = { connection: at.connection, prefix: at.prefix };
  const queue = new Queue(name, options, listenedConnection(onError));
  queue.on('error', onError);
  return queue;
}
