/**
 * Issue 33: `exceptions/redis-down` once failed with seven unhandled `connect ECONNREFUSED`, one
 * per producer queue. Each queue's BullMQ connection waits for the shared Redis to be ready; once
 * the queues are closed that wait still runs, and when the Redis connection is then closed while
 * it is connecting, the wait rejects with the last connection error and BullMQ emits it on a
 * connection with no listener left: thrown, unhandled. Here that order is made on purpose.
 */
import { freePort } from '../../../ops/services/child';
import { createProducers } from '../../../shared/queues/producers';
import { QUEUES } from '../../../shared/queues';
import { closeRedis, createProducerRedis, type Redis } from '../../../shared/storage/redis';
import { eventually } from '../../helpers/eventually';
import { track } from '../../helpers/resources';
import { isolation } from '../../helpers/services';

/** The next `event` (events.once would reject on the refused attempts' `error` events). */
function next(redis: Redis, event: 'connecting' | 'end'): Promise<void> {
  return new Promise((resolve) => redis.once(event, () => resolve()));
}

test('producers closed while Redis refuses: no error escapes, each is reported', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const redis = createProducerRedis(`redis://127.0.0.1:${await freePort()}`, 'test:refused');
  const close = track('refused producer redis', () => closeRedis(redis));
  const redisErrors: Error[] = [];
  redis.on('error', (err: Error) => redisErrors.push(err));
  const reported: Error[] = [];
  const producers = createProducers(redis, isolation().prefix, (err) => reported.push(err));
  try {
    await eventually('a refused connection attempt', () => redisErrors.length > 0);
    await producers.close();
    // Closed while a connection attempt is under way: ioredis then ends the connection at once.
    if (redis.status !== 'connecting') await next(redis, 'connecting');
    const ended = next(redis, 'end');
    await close();
    await ended;
    // The waits reject on the end event; their handlers run before the next turn of the loop,
    // and an unhandled rejection is reported before it too.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
    expect(reported.map((e) => (e as { code?: string }).code)).toEqual(
      QUEUES.map(() => 'ECONNREFUSED'),
    );
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await close();
  }
});
