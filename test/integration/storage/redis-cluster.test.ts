/**
 * apkrelay's Redis primitives on a real 3-master Redis Cluster (test/helpers/redis-cluster.ts):
 * the cluster URL builds a Cluster in both profiles, keys used together share a slot (and would
 * not without their hash tag: Redis refuses such a script), BullMQ's prefix is hash-tagged,
 * writes are confirmed by a replica, pub/sub reaches a subscriber on another node, and the notice
 * stream script works there.
 */
import { Queue } from 'bullmq';
import { Command, ReplyError } from 'ioredis';
import { recordAttempt } from '../../../shared/accounts/attempt-windows';
import { appendNotice } from '../../../shared/notices/append-notice';
import { redisKeys } from '../../../shared/redis-keys';
import {
  bullPrefix,
  closeRedis,
  createProducerRedis,
  createWorkerRedis,
  redisReady,
  type Redis,
} from '../../../shared/storage/redis';
import { confirmReplicated } from '../../../shared/storage/redis-replicas';
import { eventually } from '../../helpers/eventually';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster';
import { track } from '../../helpers/resources';

let cluster: RedisCluster;
let producer: Redis;
let worker: Redis;
let closeAll: () => Promise<void>;

beforeAll(async () => {
  cluster = await startRedisCluster();
  producer = createProducerRedis(cluster.url, 'test:cluster-producer');
  worker = createWorkerRedis(cluster.url, 'test:cluster-worker');
  closeAll = track('redis cluster', async () => {
    await closeRedis(producer);
    await closeRedis(worker);
    await cluster.close();
  });
  await redisReady(producer, 30_000);
  await redisReady(worker, 30_000);
}, 120_000);
afterAll(() => closeAll?.());

const slotOf = (key: string) => new Command('exists', [key]).getSlot();

test('a redis+cluster URL gives a Cluster in both profiles', () => {
  expect([producer.isCluster, worker.isCluster]).toEqual([true, true]);
});

test('the throttles count their windows in one script: same slot, accepted by the cluster', async () => {
  const keys = redisKeys('cluster-test');
  const address = keys.authFailures('address', '10.0.0.1');
  const key = keys.authFailures('key', 'ak_0123456789');
  expect(slotOf(address)).toBe(slotOf(key));
  const wait = await recordAttempt(
    producer,
    [
      [address, 5],
      [key, 5],
    ],
    Date.now(),
    60_000,
  );
  expect(wait).toBe(0);
  const login = [keys.loginAttempts('address', 'b'), keys.loginAttempts('email', 'd:b')];
  expect(slotOf(login[0]!)).toBe(slotOf(login[1]!));
  // Without a shared hash tag the same script is refused: the tag is what makes it work.
  const untagged: Array<[string, number]> = [
    ['cluster-test:auth-failures:address:10.0.0.1', 5],
    ['cluster-test:auth-failures:key:ak_0123456789', 5],
  ];
  expect(slotOf(untagged[0]![0])).not.toBe(slotOf(untagged[1]![0]));
  await expect(recordAttempt(producer, untagged, Date.now(), 60_000)).rejects.toThrow(
    /CROSSSLOT|ClusterAllFailedError|same slot/i,
  );
});

test('BullMQ on the cluster: hash-tagged prefix, a job added and confirmed by a replica', async () => {
  expect(bullPrefix(producer, 'apkrelay')).toBe('{apkrelay}');
  const queue = new Queue('cluster-probe', {
    connection: worker,
    prefix: bullPrefix(worker, 'cluster-test'),
  });
  try {
    const job = await queue.add('probe', { n: 1 });
    expect((await queue.getJobCounts('waiting')).waiting).toBe(1);
    expect(job.id).toBeDefined();
    // The master of the queue's slot confirms one replica has what this connection wrote.
    expect(await confirmReplicated(worker, '{cluster-test}:cluster-probe')).toBe(1);
  } finally {
    await queue.close();
  }
});

test('pub/sub: a notice published through one node reaches a subscriber on any other', async () => {
  const subscriber = createWorkerRedis(cluster.url, 'test:cluster-subscriber');
  const close = track('cluster subscriber', () => closeRedis(subscriber));
  try {
    const got: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => got.push(message));
    await subscriber.subscribe(redisKeys('cluster-test').noticeChannel());
    const notice = {
      accountId: 'a1',
      appId: '65f000000000000000000001',
      package: 'dev.apkrelay.cluster',
      apkId: null,
      currentVersion: 3,
    };
    const entryId = await appendNotice(worker, 'cluster-test', notice);
    await eventually('the published notice', () => got.length === 1);
    expect(JSON.parse(got[0]!)).toEqual({ ...notice, entryId });
    // The stream holds it, and a retried append of the same version adds nothing.
    expect(await appendNotice(worker, 'cluster-test', notice)).toBe(entryId);
    const stream = redisKeys('cluster-test').noticeStream(notice.appId);
    expect((await worker.xrange(stream, '-', '+')).map(([id]) => id)).toEqual([entryId]);
  } finally {
    await close();
  }
});

test('a command naming keys of two slots is a ReplyError, not an outage', async () => {
  const err = (await producer.mget('a', 'b').catch((e: unknown) => e)) as Error;
  expect(err).toBeInstanceOf(ReplyError);
  expect(err.message).toMatch(/CROSSSLOT/);
});
