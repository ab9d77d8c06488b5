/**
 * A delivery whose job ended without the delivery processor's verdict (the last attempt past its
 * budget, stalled too often, a store error while recording) must not read `pending` forever; one
 * never queued must be queued. Real Redis (BullMQ) and the MongoDB-protocol server; the job is
 * failed by a bare BullMQ worker, which is what "outside the processor" means.
 */
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { ObjectId } from 'mongodb';
import { serviceUrls, isolation, useIsolatedMongo } from '../../helpers/services';
import { eventuallyValue } from '../../helpers/eventually';
import { queueDeliverySink } from '../../../shared/queues/delivery-sink';
import { webhookDeliveryQueue } from '../../../shared/queues/webhook-delivery';
import {
  bullPrefix,
  closeRedis,
  createWorkerRedis,
  type Redis,
} from '../../../shared/storage/redis';
import { webhooksCollections } from '../../../shared/webhooks/collections';
import { settleStranded } from '../../../shared/webhooks/stranded';
import type { DeliveryDoc } from '../../../shared/webhooks/types';

jest.setTimeout(60_000);
const store = useIsolatedMongo();
const NOW = new Date('2026-11-29T05:00:00Z');
const GRACE_MS = 5 * 60_000;
const LONG_AGO = new Date(NOW.getTime() - 10 * 60_000);
let redis: Redis;
let queue: Queue;
let prefix: string;

beforeAll(() => {
  redis = createWorkerRedis(serviceUrls().redisUrl, 'test:stranded', 10_000);
  prefix = bullPrefix(redis, isolation().prefix);
  queue = new Queue(webhookDeliveryQueue.name, { connection: redis, prefix });
});
afterAll(async () => {
  await queue?.close();
  if (redis) await closeRedis(redis);
});

function delivery(over: Partial<DeliveryDoc>): DeliveryDoc {
  return {
    _id: new ObjectId(),
    accountId: 'acc-1',
    endpointId: new ObjectId(),
    event: 'apk.accepted',
    eventId: 'evt_1',
    body: '{}',
    state: 'pending',
    attempts: [],
    redeliveries: 0,
    createdAt: LONG_AGO,
    updatedAt: LONG_AGO,
    ...over,
  };
}

const attempt = { at: LONG_AGO, statusCode: 500, excerpt: 'oops', durationMs: 3 };

async function failOutsideTheProcessor(jobId: string, deliveryId: string): Promise<void> {
  await queue.add('deliver', { deliveryId, redelivery: 1 }, { jobId });
  const worker = new Worker(
    webhookDeliveryQueue.name,
    () => Promise.reject(new UnrecoverableError('job budget of 120 s exceeded')),
    { connection: redis, prefix },
  );
  const state = await eventuallyValue(
    'the job failed',
    () => queue.getJobState(jobId),
    (s) => s === 'failed',
  );
  expect(state).toBe('failed');
  await worker.close();
}

test('each stranded delivery is settled once; live, recent and finished ones are left alone', async () => {
  const { deliveries } = webhooksCollections(store.mongo.db);
  const lastFailedOutside = delivery({ attempts: [attempt], redeliveries: 1 });
  const neverQueued = delivery({});
  const trimmed = delivery({ attempts: [attempt] });
  const retryWaiting = delivery({ attempts: [attempt] });
  const recent = delivery({ updatedAt: NOW });
  const delivered = delivery({ state: 'delivered', attempts: [{ ...attempt, statusCode: 200 }] });
  await deliveries.insertMany([
    lastFailedOutside,
    neverQueued,
    trimmed,
    retryWaiting,
    recent,
    delivered,
  ]);
  await failOutsideTheProcessor(
    `${lastFailedOutside._id.toHexString()}-1`,
    lastFailedOutside._id.toHexString(),
  );
  await queue.add(
    'deliver',
    { deliveryId: retryWaiting._id.toHexString(), redelivery: 0 },
    {
      jobId: `${retryWaiting._id.toHexString()}-0`,
      delay: 60_000,
    },
  );

  const deps = {
    db: store.mongo.db,
    jobState: (id: string) => queue.getJobState(id),
    failedReason: async (id: string) => (await queue.getJob(id))?.failedReason || undefined,
    deliveries: queueDeliverySink(queue),
    now: () => NOW,
  };
  const outcome = await settleStranded(deps, GRACE_MS);
  expect(new Set(outcome.failed)).toEqual(
    new Set([lastFailedOutside._id.toHexString(), trimmed._id.toHexString()]),
  );
  expect(outcome.requeued).toEqual([neverQueued._id.toHexString()]);

  const byId = async (d: DeliveryDoc) => (await deliveries.findOne({ _id: d._id }))!;
  const failed = await byId(lastFailedOutside);
  expect(failed.state).toBe('failed');
  expect(failed.attempts).toHaveLength(2);
  expect(failed.attempts[1]).toMatchObject({
    statusCode: null,
    excerpt: "the delivery's job ended without a verdict: job budget of 120 s exceeded",
  });
  expect((await byId(trimmed)).attempts[1]!.excerpt).toBe(
    "the delivery's job ended without a verdict: the job is gone",
  );
  expect(await queue.getJobState(`${neverQueued._id.toHexString()}-0`)).toBe('waiting');
  expect((await byId(neverQueued)).state).toBe('pending');
  for (const untouched of [retryWaiting, recent, delivered]) {
    expect(await byId(untouched)).toEqual(untouched);
  }

  // A second sweep finds nothing new: the queued one has its job now, the failed ones are settled.
  expect(await settleStranded(deps, GRACE_MS)).toEqual({ failed: [], requeued: [] });
});

test('an attempt recorded while the sweep looks wins: the delivery is not marked failed', async () => {
  const { deliveries } = webhooksCollections(store.mongo.db);
  await deliveries.deleteMany({});
  const racing = delivery({ attempts: [attempt] });
  await deliveries.insertOne(racing);
  const late = { ...attempt, at: NOW, statusCode: 200 };
  const outcome = await settleStranded(
    {
      db: store.mongo.db,
      // The delivery processor records a successful attempt between the sweep's read and its write.
      jobState: async () => {
        await deliveries.updateOne(
          { _id: racing._id },
          { $push: { attempts: late }, $set: { state: 'delivered', updatedAt: NOW } },
        );
        return 'unknown';
      },
      failedReason: () => Promise.resolve(undefined),
      deliveries: queueDeliverySink(queue),
      now: () => NOW,
    },
    GRACE_MS,
  );
  expect(outcome).toEqual({ failed: [], requeued: [] });
  const after = await deliveries.findOne({ _id: racing._id });
  expect(after?.state).toBe('delivered');
  expect(after?.attempts).toHaveLength(2);
});
