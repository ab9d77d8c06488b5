/**
 * Reading the audit log: one account's entries, newest first, filtered by action, resource,
 * actor and time range, a page at a time (`before`: the id of the last entry of the previous
 * page).
 */
import { ObjectId, type Db, type Filter } from 'mongodb';
import { AppError } from '../errors';
import { AUDIT_ACTIONS, type AuditAction, type AuditEntryDoc } from './types';
import { auditCollections } from './collections';

export interface AuditFilter {
  readonly action?: AuditAction;
  readonly resourceKind?: string;
  readonly resourceId?: string;
  readonly actorKind?: string;
  readonly actorId?: string;
  readonly from?: Date;
  readonly to?: Date;
  readonly before?: ObjectId;
  readonly limit: number;
}

export const AUDIT_PAGE_DEFAULT = 50;
const PAGE_MAX = 200;

function text(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 200) {
    throw new AppError('VALIDATION_FAILED', { message: `${name}: a string (200 at most)` });
  }
  return value;
}

function instant(query: Record<string, unknown>, name: string): Date | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) {
    throw new AppError('VALIDATION_FAILED', { message: `${name}: an ISO 8601 instant` });
  }
  return at;
}

/** The filter a query string asks for (`action`, `resourceKind`, ..., `from`, `to`, `before`). */
export function parseAuditFilter(query: Record<string, unknown>): AuditFilter {
  const action = text(query, 'action');
  if (action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(action)) {
    throw new AppError('VALIDATION_FAILED', {
      message: `action: one of ${AUDIT_ACTIONS.join(', ')}`,
    });
  }
  const before = text(query, 'before');
  if (before !== undefined && !ObjectId.isValid(before)) {
    throw new AppError('VALIDATION_FAILED', { message: 'before: an entry id' });
  }
  const limit = Number(text(query, 'limit') ?? AUDIT_PAGE_DEFAULT);
  if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_MAX) {
    throw new AppError('VALIDATION_FAILED', { message: `limit: 1 to ${PAGE_MAX}` });
  }
  const opt = <K extends string, V>(k: K, v: V | undefined) =>
    (v === undefined ? {} : { [k]: v }) as Partial<Record<K, V>>;
  return {
    ...opt('action', action as AuditAction | undefined),
    ...opt('resourceKind', text(query, 'resourceKind')),
    ...opt('resourceId', text(query, 'resourceId')),
    ...opt('actorKind', text(query, 'actorKind')),
    ...opt('actorId', text(query, 'actorId')),
    ...opt('from', instant(query, 'from')),
    ...opt('to', instant(query, 'to')),
    ...opt('before', before === undefined ? undefined : new ObjectId(before)),
    limit,
  };
}

function mongoFilter(accountId: string, f: AuditFilter): Filter<AuditEntryDoc> {
  const q: Filter<AuditEntryDoc> = { accountId };
  if (f.action) q.action = f.action;
  if (f.resourceKind) q['resource.kind'] = f.resourceKind;
  if (f.resourceId) q['resource.id'] = f.resourceId;
  if (f.actorKind) q['actor.kind'] = f.actorKind;
  if (f.actorId) q['actor.id'] = f.actorId;
  if (f.from || f.to)
    q.at = { ...(f.from ? { $gte: f.from } : {}), ...(f.to ? { $lt: f.to } : {}) };
  if (f.before) q._id = { $lt: f.before };
  return q;
}

export interface AuditPage {
  readonly entries: AuditEntryDoc[];
  /** Pass as `before` for the next page; null on the last page. */
  readonly next: string | null;
}

export async function listAudit(db: Db, accountId: string, f: AuditFilter): Promise<AuditPage> {
  const docs = await auditCollections(db)
    .entries.find(mongoFilter(accountId, f))
    .sort({ _id: -1 })
    .limit(f.limit + 1)
    .toArray();
  const entries = docs.slice(0, f.limit);
  const more = docs.length > f.limit;
  return { entries, next: more ? entries[entries.length - 1]!._id.toHexString() : null };
}

/** An entry as the API shows it. */
export function presentAudit(e: AuditEntryDoc) {
  return {
    id: e._id.toHexString(),
    at: e.at.toISOString(),
    actor: e.actor,
    action: e.action,
    resource: e.resource,
    address: e.address,
    details: e.details,
  };
}
