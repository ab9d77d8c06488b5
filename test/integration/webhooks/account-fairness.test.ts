/**
 * Issue 31, finding 1: one account's slow receivers cannot hold back another account's webhooks.
 * On the real stack (real workers, BullMQ on real Redis, the MongoDB-protocol server), account A
 * has 12 endpoints on a receiver that takes every request and never answers; their deliveries
 * are queued first, then account B's one delivery to a receiver that answers at once. B's
 * delivery must arrive while A's first requests are still held: no attempt of A's is logged yet
 * (none reached its deadline), and A holds no more connections than WEBHOOK_ACCOUNT_CONCURRENCY
 * (2, as docs/webhooks.md sets it here). Then A's receiver answers, and every one of A's
 * deliveries goes out: the ones put back while A was at its limit are not lost.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { Queue } from 'bullmq';
import { queueDeliverySink } from '../../../shared/queues/delivery-sink';
import { webhookDeliveryQueue } from '../../../shared/queues/webhook-delivery';
import { createKeyRing } from '../../../shared/crypto/keys';
import { bullPrefix, closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import { emitEvent } from '../../../shared/webhooks/deliveries';
import { createEndpoint } from '../../../shared/webhooks/endpoints';
import { eventually } from '../../helpers/eventually';
import { track } from '../../helpers/resources';
import { startStack, testTls, type TestStack } from '../../helpers/stack';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';
import { webhooksCollections } from '../../../shared/webhooks/collections';

jest.setTimeout(180_000);

const ACCOUNT_CONCURRENCY = 2;
const A_ENDPOINTS = 12;
let stack: TestStack;
let fast: Receiver;

/** A receiver that holds every request until `answer()`; then answers 200, now and later. */
interface Holding {
  readonly url: string;
  readonly held: ServerResponse[];
  arrived: number;
  answer(): void;
  close(): Promise<void>;
}

async function holdingReceiver(): Promise<Holding> {
  let answering = false;
  const sockets = new Set<Socket>();
  const self = { held: [] as ServerResponse[], arrived: 0 } as Holding & { arrived: number };
  const server: Server = createServer(testTls(), (req, res) => {
    req.resume();
    self.arrived += 1;
    if (answering) res.end('ok');
    else self.held.push(res);
  });
  server.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(self, {
    url: `https://localhost:${(server.address() as AddressInfo).port}/hook`,
    answer() {
      answering = true;
      self.held.splice(0).forEach((res) => res.end('ok'));
    },
    close: track('holding receiver', async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  });
}

let slow: Holding;

beforeAll(async () => {
  fast = await startReceiver();
  slow = await holdingReceiver();
  stack = await startStack({
    webhooks: {
      allowPrivate: true,
      disableAfterDays: 3,
      timeoutMs: 60_000,
      accountConcurrency: ACCOUNT_CONCURRENCY,
      ca: testTls().cert,
    },
  });
});
afterAll(async () => {
  await stack?.close();
  await fast?.close();
  await slow?.close();
});

test("an account's slow endpoints do not hold back another account's delivery", async () => {
  const db = stack.mongo.db;
  const ctx = { actor: { kind: 'system', id: 'test', name: 'test' }, address: null } as const;
  const deps = { db, keys: createKeyRing(stack.masterKey), now: () => new Date() };
  for (let i = 0; i < A_ENDPOINTS; i++) {
    await createEndpoint(deps, ctx, 'acct-a', { url: slow.url, events: ['backup.failed'] });
  }
  await createEndpoint(deps, ctx, 'acct-b', { url: fast.url, events: ['backup.failed'] });
  const redis = createWorkerRedis(stack.redisUrl);
  const queue = new Queue(webhookDeliveryQueue.name, {
    connection: redis,
    prefix: bullPrefix(redis, stack.prefix),
  });
  try {
    const emit = { db, now: () => new Date(), deliveries: queueDeliverySink(queue) };
    expect(await emitEvent(emit, ['acct-a'], 'backup.failed', { n: 'a' })).toBe(A_ENDPOINTS);
    expect(await emitEvent(emit, ['acct-b'], 'backup.failed', { n: 'b' })).toBe(1);

    await eventually("B's delivery at its receiver", () => fast.received.length === 1);
    const aDocs = await webhooksCollections(db).deliveries.find({ accountId: 'acct-a' }).toArray();
    expect(aDocs.flatMap((d) => d.attempts)).toEqual([]);
    expect(slow.arrived).toBeLessThanOrEqual(ACCOUNT_CONCURRENCY);

    slow.answer();
    await eventually('all of A delivered', async () => {
      const states = await webhooksCollections(db)
        .deliveries.find({ accountId: 'acct-a' })
        .toArray();
      return states.filter((d) => d.state === 'delivered').length === A_ENDPOINTS;
    });
  } finally {
    await queue.close();
    await closeRedis(redis);
  }
});
