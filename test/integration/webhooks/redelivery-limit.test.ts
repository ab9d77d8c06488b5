/**
 * Issue 31, finding 1: redelivery by hand is throttled per account (WEBHOOK_REDELIVERIES_PER_MINUTE,
 * docs/webhooks.md), on the JSON route and the web form's use-case alike: past the limit the route
 * answers 429 WEBHOOK_REDELIVERY_RATE_LIMITED with Retry-After, and queues nothing; another
 * account's redeliveries are not held back by it.
 */
import { newAccount } from '../../helpers/accounts';
import { ownerApi } from '../../helpers/owner-api';
import { startStack, type TestStack } from '../../helpers/stack';
import { emitEvent } from '../../../shared/webhooks/deliveries';
import { webhooksCollections } from '../../../shared/webhooks/collections';

jest.setTimeout(120_000);
const PER_MINUTE = 3;
let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({
    workers: false,
    webhookLimits: { redeliveriesPerMinute: PER_MINUTE },
  });
});
afterAll(() => stack?.close());

/** An account with one endpoint and one delivery of `backup.failed` (not sent: no workers). */
async function accountWithDelivery() {
  const { apiKey, id } = await newAccount(stack);
  const api = ownerApi(stack, apiKey);
  const created = await api('POST', '/api/v2/webhooks', {
    url: 'https://receiver.example/hook',
    events: ['backup.failed'],
  });
  expect(created.status).toBe(201);
  const sink = { enqueue: () => Promise.resolve() };
  await emitEvent(
    { db: stack.mongo.db, now: () => new Date(), deliveries: sink },
    [id],
    'backup.failed',
    {},
  );
  const doc = await webhooksCollections(stack.mongo.db).deliveries.findOne({ accountId: id });
  return { api, deliveryId: doc!._id.toHexString(), accountId: id };
}

test('past WEBHOOK_REDELIVERIES_PER_MINUTE an account is told 429 with Retry-After', async () => {
  const a = await accountWithDelivery();
  const b = await accountWithDelivery();
  const path = (d: string) => `/api/v2/webhook-deliveries/${d}/redeliver`;
  for (let i = 0; i < PER_MINUTE; i++)
    expect((await a.api('POST', path(a.deliveryId))).status).toBe(202);
  const refused = await a.api('POST', path(a.deliveryId));
  expect(refused.status).toBe(429);
  expect(refused.json<{ error: { code: string } }>().error.code).toBe(
    'WEBHOOK_REDELIVERY_RATE_LIMITED',
  );
  const retryAfter = Number(refused.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  // Nothing was queued by the refused one: the count stayed at the admitted redeliveries.
  const doc = await webhooksCollections(stack.mongo.db).deliveries.findOne({
    accountId: a.accountId,
  });
  expect(doc!.redeliveries).toBe(PER_MINUTE);
  // Another account is not held back.
  expect((await b.api('POST', path(b.deliveryId))).status).toBe(202);
});
