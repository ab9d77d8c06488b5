/**
 * An account's webhook endpoints: create (the secret is returned once, stored sealed), list,
 * change (URL, events, enabled), delete. Every function is scoped to the account: another
 * account's endpoint is not found.
 */
import { randomBytes } from 'node:crypto';
import { ObjectId, type Db } from 'mongodb';
import type { KeyRing } from '../crypto/keys';
import { seal, unseal } from '../crypto/seal';
import { recordAudit } from '../audit/record';
import type { AuditContext } from '../audit/types';
import { AppError } from '../errors';
import { withDocLock } from '../storage/doc-lock';
import { WEBHOOK_EVENTS, type EndpointDoc, type WebhookEvent } from './types';
import { webhooksCollections } from './collections';

const MAX_ENDPOINTS = 20;

export const secretAad = (id: ObjectId) => `webhook-secret:${id.toHexString()}`;

export function openSecret(keys: KeyRing, doc: EndpointDoc): string {
  return unseal(keys, 'webhook-secret-seal', doc.secretSealed, secretAad(doc._id)).toString();
}

export function parseUrl(value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' && value.length <= 2000 ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  return checkedUrl(url);
}

function checkedUrl(url: URL | undefined): string {
  if (url?.protocol !== 'https:' || url.username || url.password) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'url: an https:// URL without credentials (2000 characters at most)',
    });
  }
  return url.toString();
}

export function parseEvents(value: unknown): WebhookEvent[] {
  const all = WEBHOOK_EVENTS as readonly string[];
  const list: unknown[] = Array.isArray(value) ? value : [];
  if (list.length === 0 || !list.every((e) => typeof e === 'string' && all.includes(e))) {
    throw new AppError('VALIDATION_FAILED', {
      message: `events: a non-empty list of ${WEBHOOK_EVENTS.join(', ')}`,
    });
  }
  return [...new Set(list as WebhookEvent[])];
}

export interface EndpointDeps {
  readonly db: Db;
  readonly keys: KeyRing;
  readonly now: () => Date;
}

/** The audit entry of a change to an endpoint (never its secret). */
function noteChange(
  deps: Pick<EndpointDeps, 'db' | 'now'>,
  ctx: AuditContext,
  action: 'webhook.created' | 'webhook.updated' | 'webhook.deleted',
  doc: EndpointDoc,
): Promise<unknown> {
  const details = { url: doc.url, events: doc.events.join(','), enabled: doc.enabled };
  const resource = { kind: 'webhook', id: doc._id.toHexString() };
  return recordAudit(
    deps.db,
    ctx,
    { accountId: doc.accountId, action, resource, details },
    deps.now(),
  );
}

/** A new endpoint and its secret: the only time the secret leaves the server. */
export async function createEndpoint(
  deps: EndpointDeps,
  ctx: AuditContext,
  accountId: string,
  body: { url?: unknown; events?: unknown },
): Promise<{ doc: EndpointDoc; secret: string }> {
  const url = parseUrl(body.url);
  const events = parseEvents(body.events);
  if (
    (await webhooksCollections(deps.db).endpoints.countDocuments({ accountId })) >= MAX_ENDPOINTS
  ) {
    throw new AppError('VALIDATION_FAILED', { message: `at most ${MAX_ENDPOINTS} endpoints` });
  }
  const _id = new ObjectId();
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  const now = deps.now();
  const doc: EndpointDoc = {
    _id,
    accountId,
    url,
    events,
    secretSealed: seal(deps.keys, 'webhook-secret-seal', Buffer.from(secret), secretAad(_id)),
    enabled: true,
    disabledReason: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  await webhooksCollections(deps.db).endpoints.insertOne(doc);
  await noteChange(deps, ctx, 'webhook.created', doc);
  return { doc, secret };
}

export async function endpointOf(db: Db, accountId: string, id: string): Promise<EndpointDoc> {
  const doc = ObjectId.isValid(id)
    ? await webhooksCollections(db).endpoints.findOne({ _id: new ObjectId(id), accountId })
    : null;
  if (!doc) throw new AppError('NOT_FOUND', { message: 'no such webhook endpoint' });
  return doc;
}

export function listEndpoints(db: Db, accountId: string): Promise<EndpointDoc[]> {
  return webhooksCollections(db).endpoints.find({ accountId }).sort({ _id: 1 }).toArray();
}

/** Changes url, events and/or enabled; enabling again clears an automatic disabling. */
export async function updateEndpoint(
  deps: EndpointDeps,
  ctx: AuditContext,
  accountId: string,
  id: string,
  body: { url?: unknown; events?: unknown; enabled?: unknown },
): Promise<EndpointDoc> {
  const doc = await endpointOf(deps.db, accountId, id);
  const set: Partial<EndpointDoc> = { updatedAt: deps.now() };
  if (body.url !== undefined) set.url = parseUrl(body.url);
  if (body.events !== undefined) set.events = parseEvents(body.events);
  if (body.enabled !== undefined) {
    if (typeof body.enabled !== 'boolean') {
      throw new AppError('VALIDATION_FAILED', { message: 'enabled: true or false' });
    }
    set.enabled = body.enabled;
    set.disabledReason = body.enabled ? null : 'owner';
    set.failingSince = null;
  }
  await underEndpointLock(deps.db, doc._id, () =>
    webhooksCollections(deps.db).endpoints.updateOne({ _id: doc._id, accountId }, { $set: set }),
  );
  const updated = { ...doc, ...set };
  await noteChange(deps, ctx, 'webhook.updated', updated);
  return updated;
}

/** Deletes the endpoint; its delivery log stays (it names the endpoint by id). */
export async function deleteEndpoint(
  deps: Pick<EndpointDeps, 'db' | 'now'>,
  ctx: AuditContext,
  accountId: string,
  id: string,
): Promise<EndpointDoc> {
  const doc = await endpointOf(deps.db, accountId, id);
  await webhooksCollections(deps.db).endpoints.deleteOne({ _id: doc._id, accountId });
  await noteChange(deps, ctx, 'webhook.deleted', doc);
  return doc;
}

/** An endpoint as the API shows it: never its secret. */
export function presentEndpoint(doc: EndpointDoc) {
  return {
    id: doc._id.toHexString(),
    url: doc.url,
    events: doc.events,
    enabled: doc.enabled,
    disabledReason: doc.disabledReason,
    failingSince: doc.failingSince?.toISOString() ?? null,
    createdAt: doc.createdAt.toISOString(),
  };
}

/**
 * Every update of an endpoint document runs under its lock (shared/storage/doc-lock.ts): the
 * owner's changes (its URL, events, or switching it off) and the deliveries' failure run are
 * written by different paths, and on the default store two updates of one document at once can
 * undo each other: a delivery that succeeded just then could switch a disabled endpoint back on.
 */
export function underEndpointLock<T>(db: Db, id: ObjectId, write: () => Promise<T>): Promise<T> {
  return withDocLock(db, `webhook-endpoint:${id.toHexString()}`, write);
}
