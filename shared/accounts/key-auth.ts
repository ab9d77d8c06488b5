/**
 * Authentication by any kind of key (the account key, device keys, CI tokens) into a principal
 * (shared/accounts/principal.ts), and the owner's switch restricting the account key to the device
 * routes. Part of the accounts service (service.ts).
 */
import { ObjectId, type Collection, type Db } from 'mongodb';
import { recordAudit } from '../audit/record';
import type { AuditContext } from '../audit/types';
import type { KeyRing } from '../crypto/keys';
import { AppError } from '../errors';
import type { AccessKeys } from './access-keys';
import { apiKeyLookups, looksLikeApiKey, lookupMatches } from './api-keys';
import { underAccountLock } from './doc-locks';
import { principalOf, type Principal } from './principal';
import { toAccount, type Account, type AccountDoc } from './types';

/** A presented key or token that authenticated: its account, and what it may do. */
export interface Authenticated {
  readonly account: Account;
  readonly principal: Principal;
}

export interface KeyAuth {
  authenticateApiKey(apiKey: string): Promise<Account | null>;
  authenticateKey(presented: string): Promise<Authenticated | null>;
  /** The owner's switch; each call is audited (`account-key.restricted` / `.unrestricted`). */
  setApiKeyDeviceOnly(accountId: string, deviceOnly: boolean, ctx: AuditContext): Promise<void>;
  apiKeyDeviceOnly(accountId: string): Promise<boolean>;
}

/** Authentication by any kind of key, and the account key's device-only switch. */
export function keyAuthMethods(
  db: Db,
  accounts: Collection<AccountDoc>,
  keys: KeyRing,
  access: AccessKeys,
): KeyAuth {
  async function byAccountKey(apiKey: string): Promise<AccountDoc | null> {
    const lookups = apiKeyLookups(keys, apiKey);
    const doc = await accounts.findOne({ apiKeyLookup: { $in: lookups } });
    return doc && lookups.some((l) => lookupMatches(l, doc.apiKeyLookup)) ? doc : null;
  }

  async function authenticateKey(presented: string): Promise<Authenticated | null> {
    if (!looksLikeApiKey(presented)) return null;
    if (presented.startsWith('ak_')) {
      const doc = await byAccountKey(presented);
      if (!doc) return null;
      const accountId = doc._id.toHexString();
      const deviceOnly = doc.apiKeyDeviceOnly === true;
      const principal = principalOf({ accountId, kind: 'account-key', deviceOnly });
      return { account: toAccount(doc), principal };
    }
    const principal = await access.authenticate(presented);
    if (!principal) return null;
    const doc = await accounts.findOne({ _id: new ObjectId(principal.accountId) });
    return doc ? { account: toAccount(doc), principal } : null;
  }

  return {
    authenticateKey,
    async authenticateApiKey(apiKey) {
      if (!apiKey.startsWith('ak_')) return null;
      return (await authenticateKey(apiKey))?.account ?? null;
    },
    async setApiKeyDeviceOnly(accountId, deviceOnly, ctx) {
      const at = new Date();
      const _id = new ObjectId(accountId);
      const result = await underAccountLock(db, _id, () =>
        accounts.updateOne({ _id }, { $set: { apiKeyDeviceOnly: deviceOnly, updatedAt: at } }),
      );
      if (result.matchedCount === 0)
        throw new AppError('NOT_FOUND', { message: 'account not found' });
      const action = deviceOnly ? 'account-key.restricted' : 'account-key.unrestricted';
      const resource = { kind: 'account-key', id: accountId };
      await recordAudit(db, ctx, { accountId, action, resource, details: { deviceOnly } }, at);
    },
    async apiKeyDeviceOnly(accountId) {
      const doc = await accounts.findOne({ _id: new ObjectId(accountId) });
      return doc?.apiKeyDeviceOnly === true;
    },
  };
}
