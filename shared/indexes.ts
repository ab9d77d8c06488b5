/**
 * Indexes every process relies on; created idempotently at start-up. Each feature declares its own
 * indexes beside its collections; this file, at the top of shared/ and above every feature, only
 * gathers them (storage/ is infrastructure and imports no feature; docs/architecture.md).
 */
import type { Db } from 'mongodb';
import { ensureAccountsIndexes } from './accounts/collections';
import { ensureWebhooksIndexes } from './webhooks/collections';
import { ensureCatalogIndexes } from './catalog/collections';
import { ensureDevicesIndexes } from './devices/collections';
import { ensureAuditIndexes } from './audit/collections';
import { ensureAdoptionIndexes } from './adoption/collections';
import { ensureFunnelIndexes } from './funnel/collections';
import { ensureExceptionsIndexes } from './exceptions/collections';
import { ensureDeltaIndexes } from './delta/collections';
import { ensureClaimsIndexes } from './storage/claims';

/** Every feature's index declaration, in the order they are created. */
const FEATURE_INDEXES: readonly ((db: Db) => Promise<void>)[] = [
  ensureAccountsIndexes,
  ensureCatalogIndexes,
  ensureExceptionsIndexes,
  ensureDevicesIndexes,
  ensureFunnelIndexes,
  ensureAdoptionIndexes,
  ensureAuditIndexes,
  ensureWebhooksIndexes,
  ensureDeltaIndexes,
  ensureClaimsIndexes,
];

export async function ensureIndexes(db: Db): Promise<void> {
  for (const ensure of FEATURE_INDEXES) await ensure(db);
}
