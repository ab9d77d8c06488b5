/**
 * A test delivery: its owner asks for one `webhook.test` event sent to one endpoint, whatever the
 * endpoint subscribes to, to check the receiver and its signature check. It is a delivery like any
 * other (signed, logged, retried, redeliverable) and counts against the redelivery limit; the
 * audit log records who sent it (`webhook.tested`). A disabled endpoint is refused one.
 */
import { randomUUID } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { recordAudit } from '../audit/record';
import type { AuditContext } from '../audit/types';
import { AppError } from '../errors';
import { webhooksCollections } from './collections';
import { checkSendByHand, type EmitDeps } from './deliveries';
import { endpointOf } from './endpoints';
import type { DeliveryDoc } from './types';

export async function sendTestDelivery(
  deps: EmitDeps,
  ctx: AuditContext,
  accountId: string,
  endpointId: string,
): Promise<DeliveryDoc> {
  const endpoint = await endpointOf(deps.db, accountId, endpointId);
  // The worker sends nothing to a disabled endpoint: the test would stay pending for good.
  if (!endpoint.enabled) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'the endpoint is disabled: enable it to send it a test',
    });
  }
  await checkSendByHand(deps, accountId);
  const now = deps.now();
  const eventId = `evt_${randomUUID()}`;
  const data = { endpointId: endpoint._id.toHexString(), message: 'A test delivery.' };
  const doc: DeliveryDoc = {
    _id: new ObjectId(),
    accountId,
    endpointId: endpoint._id,
    event: 'webhook.test',
    eventId,
    body: JSON.stringify({ id: eventId, type: 'webhook.test', createdAt: now.toISOString(), data }),
    state: 'pending',
    attempts: [],
    redeliveries: 0,
    createdAt: now,
    updatedAt: now,
  };
  await webhooksCollections(deps.db).deliveries.insertOne(doc);
  await deps.deliveries.enqueue(doc._id.toHexString(), 0);
  const change = {
    accountId,
    action: 'webhook.tested' as const,
    resource: { kind: 'delivery', id: doc._id.toHexString() },
    details: { endpointId: endpoint._id.toHexString(), url: endpoint.url },
  };
  await recordAudit(deps.db, ctx, change, now);
  return doc;
}
