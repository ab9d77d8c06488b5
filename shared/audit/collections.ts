/**
 * The audit feature's collection and its index (every feature of shared/ has one such file, of the
 * same shape: `<feature>Collections(db)` and `ensure<Feature>Indexes(db)`; shared/indexes.ts
 * gathers the indexes).
 */
import type { Db } from 'mongodb';
import { collectionsOf } from '../collections';
import type { AuditEntryDoc } from './types';

export const AUDIT_COLLECTION = 'audit_log';

export function auditCollections(db: Db) {
  return collectionsOf<{ entries: AuditEntryDoc }>(db, { entries: AUDIT_COLLECTION });
}

export async function ensureAuditIndexes(db: Db): Promise<void> {
  const { entries } = auditCollections(db);
  await entries.createIndex({ accountId: 1, _id: -1 }, { name: 'account_newest' });
}
