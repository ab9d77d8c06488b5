/**
 * The webhooks feature's collections and their indexes (every feature of shared/ has one such
 * file, of the same shape: `<feature>Collections(db)` and `ensure<Feature>Indexes(db)`;
 * shared/indexes.ts gathers the indexes).
 */
import type { Db } from 'mongodb';
import { collectionsOf } from '../collections';
import type { DeliveryDoc, EndpointDoc } from './types';

export const ENDPOINTS_COLLECTION = 'webhook_endpoints';
export const DELIVERIES_COLLECTION = 'webhook_deliveries';

export function webhooksCollections(db: Db) {
  return collectionsOf<{ endpoints: EndpointDoc; deliveries: DeliveryDoc }>(db, {
    endpoints: ENDPOINTS_COLLECTION,
    deliveries: DELIVERIES_COLLECTION,
  });
}

export async function ensureWebhooksIndexes(db: Db): Promise<void> {
  const { endpoints, deliveries } = webhooksCollections(db);
  await endpoints.createIndex({ accountId: 1 }, { name: 'account' });
  // The log is read newest first by creation time: ids derived from a change are in no time order.
  // (`endpoint_newest`, on `_id`, served the older read; left in place where it exists.)
  await deliveries.createIndex(
    { endpointId: 1, createdAt: -1, _id: -1 },
    { name: 'endpoint_created_newest' },
  );
  // The stranded-delivery sweep (stranded.ts): pending deliveries, quietest first.
  await deliveries.createIndex({ state: 1, updatedAt: 1 }, { name: 'state_updated' });
}
