/**
 * The accounts feature's collections and their indexes (every feature of shared/ has one such
 * file, of the same shape: `<feature>Collections(db)` and `ensure<Feature>Indexes(db)`;
 * shared/indexes.ts gathers the indexes): accounts, their access keys (docs/keys.md), team
 * members and invitations (docs/teams.md), TOTP factors and logins waiting for their second step.
 */
import type { Db, ObjectId } from 'mongodb';
import { collectionsOf } from '../collections';
import type { Actor } from '../audit/types';
import type { MemberRole } from './principal';
import type { AccountDoc } from './types';

export const ACCOUNTS_COLLECTION = 'accounts';
export const ACCESS_KEYS_COLLECTION = 'access_keys';
export const ACCESS_KEY_USES_COLLECTION = 'access_key_uses';
export const INVITATIONS_COLLECTION = 'invitations';
export const MEMBERS_COLLECTION = 'members';
export const TOTP_FACTORS_COLLECTION = 'totp_factors';
export const PENDING_LOGINS_COLLECTION = 'web_pending_logins';

export type AccessKeyKind = 'device-key' | 'ci-token';

export interface AccessKeyDoc {
  _id: ObjectId;
  accountId: string;
  kind: AccessKeyKind;
  name: string;
  apps: string[];
  lookup: string;
  sealed: string;
  createdAt: Date;
  /** Who made it (the audit log's actor); absent on keys made before it was stored (issue 31). */
  createdBy?: Actor;
  /**
   * Last use as written before it moved to `access_key_uses` (never written now: see
   * AccessKeyUseDoc); null on keys made since.
   */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/**
 * When a key was last used, apart from the key's document: on the default store two concurrent
 * updates of one document can lose one another (shared/storage/claims.ts), so the frequent last-use write must never share a
 * document with the revocation it could undo. `_id` is the key's id.
 */
export interface AccessKeyUseDoc {
  _id: ObjectId;
  accountId: string;
  lastUsedAt: Date;
}

export interface InvitationDoc {
  _id: ObjectId;
  accountId: string;
  tokenHash: string;
  email: string;
  role: MemberRole;
  /** The inviter's name as the audit log shows it. */
  invitedBy: string;
  /**
   * The inviter: a member's id, or null for the account's founding owner; absent on invitations
   * made before it was stored (issue 31: then `invitedBy` names them).
   */
  inviterMemberId?: string | null;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

export interface MemberDoc {
  _id: ObjectId;
  accountId: string;
  /** Lower-cased; unique among members (index) and apart from accounts' emails (checked). */
  email: string;
  passwordHash: string;
  role: MemberRole;
  createdAt: Date;
  updatedAt: Date;
}

export interface TotpFactorDoc {
  /** `owner:<accountId>` or `member:<memberId>`. */
  _id: string;
  accountId: string;
  seedSealed: string;
  enabled: boolean;
  lastStep: number | null;
  /** SHA-256 of each recovery code not used yet (recovery-codes.ts); set when turned on. */
  recoveryHashes?: string[];
  createdAt: Date;
}

export interface PendingLoginDoc {
  _id: string;
  accountId: string;
  user: { readonly memberId: string | null; readonly email: string; readonly role: MemberRole };
  expiresAt: Date;
}

export function accountsCollections(db: Db) {
  return collectionsOf<{
    accounts: AccountDoc;
    accessKeys: AccessKeyDoc;
    accessKeyUses: AccessKeyUseDoc;
    invitations: InvitationDoc;
    members: MemberDoc;
    totpFactors: TotpFactorDoc;
    pendingLogins: PendingLoginDoc;
  }>(db, {
    accounts: ACCOUNTS_COLLECTION,
    accessKeys: ACCESS_KEYS_COLLECTION,
    accessKeyUses: ACCESS_KEY_USES_COLLECTION,
    invitations: INVITATIONS_COLLECTION,
    members: MEMBERS_COLLECTION,
    totpFactors: TOTP_FACTORS_COLLECTION,
    pendingLogins: PENDING_LOGINS_COLLECTION,
  });
}

export async function ensureAccountsIndexes(db: Db): Promise<void> {
  const { accounts, accessKeys, accessKeyUses, members, invitations } = accountsCollections(db);
  await accounts.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
  await accounts.createIndex({ apiKeyLookup: 1 }, { unique: true, name: 'api_key_lookup_unique' });
  await accessKeys.createIndex({ lookup: 1 }, { unique: true, name: 'access_key_lookup_unique' });
  await accessKeys.createIndex({ accountId: 1, createdAt: 1 }, { name: 'access_keys_of_account' });
  await accessKeyUses.createIndex({ accountId: 1 }, { name: 'access_key_uses_of_account' });
  await members.createIndex({ email: 1 }, { unique: true, name: 'member_email_unique' });
  await members.createIndex({ accountId: 1, createdAt: 1 }, { name: 'members_of_account' });
  await invitations.createIndex({ tokenHash: 1 }, { unique: true, name: 'invitation_token' });
  await invitations.createIndex({ accountId: 1, createdAt: 1 }, { name: 'invitations_of' });
}
