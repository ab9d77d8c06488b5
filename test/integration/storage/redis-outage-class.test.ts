/**
 * The API's fail-fast Redis connection tells outages by class: a command Redis never answered
 * rejects with RedisUnavailableError (the original kept as cause); an answer that is an error
 * stays ioredis's ReplyError. `surelyNotSent` holds only for a command never written to a
 * socket; one written whose reply was lost may have run. Against a real redis-server, and a port
 * nothing listens on.
 */
import { createServer } from 'node:net';
import { ReplyError } from 'ioredis';
import {
  closeRedis,
  createProducerRedis,
  RedisUnavailableError,
  surelyNotSent,
  type Redis,
} from '../../../shared/storage/redis';
import { eventually } from '../../helpers/eventually';
import { serviceUrls } from '../../helpers/services';

const clients: Redis[] = [];
let redisAdmin: Redis;
beforeAll(() => {
  redisAdmin = client(serviceUrls().redisUrl);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => closeRedis(c)));
});

function client(url: string): Redis {
  const redis = createProducerRedis(url, 'test:outage-class');
  redis.on('error', () => undefined); // connection errors are expected here
  clients.push(redis);
  return redis;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('a command while Redis is unreachable rejects with RedisUnavailableError', async () => {
  const redis = client(`redis://127.0.0.1:${await closedPort()}`);
  const err: unknown = await redis.set('k', 'v').then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RedisUnavailableError);
  expect((err as RedisUnavailableError).cause).toBeInstanceOf(Error);
  expect((err as RedisUnavailableError).cause).not.toBeInstanceOf(RedisUnavailableError);
  expect(surelyNotSent(err)).toBe(true);
});

test('an error Redis answers stays a ReplyError, and a good command still works', async () => {
  const redis = client(serviceUrls().redisUrl);
  await eventually('the producer connection to be ready', () => redis.status === 'ready');
  await expect(redis.call('NO-SUCH-COMMAND')).rejects.toBeInstanceOf(ReplyError);
  await expect(redis.call('NO-SUCH-COMMAND')).rejects.not.toBeInstanceOf(RedisUnavailableError);
  expect(await redis.ping()).toBe('PONG');
});

test('a command after the connection is closed rejects with RedisUnavailableError', async () => {
  const redis = client(serviceUrls().redisUrl);
  await eventually('the producer connection to be ready', () => redis.status === 'ready');
  redis.disconnect();
  const err: unknown = await redis.get('k').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RedisUnavailableError);
  expect(surelyNotSent(err)).toBe(true);
});

test('a command written whose connection then closes may have run: not surely unsent', async () => {
  const redis = client(serviceUrls().redisUrl);
  await eventually('the producer connection to be ready', () => redis.status === 'ready');
  // Blocks in Redis for up to 5 s: written, its reply still pending when the connection goes.
  const pending = redis.blpop('outage-class-empty-list', 5).catch((e: unknown) => e);
  await eventually('the blocking command to be in flight', async () => {
    const list = await redisAdmin.client('LIST');
    return String(list).includes('cmd=blpop');
  });
  redis.disconnect();
  const err = await pending;
  expect(err).toBeInstanceOf(RedisUnavailableError);
  expect(surelyNotSent(err)).toBe(false);
});
