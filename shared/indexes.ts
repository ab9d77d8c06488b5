/**
 * Indexes every process relies on; created idempotently at start-up. Each feature declares its own
 * indexes beside its collections; this file, at the top of shared/ and above every feature, only
 * gathers them (storage/ is infrastructure and imports no feature; docs/architecture.md).
 */
import type { Db } from 'mongodb';
import { ensureAccessKeyIndexes } from './accounts/access-keys';
import { ensureInvitationIndexes } from './accounts/invitations';
import { ensureMemberIndexes } from './accounts/member-types';
import { ensureAccountIndexes } from './accounts/service';
import { ensureAdoptionIndexes } from './adoption/samples';
import { ensureAuditIndexes } from './audit/record';
import { ensureWebhookIndexes } from './webhooks/deliveries';
import { ensureCatalogIndexes } from './catalog/collections';
import { ensureInstallationIndexes, ensureSeatIndexes } from './devices/store';
import { ensureExceptionIndexes } from './exceptions/collections';
import { ensureFunnelIndexes } from './funnel/marks';

/** Every feature's index declaration, in the order they are created. */
const FEATURE_INDEXES: readonly ((db: Db) => Promise<void>)[] = [
  ensureAccountIndexes,
  ensureAccessKeyIndexes,
  ensureMemberIndexes,
  ensureInvitationIndexes,
  ensureCatalogIndexes,
  ensureExceptionIndexes,
  ensureInstallationIndexes,
  ensureSeatIndexes,
  ensureFunnelIndexes,
  ensureAdoptionIndexes,
  ensureAuditIndexes,
  ensureWebhookIndexes,
];

export async function ensureIndexes(db: Db): Promise<void> {
  for (const ensure of FEATURE_INDEXES) await ensure(db);
}
