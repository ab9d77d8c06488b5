/** Indexes every process relies on; created idempotently at start-up. */
import type { Db } from 'mongodb';
import { ensureAccessKeyIndexes } from '../accounts/access-keys';
import { ensureInvitationIndexes } from '../accounts/invitations';
import { ensureMemberIndexes } from '../accounts/member-types';
import { ACCOUNTS_COLLECTION } from '../accounts/service';
import { ensureAdoptionIndexes } from '../adoption/samples';
import { ensureAuditIndexes } from '../audit/record';
import { ensureWebhookIndexes } from '../webhooks/deliveries';
import { ensureCatalogIndexes } from '../catalog/collections';
import { ensureInstallationIndexes, ensureSeatIndexes } from '../devices/store';
import { ensureExceptionIndexes } from '../exceptions/collections';
import { ensureFunnelIndexes } from '../funnel/marks';

export async function ensureIndexes(db: Db): Promise<void> {
  const accounts = db.collection(ACCOUNTS_COLLECTION);
  await accounts.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
  await accounts.createIndex({ apiKeyLookup: 1 }, { unique: true, name: 'api_key_lookup_unique' });
  await ensureAccessKeyIndexes(db);
  await ensureMemberIndexes(db);
  await ensureInvitationIndexes(db);
  await ensureCatalogIndexes(db);
  await ensureExceptionIndexes(db);
  await ensureInstallationIndexes(db);
  await ensureSeatIndexes(db);
  await ensureFunnelIndexes(db);
  await ensureAdoptionIndexes(db);
  await ensureAuditIndexes(db);
  await ensureWebhookIndexes(db);
}
