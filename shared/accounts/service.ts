/**
 * Accounts: sign-up, API-key authentication, plan changes. Used by the JSON API, the web sign-up
 * and the operator CLI alike, so every path applies the same rules.
 */
import { MongoServerError, ObjectId, type Db } from 'mongodb';
import type { AuditContext } from '../audit/types';
import type { KeyRing } from '../crypto/keys';
import { AppError } from '../errors';
import { apiKeyLookup, generateApiKey, sealApiKey, unsealApiKey } from './api-keys';
import { createAccessKeys, type AccessKeys } from './access-keys';
import { hashPassword, needsRehash, verifyPassword } from './passwords';
import { keyAuthMethods, type Authenticated } from './key-auth';
import { underAccountLock } from './doc-locks';
import { FREE_PLAN, toAccount, type Account, type AccountDoc, type Plan, type Role } from './types';
import { accountsCollections } from './collections';

export const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
export const MIN_PASSWORD_LENGTH = 8;
const MAX_PASSWORD_LENGTH = 1024;
export const MAX_PLAN_INSTALLATIONS = 1_000_000;

export interface SignUp {
  email: unknown;
  password: unknown;
  plan?: Plan;
}

export type { Authenticated };

export interface AccountsService {
  create(input: SignUp): Promise<{ account: Account; apiKey: string }>;
  /** The account of its own API key (device keys and CI tokens: null). */
  authenticateApiKey(apiKey: string): Promise<Account | null>;
  /** Any kind of key or token (account key, device key, CI token) not revoked; else null. */
  authenticateKey(presented: string): Promise<Authenticated | null>;
  /**
   * The owner's switch: the account key is accepted by the device routes only (docs/keys.md).
   * Audited as done by `ctx`.
   */
  setApiKeyDeviceOnly(accountId: string, deviceOnly: boolean, ctx: AuditContext): Promise<void>;
  apiKeyDeviceOnly(accountId: string): Promise<boolean>;
  /** The account's device keys and CI tokens. */
  readonly accessKeys: AccessKeys;
  revealApiKey(accountId: string): Promise<string>;
  findByEmail(email: string): Promise<Account | null>;
  findById(accountId: string): Promise<Account | null>;
  /** Replaces the account's API key (the old one stops working at once); returns the new one. */
  regenerateApiKey(accountId: string): Promise<string>;
  /**
   * The account whose email and password match, else null (a password is hashed either way). A
   * match whose stored hash has older scrypt parameters is rehashed with the current ones.
   */
  verifyLogin(email: string, password: string): Promise<Account | null>;
  /**
   * Sets `next` (checked like a sign-up's password: 400 VALIDATION_FAILED) as the password when
   * `current` is the account's password; false (nothing changed) when it is not.
   */
  changePassword(accountId: string, current: string, next: string): Promise<boolean>;
  setPlan(email: string, plan: Plan): Promise<Account>;
  /** Grants (or with `granted: false` revokes) a role, e.g. `operator` (queue board, metrics). */
  setRole(email: string, role: Role, granted: boolean): Promise<Account>;
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function validatePlan(installations: number): Plan {
  if (
    !Number.isInteger(installations) ||
    installations < 0 ||
    installations > MAX_PLAN_INSTALLATIONS
  ) {
    throw new AppError('VALIDATION_FAILED', {
      message: `plan installations must be a whole number from 0 to ${MAX_PLAN_INSTALLATIONS}`,
    });
  }
  return { installations };
}

/** What is wrong with a new password (sign-up or change): nothing, or one problem. */
export function passwordProblems(password: string): string[] {
  return password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH
    ? [`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`]
    : [];
}

/** Checks a sign-up's email and password (400 VALIDATION_FAILED) without touching the database. */
export function validateSignUp(input: SignUp): { email: string; password: string } {
  const problems: string[] = [];
  const email = typeof input.email === 'string' ? normaliseEmail(input.email) : '';
  if (!EMAIL_PATTERN.test(email)) problems.push('email must be an email address');
  const password = typeof input.password === 'string' ? input.password : '';
  problems.push(...passwordProblems(password));
  refuseProblems(problems);
  return { email, password };
}

/** 400 VALIDATION_FAILED naming every problem, if there is one. */
function refuseProblems(problems: string[]): void {
  if (problems.length > 0) {
    throw new AppError('VALIDATION_FAILED', {
      message: problems.join('; '),
      details: { problems },
    });
  }
}

/** Login and password change: hashes checked in constant time, rehashed when parameters rose. */
function passwordMethods(db: Db): Pick<AccountsService, 'verifyLogin' | 'changePassword'> {
  const { accounts } = accountsCollections(db);
  let dummyHash: string | undefined;

  /** Stores a new hash of `password` unless the stored hash changed meanwhile (one update). */
  async function storeHash(doc: AccountDoc, password: string): Promise<boolean> {
    const passwordHash = await hashPassword(password);
    const result = await underAccountLock(db, doc._id, () =>
      accounts.updateOne(
        { _id: doc._id, passwordHash: doc.passwordHash },
        { $set: { passwordHash, updatedAt: new Date() } },
      ),
    );
    return result.modifiedCount === 1;
  }

  return {
    async verifyLogin(email, password) {
      const doc = await accounts.findOne({ email: normaliseEmail(email) });
      dummyHash ??= await hashPassword('not a password of anyone');
      const ok = await verifyPassword(password, doc?.passwordHash ?? dummyHash);
      if (!doc || !ok) return null;
      if (needsRehash(doc.passwordHash)) await storeHash(doc, password);
      return toAccount(doc);
    },

    async changePassword(accountId, current, next) {
      refuseProblems(passwordProblems(next));
      const doc = await accounts.findOne({ _id: new ObjectId(accountId) });
      if (!doc) throw new AppError('NOT_FOUND', { message: 'account not found' });
      if (!(await verifyPassword(current, doc.passwordHash))) return false;
      // A concurrent change between the check and the update wins; this one is then refused.
      return storeHash(doc, next);
    },
  };
}

/** Sign-up and the API key: created, checked, revealed and replaced. */
function apiKeyMethods(
  db: Db,
  keys: KeyRing,
): Pick<AccountsService, 'create' | 'revealApiKey' | 'regenerateApiKey'> {
  const { accounts, members } = accountsCollections(db);
  return {
    async create(input) {
      const { email, password } = validateSignUp(input);
      const plan = input.plan ?? FREE_PLAN;
      const _id = new ObjectId();
      const apiKey = generateApiKey();
      const now = new Date();
      const doc: AccountDoc = {
        _id,
        email,
        passwordHash: await hashPassword(password),
        apiKeyLookup: apiKeyLookup(keys, apiKey),
        apiKeySealed: sealApiKey(keys, _id.toHexString(), apiKey),
        plan: { installations: plan.installations },
        roles: ['owner'],
        createdAt: now,
        updatedAt: now,
      };
      try {
        await accounts.insertOne(doc);
      } catch (err) {
        if (err instanceof MongoServerError && err.code === 11000) {
          throw new AppError('ACCOUNT_EMAIL_TAKEN');
        }
        throw err;
      }
      // Emails are unique among every login: a team member's too. Inserted first, checked after
      // (joining does the same the other way round), so of two racing one at least sees the other.
      if (await members.findOne({ email })) {
        await accounts.deleteOne({ _id });
        throw new AppError('ACCOUNT_EMAIL_TAKEN');
      }
      return { account: toAccount(doc), apiKey };
    },

    async revealApiKey(accountId) {
      const doc = await accounts.findOne({ _id: new ObjectId(accountId) });
      if (!doc) throw new AppError('NOT_FOUND', { message: 'account not found' });
      return unsealApiKey(keys, accountId, doc.apiKeySealed);
    },

    async regenerateApiKey(accountId) {
      const apiKey = generateApiKey();
      const _id = new ObjectId(accountId);
      const result = await underAccountLock(db, _id, () =>
        accounts.updateOne(
          { _id },
          {
            $set: {
              apiKeyLookup: apiKeyLookup(keys, apiKey),
              apiKeySealed: sealApiKey(keys, accountId, apiKey),
              updatedAt: new Date(),
            },
          },
        ),
      );
      if (result.matchedCount === 0)
        throw new AppError('NOT_FOUND', { message: 'account not found' });
      return apiKey;
    },
  };
}

/** `write` of the account of `email` under its lock; null when there is no such account. */
async function byEmailLocked(
  db: Db,
  email: string,
  write: (id: ObjectId) => Promise<AccountDoc | null>,
): Promise<AccountDoc | null> {
  const found = await accountsCollections(db).accounts.findOne(
    { email: normaliseEmail(email) },
    { projection: { _id: 1 } },
  );
  return found ? underAccountLock(db, found._id, () => write(found._id)) : null;
}

/** The account of an email, or a 404 naming it. */
function foundByEmail(doc: AccountDoc | null, email: string): Account {
  if (!doc)
    throw new AppError('NOT_FOUND', {
      message: `no account with email ${normaliseEmail(email)}`,
    });
  return toAccount(doc);
}

/** An account found by email, and what the operator CLI changes by email (plan, roles). */
function operatorMethods(
  db: Db,
): Pick<AccountsService, 'findByEmail' | 'findById' | 'setPlan' | 'setRole'> {
  const { accounts } = accountsCollections(db);
  return {
    async findByEmail(email) {
      const doc = await accounts.findOne({ email: normaliseEmail(email) });
      return doc ? toAccount(doc) : null;
    },

    async findById(accountId) {
      if (!ObjectId.isValid(accountId)) return null;
      const doc = await accounts.findOne({ _id: new ObjectId(accountId) });
      return doc ? toAccount(doc) : null;
    },

    async setPlan(email, plan) {
      const valid = validatePlan(plan.installations);
      const doc = await byEmailLocked(db, email, (_id) =>
        accounts.findOneAndUpdate(
          { _id },
          { $set: { plan: valid, updatedAt: new Date() } },
          { returnDocument: 'after' },
        ),
      );
      return foundByEmail(doc, email);
    },

    async setRole(email, role, granted) {
      const doc = await byEmailLocked(db, email, (_id) =>
        accounts.findOneAndUpdate(
          { _id },
          {
            ...(granted ? { $addToSet: { roles: role } } : { $pull: { roles: role } }),
            $set: { updatedAt: new Date() },
          },
          { returnDocument: 'after' },
        ),
      );
      return foundByEmail(doc, email);
    },
  };
}

export function createAccountsService(db: Db, keys: KeyRing): AccountsService {
  const accounts = accountsCollections(db).accounts;
  const accessKeys = createAccessKeys(db, keys);
  return {
    accessKeys,
    ...passwordMethods(db),
    ...apiKeyMethods(db, keys),
    ...keyAuthMethods(db, accounts, keys, accessKeys),
    ...operatorMethods(db),
  };
}
