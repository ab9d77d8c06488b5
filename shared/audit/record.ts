/**
 * The one way an audit entry is written (docs/audit.md). Insert-only: this module exports no
 * update or delete, and no route reaches the collection except the list.
 */
import { ObjectId, type Db } from 'mongodb';
import type { AuditAction, AuditContext, AuditEntryDoc, AuditResource, DetailValue } from './types';

export const AUDIT_COLLECTION = 'audit_log';

export function auditLog(db: Db) {
  return db.collection<AuditEntryDoc>(AUDIT_COLLECTION);
}

export async function ensureAuditIndexes(db: Db): Promise<void> {
  await auditLog(db).createIndex({ accountId: 1, _id: -1 }, { name: 'account_newest' });
}

export interface AuditChange {
  readonly accountId: string;
  readonly action: AuditAction;
  readonly resource: AuditResource;
  readonly details?: Readonly<Record<string, DetailValue>>;
}

/** Appends one entry: `change` done by `ctx.actor` from `ctx.address` at `at`. */
export async function recordAudit(
  db: Db,
  ctx: AuditContext,
  change: AuditChange,
  at: Date,
): Promise<AuditEntryDoc> {
  const doc: AuditEntryDoc = {
    _id: new ObjectId(),
    accountId: change.accountId,
    at,
    actor: { kind: ctx.actor.kind, id: ctx.actor.id, name: ctx.actor.name },
    action: change.action,
    resource: { kind: change.resource.kind, id: change.resource.id },
    address: ctx.address,
    details: { ...(change.details ?? {}) },
  };
  await auditLog(db).insertOne(doc);
  return doc;
}
