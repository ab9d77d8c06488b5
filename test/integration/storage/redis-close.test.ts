/**
 * Issue 33: a jest worker that ran `exceptions/redis-down` last "failed to exit gracefully". The
 * API's three Redis connections (the producer, the queue events' and BullMQ's duplicate of it)
 * were closed while Redis refused them; ioredis's disconnect then arms a timer to destroy a socket
 * that will not close by itself, cleared when the socket closes, but that socket had already
 * closed: the timer held the process for ioredis's default 2 s. Closed here the same way, each
 * profile and a duplicate must leave no timer of ioredis's behind.
 */
import { freePort } from '../../../ops/services/child';
import {
  closeRedis,
  createProducerRedis,
  createWorkerRedis,
  type Redis,
} from '../../../shared/storage/redis';
import { holding, timersArmedBy } from '../../helpers/armed-timers';
import { eventually } from '../../helpers/eventually';

async function refused(make: (url: string) => Redis): Promise<Redis> {
  const redis = make(`redis://127.0.0.1:${await freePort()}`);
  const errors: Error[] = [];
  redis.on('error', (err: Error) => errors.push(err));
  await eventually('a refused connection attempt', () => errors.length > 0);
  return redis;
}

/** The connections duplicated from, closed at the end (while open they reconnect on timers). */
const sources: Redis[] = [];
afterAll(() => Promise.all(sources.map((source) => closeRedis(source))));

function duplicateOf(source: Redis): Redis {
  sources.push(source);
  return source.duplicate();
}

test.each([
  ['producer', (url: string) => createProducerRedis(url, 'test:close')],
  ['worker', (url: string) => createWorkerRedis(url, 'test:close')],
  [
    'duplicate of a worker connection (BullMQ)',
    (url: string) => duplicateOf(createWorkerRedis(url)),
  ],
])('a %s connection closed while Redis refuses leaves no timer behind', async (_, make) => {
  const redis = await refused(make);
  const armed = await timersArmedBy(() => closeRedis(redis));
  // A marker: made after any timer closeRedis armed, with a delay no shorter, it fires after it.
  await new Promise((resolve) => setTimeout(resolve, 1));
  expect(holding(armed)).toEqual([]);
});
