/**
 * The delivery processor against the real MongoDB-protocol server and a real HTTPS receiver on
 * loopback (docs/webhooks.md): without WEBHOOK_ALLOW_PRIVATE a delivery to loopback is refused
 * before any connection, for good (no retry); with it, an endpoint failing without a success
 * for WEBHOOK_DISABLE_AFTER_DAYS is disabled, and one success in between resets the count.
 * The delivery log as the owner reads it (GET /api/v2/webhooks/{id}/deliveries: deliveriesOf,
 * presentDelivery): newest first whatever the deliveries' ids (derived from the change, so in no
 * time order), and a delivery whose attempt ends its tries reads "failed", never "pending".
 */
import { randomBytes } from 'node:crypto';
import { UnrecoverableError } from 'bullmq';
import { createKeyRing } from '../../../shared/crypto/keys';
import { deliveriesOf, emitEvent, presentDelivery } from '../../../shared/webhooks/deliveries';
import { createEndpoint } from '../../../shared/webhooks/endpoints';
import {
  webhookDeliveryProcessor,
  type WebhookSettings,
} from '../../../workers/webhooks/delivery-processor';
import { jobContext } from '../../helpers/job-context';
import { useIsolatedMongo } from '../../helpers/services';
import { testTls } from '../../helpers/stack';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';
import { webhooksCollections } from '../../../shared/webhooks/collections';

const store = useIsolatedMongo();
const keys = createKeyRing(randomBytes(32));
const DAY_MS = 86_400_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');
let clock = T0;
const now = () => new Date(clock);
const ctx = { actor: { kind: 'system', id: 'test', name: 'test' }, address: null };
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

async function oneDelivery(accountId: string, url?: string): Promise<string> {
  const queued: string[] = [];
  const deps = { db: store.mongo.db, keys, now };
  if (url) await createEndpoint(deps, ctx, accountId, { url, events: ['backup.failed'] });
  const sink = { enqueue: (id: string) => Promise.resolve(void queued.push(id)) };
  await emitEvent({ db: store.mongo.db, now, deliveries: sink }, [accountId], 'backup.failed', {});
  return queued[0]!;
}

function processor(settings: Partial<WebhookSettings>) {
  return webhookDeliveryProcessor({
    db: store.mongo.db,
    keys,
    now,
    webhooks: {
      allowPrivate: false,
      disableAfterDays: 3,
      timeoutMs: 5_000,
      ca: testTls().cert,
      ...settings,
    },
  });
}

test('loopback is refused without WEBHOOK_ALLOW_PRIVATE: no connection, no retry', async () => {
  const id = await oneDelivery('acct-ssrf', receiver.url);
  const run = processor({ allowPrivate: false })(
    { deliveryId: id, redelivery: 0 },
    jobContext(1, 12),
  );
  await expect(run).rejects.toBeInstanceOf(UnrecoverableError);
  await expect(run).rejects.toThrow(/loopback address \(127\.0\.0\.1\).*WEBHOOK_ALLOW_PRIVATE/);
  expect(receiver.received).toHaveLength(0);
  const doc = await webhooksCollections(store.mongo.db).deliveries.findOne({});
  expect(doc).toMatchObject({ state: 'failed', attempts: [{ statusCode: null }] });
  // A literal private address is refused the same way, without DNS.
  const literal = await oneDelivery('acct-ssrf-2', 'https://10.1.2.3:9/hook');
  await expect(
    processor({ allowPrivate: false })({ deliveryId: literal, redelivery: 0 }, jobContext(1, 12)),
  ).rejects.toThrow(/private address \(10\.1\.2\.3\)/);
});

test('failing for WEBHOOK_DISABLE_AFTER_DAYS disables the endpoint; a success resets it', async () => {
  const run = processor({ allowPrivate: true });
  receiver.status = 500;
  const id = await oneDelivery('acct-failing', receiver.url);
  const endpoint = () =>
    webhooksCollections(store.mongo.db).endpoints.findOne({ accountId: 'acct-failing' });
  const attempt = () => run({ deliveryId: id, redelivery: 0 }, jobContext(1, 12));

  await expect(attempt()).rejects.toThrow(/delivery failed: 500/);
  expect(await endpoint()).toMatchObject({ enabled: true, failingSince: new Date(T0) });
  clock = T0 + 2 * DAY_MS;
  await expect(attempt()).rejects.toThrow(/delivery failed: 500/);
  expect(await endpoint()).toMatchObject({ enabled: true, failingSince: new Date(T0) });
  // A success in between: the run of failures starts again.
  receiver.status = 200;
  await expect(attempt()).resolves.toMatchObject({ outcome: 'delivered', statusCode: 200 });
  expect(await endpoint()).toMatchObject({ enabled: true, failingSince: null });

  receiver.status = 500;
  const next = await oneDelivery('acct-failing');
  const again = () => run({ deliveryId: next, redelivery: 0 }, jobContext(1, 12));
  clock = T0 + 3 * DAY_MS;
  await expect(again()).rejects.toThrow(/delivery failed: 500/);
  clock = T0 + 6 * DAY_MS - 1;
  await expect(again()).rejects.toThrow(/delivery failed: 500/);
  expect(await endpoint()).toMatchObject({ enabled: true });
  clock = T0 + 6 * DAY_MS;
  await expect(again()).resolves.toMatchObject({ outcome: 'disabled' });
  expect(await endpoint()).toMatchObject({ enabled: false, disabledReason: 'failing' });
  // Issue 31: the automatic disabling is one audit entry, by the system.
  const disabled = await store.mongo.db
    .collection('audit_log')
    .find({ accountId: 'acct-failing', action: 'webhook.disabled' })
    .toArray();
  expect(
    disabled.map((e): unknown[] => [e.actor, e.resource, (e.details as { reason: string }).reason]),
  ).toEqual([
    [
      { kind: 'system', id: 'webhook-failures', name: 'webhook failure check' },
      { kind: 'webhook', id: (await endpoint())!._id.toHexString() },
      'failing',
    ],
  ]);
  receiver.status = 200;
});

/** An endpoint of `accountId` at the receiver; returns its id and a sink recording what is queued. */
async function endpointOf(accountId: string) {
  const deps = { db: store.mongo.db, keys, now };
  const { doc } = await createEndpoint(deps, ctx, accountId, {
    url: receiver.url,
    events: ['backup.failed'],
  });
  const queued: string[] = [];
  const sink = { enqueue: (id: string) => Promise.resolve(void queued.push(id)) };
  return { endpointId: doc._id, queued, emit: { db: store.mongo.db, now, deliveries: sink } };
}

const shown = async (endpointId: Parameters<typeof deliveriesOf>[1]) =>
  (await deliveriesOf(store.mongo.db, endpointId, 100)).map(presentDelivery);

test('deliveries are listed newest first; those of one instant by id, the same at every read', async () => {
  const { endpointId, emit } = await endpointOf('acct-order');
  // Keys name the change and the delivery ids derive from them (and from the endpoint's id): in
  // no time order. Seven instants, the last one twice: by id alone, a time order is 1 in 5,040.
  const seconds = [0, 1, 2, 3, 4, 5, 6, 6];
  for (const [i, t] of seconds.entries()) {
    clock = T0 + t * 1_000;
    await emitEvent(emit, ['acct-order'], 'backup.failed', { i }, `order:${i}`);
  }
  const list = await shown(endpointId);
  expect(list.map((d) => d.createdAt)).toEqual([
    '2026-11-01T00:00:06.000Z',
    '2026-11-01T00:00:06.000Z',
    '2026-11-01T00:00:05.000Z',
    '2026-11-01T00:00:04.000Z',
    '2026-11-01T00:00:03.000Z',
    '2026-11-01T00:00:02.000Z',
    '2026-11-01T00:00:01.000Z',
    '2026-11-01T00:00:00.000Z',
  ]);
  // The two of one instant: the higher id first, at every read.
  expect(list[0]!.id > list[1]!.id).toBe(true);
  expect((await shown(endpointId)).map((d) => d.id)).toEqual(list.map((d) => d.id));
});

/** One delivery to an endpoint of `accountId` whose receiver answers `status`; its attempt n of 12. */
async function failingDelivery(accountId: string, status: number) {
  const run = processor({ allowPrivate: true });
  receiver.status = status;
  clock = T0;
  const { endpointId, queued, emit } = await endpointOf(accountId);
  await emitEvent(emit, [accountId], 'backup.failed', {});
  const attempt = (n: number) => run({ deliveryId: queued[0]!, redelivery: 0 }, jobContext(n, 12));
  return { attempt, state: async () => (await shown(endpointId))[0]?.state, endpointId };
}

test('the attempt that disables a failing endpoint leaves its delivery failed, not pending', async () => {
  const { attempt, state, endpointId } = await failingDelivery('acct-disabled', 500);
  await expect(attempt(1)).rejects.toThrow(/delivery failed: 500/);
  expect(await state()).toBe('pending');
  // Attempt 2 of 12, three days into the failures: the endpoint is disabled and no retry comes.
  clock = T0 + 3 * DAY_MS;
  await expect(attempt(2)).resolves.toMatchObject({ outcome: 'disabled' });
  expect(await state()).toBe('failed');
  const [delivery] = await shown(endpointId);
  expect(delivery!.attempts.map((a) => a.statusCode)).toEqual([500, 500]);
  receiver.status = 200;
});

test('the last allowed attempt failing leaves the delivery failed', async () => {
  const { attempt, state } = await failingDelivery('acct-last', 503);
  await expect(attempt(11)).rejects.toThrow(/delivery failed: 503/);
  expect(await state()).toBe('pending');
  await expect(attempt(12)).rejects.toThrow(/delivery failed: 503/);
  expect(await state()).toBe('failed');
  receiver.status = 200;
});
