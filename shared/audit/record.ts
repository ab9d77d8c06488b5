/**
 * The one way an audit entry is written (docs/audit.md). Insert-only: this module exports no
 * update or delete, and no route reaches the collection except the list.
 */
import { ObjectId, type Db } from 'mongodb';
import type { AuditAction, AuditContext, AuditEntryDoc, AuditResource, DetailValue } from './types';
import { auditCollections } from './collections';

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
  await auditCollections(db).entries.insertOne(doc);
  return doc;
}
