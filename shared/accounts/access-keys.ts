/**
 * Device keys (`dk_…`) and CI tokens (`ct_…`) of an account (docs/keys.md): created with a name and
 * the apps they are for, listed, revoked. Stored like the account key: an HMAC of the secret under
 * the master key's `api-key-lookup` sub-key (the lookup index) and an AES-GCM sealed copy (bound to
 * the record by its AAD), so `apkrelay keys reseal` moves them with the rest. The secret is
 * returned once, by `create`; nothing else ever answers it. Each records who made it. Last use is
 * recorded apart from the key (key-uses.ts): no request but a revocation rewrites a key's document.
 */
import { ObjectId, type Db } from 'mongodb';
import { recordAudit, type AuditChange } from '../audit/record';
import type { Actor, AuditAction, AuditContext } from '../audit/types';
import type { KeyRing } from '../crypto/keys';
import { AppError } from '../errors';
import {
  apiKeyLookup,
  apiKeyLookups,
  generateApiKey,
  lookupMatches,
  sealApiKey,
  unsealApiKey,
} from './api-keys';
import { underAccessKeyLock } from './doc-locks';
import { createKeyUses } from './key-uses';
import { principalOf, type Principal } from './principal';
import {
  accountsCollections,
  type AccessKeyDoc,
  type AccessKeyKind,
  type AccessKeyUseDoc,
} from './collections';

const PACKAGE_PATTERN = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
const MAX_NAME = 100;
const MAX_APPS = 50;

/** What the owner sees of a key: never its secret. */
export interface AccessKeyView {
  readonly id: string;
  readonly kind: AccessKeyKind;
  readonly name: string;
  readonly apps: readonly string[];
  readonly createdAt: string;
  /** Who made it: kind, id and name as in the audit log; null for keys older than the record. */
  readonly createdBy: Actor | null;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

export interface AccessKeys {
  /**
   * A new key; `secret` is answered here only. 400 VALIDATION_FAILED for a bad kind, name or apps.
   * Audited (`access-key.created`) as done by `ctx`.
   */
  create(
    accountId: string,
    input: { kind: unknown; name: unknown; apps: unknown },
    ctx: AuditContext,
  ): Promise<{ key: AccessKeyView; secret: string }>;
  list(accountId: string): Promise<AccessKeyView[]>;
  /**
   * Revokes one of the account's keys (at once; device look-ups cache for 5 s); 404 otherwise.
   * The revocation is audited (`access-key.revoked`); revoking again changes and records nothing.
   */
  revoke(accountId: string, id: string, ctx: AuditContext): Promise<AccessKeyView>;
  /** The principal of a presented `dk_`/`ct_` secret that is not revoked, or null. */
  authenticate(secret: string): Promise<Principal | null>;
}

/** The AAD binding a sealed secret to its record. */
export function accessKeyAad(id: string): string {
  return `access-key:${id}`;
}

export function sealAccessKey(keys: KeyRing, id: string, secret: string): string {
  return sealApiKey(keys, accessKeyAad(id), secret);
}

export function unsealAccessKey(keys: KeyRing, id: string, sealed: string): string {
  return unsealApiKey(keys, accessKeyAad(id), sealed);
}

/** The owner's view of `doc`, last used at the later of its own record and `use`'s. */
export function viewOf(doc: AccessKeyDoc, use?: AccessKeyUseDoc | null): AccessKeyView {
  const lastUsedAt = [doc.lastUsedAt, use?.lastUsedAt].reduce<Date | null>(
    (a, b) => (b && (!a || b > a) ? b : a),
    null,
  );
  return {
    id: doc._id.toHexString(),
    kind: doc.kind,
    name: doc.name,
    apps: doc.apps,
    createdAt: doc.createdAt.toISOString(),
    createdBy: doc.createdBy
      ? { kind: doc.createdBy.kind, id: doc.createdBy.id, name: doc.createdBy.name }
      : null,
    lastUsedAt: lastUsedAt?.toISOString() ?? null,
    revokedAt: doc.revokedAt?.toISOString() ?? null,
  };
}

/** The audit entry of a change to a key: its kind, name and apps, never its secret. */
export function accessKeyChange(action: AuditAction, doc: AccessKeyDoc): AuditChange {
  return {
    accountId: doc.accountId,
    action,
    resource: { kind: 'access-key', id: doc._id.toHexString() },
    details: { kind: doc.kind, name: doc.name, apps: doc.apps.join(',') },
  };
}

/** A new key's kind, name and apps, checked; 400 VALIDATION_FAILED naming every problem. */
export function validateAccessKey(input: { kind: unknown; name: unknown; apps: unknown }): {
  kind: AccessKeyKind;
  name: string;
  apps: string[];
} {
  const problems: string[] = [];
  const kind = input.kind === 'device-key' || input.kind === 'ci-token' ? input.kind : null;
  if (!kind) problems.push('kind must be device-key or ci-token');
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length < 1 || name.length > MAX_NAME)
    problems.push(`name must be 1 to ${MAX_NAME} characters`);
  const apps = Array.isArray(input.apps) ? [...new Set(input.apps as unknown[])] : [];
  if (apps.length < 1 || apps.length > MAX_APPS)
    problems.push(`apps must list 1 to ${MAX_APPS} packages`);
  if (!apps.every((a) => typeof a === 'string' && PACKAGE_PATTERN.test(a)))
    problems.push('apps must be Android package names');
  if (problems.length > 0 || !kind)
    throw new AppError('VALIDATION_FAILED', {
      message: problems.join('; '),
      details: { problems },
    });
  return { kind, name, apps: apps as string[] };
}

export function createAccessKeys(
  db: Db,
  keys: KeyRing,
  now: () => Date = () => new Date(),
): AccessKeys {
  const c = accountsCollections(db).accessKeys;
  const uses = createKeyUses(db, now);
  return {
    async create(accountId, input, ctx) {
      const { kind, name, apps } = validateAccessKey(input);
      const _id = new ObjectId();
      const secret = generateApiKey(kind === 'device-key' ? 'dk_' : 'ct_');
      const doc: AccessKeyDoc = {
        _id,
        accountId,
        kind,
        name,
        apps,
        lookup: apiKeyLookup(keys, secret),
        sealed: sealAccessKey(keys, _id.toHexString(), secret),
        createdAt: now(),
        createdBy: { kind: ctx.actor.kind, id: ctx.actor.id, name: ctx.actor.name },
        lastUsedAt: null,
        revokedAt: null,
      };
      await c.insertOne(doc);
      await recordAudit(db, ctx, accessKeyChange('access-key.created', doc), doc.createdAt);
      return { key: viewOf(doc), secret };
    },

    async list(accountId) {
      const [docs, used] = await Promise.all([
        c.find({ accountId }).sort({ createdAt: 1 }).toArray(),
        uses.of(accountId),
      ]);
      return docs.map((doc) => viewOf(doc, used.get(doc._id.toHexString())));
    },

    async revoke(accountId, id, ctx) {
      const _id = ObjectId.isValid(id) && /^[0-9a-f]{24}$/.test(id) ? new ObjectId(id) : null;
      const at = now();
      const revoked = _id
        ? await underAccessKeyLock(db, _id, () =>
            c.updateOne({ _id, accountId, revokedAt: null }, { $set: { revokedAt: at } }),
          )
        : null;
      // Revoking twice answers the first revocation.
      const doc = _id ? await c.findOne({ _id, accountId }) : null;
      if (!doc) throw new AppError('NOT_FOUND', { message: 'no such key or token' });
      if (revoked?.modifiedCount === 1)
        await recordAudit(db, ctx, accessKeyChange('access-key.revoked', doc), at);
      return viewOf(doc, (await uses.of(accountId, [doc._id])).get(id));
    },

    async authenticate(secret) {
      const lookups = apiKeyLookups(keys, secret);
      const doc = await c.findOne({ lookup: { $in: lookups } });
      if (!doc || doc.revokedAt || !lookups.some((l) => lookupMatches(l, doc.lookup))) return null;
      uses.note(doc);
      return principalOf({
        accountId: doc.accountId,
        kind: doc.kind,
        id: doc._id.toHexString(),
        apps: doc.apps,
        name: doc.name,
      });
    },
  };
}
