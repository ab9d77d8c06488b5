/**
 * Users' TOTP second factors (docs/teams.md), one document per user in `totp_factors`: the seed
 * sealed with the master key (`totp-seed-seal`, the user's key as AAD; `apkrelay keys reseal`
 * covers it), whether it is on, and the last step accepted (a code is never accepted twice). A
 * user is the founding owner (`owner:<accountId>`) or a member (`member:<memberId>`).
 */
import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import type { KeyRing } from '../crypto/keys';
import { underClaim } from '../storage/claims';
import { underFactorLock } from './doc-locks';
import { seal, unseal } from '../crypto/seal';
import { acceptedStep, newTotpSecret } from './totp';
import { accountsCollections, type TotpFactorDoc } from './collections';

/** The factor's key of a user. */
export function userKey(accountId: string, memberId: string | null): string {
  return memberId ? `member:${memberId}` : `owner:${accountId}`;
}

export const sealSeed = (keys: KeyRing, user: string, seed: string) =>
  seal(keys, 'totp-seed-seal', Buffer.from(seed), user);
export const unsealSeed = (keys: KeyRing, doc: Pick<TotpFactorDoc, '_id' | 'seedSealed'>) =>
  unseal(keys, 'totp-seed-seal', doc.seedSealed, doc._id).toString();

export async function totpEnabled(db: Db, user: string): Promise<boolean> {
  return (
    (await accountsCollections(db).totpFactors.countDocuments({ _id: user, enabled: true })) > 0
  );
}

/** Which of `users` have the factor on. */
export async function totpEnabledAmong(db: Db, users: readonly string[]): Promise<Set<string>> {
  const docs = await accountsCollections(db)
    .totpFactors.find({ _id: { $in: [...users] }, enabled: true }, { projection: { _id: 1 } })
    .toArray();
  return new Set(docs.map((d) => d._id));
}

/**
 * A new seed for a user whose factor is off (replacing an unconfirmed one); null when it is on.
 * It is not on until `confirmTotp` sees a current code of it.
 */
export async function startTotp(
  db: Db,
  keys: KeyRing,
  user: string,
  accountId: string,
  now: Date,
): Promise<string | null> {
  const seed = newTotpSecret();
  const doc = { accountId, seedSealed: sealSeed(keys, user, seed), enabled: false, lastStep: null };
  await accountsCollections(db).totpFactors.deleteOne({ _id: user, enabled: false });
  try {
    await accountsCollections(db).totpFactors.insertOne({ _id: user, ...doc, createdAt: now });
  } catch {
    return null; // on already (duplicate _id)
  }
  return seed;
}

/** The seed of a user's unconfirmed factor; null when none is pending. */
export async function pendingSeed(db: Db, keys: KeyRing, user: string): Promise<string | null> {
  const doc = await accountsCollections(db).totpFactors.findOne({ _id: user, enabled: false });
  return doc ? unsealSeed(keys, doc) : null;
}

/** How long a used step stays claimed: well past the steps a code is accepted for. */
const STEP_CLAIM_MS = 10 * 60_000;

/**
 * Checks `code` against the user's factor (`enabled`: on, or pending confirmation) and records
 * its step as the last one accepted: of two uses of a code, one wins, by the step's claim (a
 * conditional update alone lets both win on the default store: shared/storage/claims.ts).
 */
export async function useTotpCode(
  db: Db,
  keys: KeyRing,
  user: string,
  code: string,
  state: { readonly enabled: boolean; readonly nowMs: number },
): Promise<boolean> {
  const doc = await accountsCollections(db).totpFactors.findOne({
    _id: user,
    enabled: state.enabled,
  });
  if (!doc) return false;
  const step = acceptedStep(unsealSeed(keys, doc), code, state.nowMs, doc.lastStep);
  if (step === null) return false;
  // Keyed by the seed too: a factor set up again reuses step numbers.
  const seedId = createHash('sha256').update(doc.seedSealed).digest('base64url').slice(0, 16);
  const at = new Date(state.nowMs);
  const until = new Date(state.nowMs + STEP_CLAIM_MS);
  const key = `totp:${user}:${seedId}:${step}`;
  const recordStep = async () =>
    (
      await underFactorLock(db, user, () =>
        accountsCollections(db).totpFactors.updateOne(
          { _id: user, enabled: state.enabled, seedSealed: doc.seedSealed, lastStep: doc.lastStep },
          { $set: { lastStep: step } },
        ),
      )
    ).modifiedCount === 1;
  return underClaim(db, key, at, until, recordStep, false);
}

/**
 * Turns a pending factor on (`on`), or the factor off, when `code` is current; false (nothing
 * changed) when it is not.
 */
export async function switchTotp(
  db: Db,
  keys: KeyRing,
  user: string,
  request: {
    readonly on: boolean;
    readonly code: string;
    readonly nowMs: number;
    /** Turning on: the hashes of the new recovery codes, stored in the same update. */
    readonly recoveryHashes?: readonly string[];
  },
): Promise<boolean> {
  const { on, code, nowMs } = request;
  if (!(await useTotpCode(db, keys, user, code, { enabled: !on, nowMs }))) return false;
  const factors = accountsCollections(db).totpFactors;
  const recoveryHashes = [...(request.recoveryHashes ?? [])];
  const result = on
    ? await underFactorLock(db, user, () =>
        factors.updateOne(
          { _id: user, enabled: false },
          { $set: { enabled: true, recoveryHashes } },
        ),
      )
    : await factors.deleteOne({ _id: user, enabled: true });
  return ('modifiedCount' in result ? result.modifiedCount : result.deletedCount) === 1;
}

/** How long a used recovery code stays claimed; its hash is gone from the factor by then. */
const RECOVERY_CLAIM_MS = 24 * 3_600_000;

/**
 * Uses one recovery code of a user whose factor is on: true once (of two uses of a code, one
 * wins, by the code's claim), and its hash is removed from the factor.
 */
export async function useRecoveryCode(
  db: Db,
  user: string,
  codeHash: string,
  now: Date = new Date(),
): Promise<boolean> {
  const has = await accountsCollections(db).totpFactors.countDocuments({
    _id: user,
    enabled: true,
    recoveryHashes: codeHash,
  });
  const until = new Date(now.getTime() + RECOVERY_CLAIM_MS);
  if (has === 0) return false;
  const removeCode = async () =>
    (
      await underFactorLock(db, user, () =>
        accountsCollections(db).totpFactors.updateOne(
          { _id: user, enabled: true, recoveryHashes: codeHash },
          { $pull: { recoveryHashes: codeHash } },
        ),
      )
    ).modifiedCount === 1;
  return underClaim(db, `recovery:${user}:${codeHash}`, now, until, removeCode, false);
}

/** Turns a user's second factor off whatever its state (the operator's reset); true if it was there. */
export async function removeTotp(db: Db, user: string): Promise<boolean> {
  return (await accountsCollections(db).totpFactors.deleteOne({ _id: user })).deletedCount === 1;
}
