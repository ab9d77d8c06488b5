/**
 * The delivery log: one document per (event, endpoint), with every attempt's status code,
 * response excerpt and duration. Emitting an event writes the documents, then enqueues one
 * `webhook-delivery` job per document; the job carries only the delivery's id.
 */
import { createHash, randomUUID } from 'node:crypto';
import { MongoBulkWriteError, ObjectId, type Db } from 'mongodb';
import { recordAudit } from '../audit/record';
import type { AuditContext } from '../audit/types';
import { AppError } from '../errors';
import type { RedeliveryThrottle } from './redelivery-throttle';
import type { AttemptDoc, DeliveryDoc, WebhookEvent } from './types';
import { webhooksCollections } from './collections';

/** Where deliveries are enqueued: `webhook-delivery` (shared/queues/webhook-delivery.ts). */
export interface DeliverySink {
  enqueue(deliveryId: string, redelivery: number): Promise<void>;
}

export interface EmitDeps {
  readonly db: Db;
  readonly deliveries: DeliverySink;
  readonly now: () => Date;
  /** Redeliveries by hand per account (redelivery-throttle.ts); unset: not limited. */
  readonly redeliveries?: RedeliveryThrottle;
}

/** The same id for the same input: what makes emitting one event twice a no-op. */
function derivedId(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

async function insertNew(db: Db, docs: DeliveryDoc[]): Promise<void> {
  try {
    await webhooksCollections(db).deliveries.insertMany(docs, { ordered: false });
  } catch (err) {
    const errors = err instanceof MongoBulkWriteError ? [err.writeErrors].flat() : [];
    if (errors.length === 0 || errors.some((e) => e.code !== 11000)) throw err;
  }
}

/**
 * Sends `event` with `data` to every enabled endpoint of `accountIds` subscribed to it; returns
 * how many deliveries were queued. With `key` (naming the change, e.g. `upload:<id>`), the event
 * and delivery ids derive from it, so a retried job emitting the same change again queues
 * nothing new (the delivery documents and BullMQ's job ids are the same).
 */
export async function emitEvent(
  deps: EmitDeps,
  accountIds: readonly string[],
  event: WebhookEvent,
  data: Record<string, unknown>,
  key?: string,
): Promise<number> {
  const targets = await webhooksCollections(deps.db)
    .endpoints.find({ accountId: { $in: [...accountIds] }, enabled: true, events: event })
    .toArray();
  if (targets.length === 0) return 0;
  const now = deps.now();
  const eventId = `evt_${key ? derivedId(`${event}|${key}`, 32) : randomUUID()}`;
  const docs: DeliveryDoc[] = targets.map((t) => ({
    _id: key ? new ObjectId(derivedId(`${eventId}|${t._id.toHexString()}`, 24)) : new ObjectId(),
    accountId: t.accountId,
    endpointId: t._id,
    event,
    eventId,
    body: JSON.stringify({ id: eventId, type: event, createdAt: now.toISOString(), data }),
    state: 'pending',
    attempts: [],
    redeliveries: 0,
    createdAt: now,
    updatedAt: now,
  }));
  await insertNew(deps.db, docs);
  for (const d of docs) await deps.deliveries.enqueue(d._id.toHexString(), 0);
  return docs.length;
}

export async function recordAttempt(
  db: Db,
  id: ObjectId,
  attempt: AttemptDoc,
  state: DeliveryDoc['state'],
): Promise<void> {
  await webhooksCollections(db).deliveries.updateOne(
    { _id: id },
    { $push: { attempts: attempt }, $set: { state, updatedAt: attempt.at } },
  );
}

/**
 * The endpoint's latest deliveries, newest first by creation time, those of one instant by id
 * (highest first): never by id alone, since ids derived from a change (emitEvent's `key`) are in
 * no time order.
 */
export function deliveriesOf(db: Db, endpointId: ObjectId, limit: number): Promise<DeliveryDoc[]> {
  return webhooksCollections(db)
    .deliveries.find({ endpointId })
    .sort({ createdAt: -1, _id: -1 })
    .limit(limit)
    .toArray();
}

/**
 * A delivery sent by hand (a redelivery or a test) counts against the account's redelivery limit:
 * past it, WEBHOOK_REDELIVERY_RATE_LIMITED (429, `retryAfterSeconds`).
 */
export async function checkSendByHand(deps: EmitDeps, accountId: string): Promise<void> {
  const waitMs = (await deps.redeliveries?.attempted(accountId, deps.now().getTime())) ?? 0;
  if (waitMs > 0) {
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    throw new AppError('WEBHOOK_REDELIVERY_RATE_LIMITED', { details: { retryAfterSeconds } });
  }
}

/**
 * Queues a delivery of the account's once more (by hand); the log keeps every attempt. Past the
 * account's redelivery limit: WEBHOOK_REDELIVERY_RATE_LIMITED (429, `retryAfterSeconds`).
 */
export async function redeliver(
  deps: EmitDeps,
  ctx: AuditContext,
  accountId: string,
  id: string,
): Promise<DeliveryDoc> {
  await checkSendByHand(deps, accountId);
  const doc = ObjectId.isValid(id)
    ? await webhooksCollections(deps.db).deliveries.findOneAndUpdate(
        { _id: new ObjectId(id), accountId },
        { $inc: { redeliveries: 1 }, $set: { state: 'pending', updatedAt: deps.now() } },
        { returnDocument: 'after' },
      )
    : null;
  if (!doc) throw new AppError('NOT_FOUND', { message: 'no such delivery' });
  await deps.deliveries.enqueue(doc._id.toHexString(), doc.redeliveries);
  const change = {
    accountId,
    action: 'webhook.redelivered' as const,
    resource: { kind: 'delivery', id: doc._id.toHexString() },
    details: { endpointId: doc.endpointId.toHexString(), event: doc.event },
  };
  await recordAudit(deps.db, ctx, change, deps.now());
  return doc;
}

export function presentDelivery(d: DeliveryDoc) {
  return {
    id: d._id.toHexString(),
    endpointId: d.endpointId.toHexString(),
    event: d.event,
    eventId: d.eventId,
    state: d.state,
    redeliveries: d.redeliveries,
    createdAt: d.createdAt.toISOString(),
    attempts: d.attempts.map((a) => ({
      at: a.at.toISOString(),
      statusCode: a.statusCode,
      excerpt: a.excerpt,
      durationMs: a.durationMs,
    })),
  };
}
