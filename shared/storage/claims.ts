/**
 * One-time claims: of the writers racing for one key, exactly one gets it.
 *
 * On the default store a conditional update is not exclusive: it reads the matching documents,
 * applies the update and writes each document back whole, so updates racing on one document all
 * see it match, all report it modified, and the last write wins (measured in docs/storage.md,
 * "Updates are not isolated"). An insert of one `_id` is exclusive (a unique constraint), as is a
 * conditional delete. So what must happen once (a TOTP step or a recovery code used, an
 * invitation used or revoked, a rollout moved on from one revision) first claims its key here, by
 * insert, and goes on only when it got it.
 *
 * A claim is kept until its `expiresAt`, past which the thing it guards is refused anyway (a TOTP
 * step is too old, an invitation expired); housekeeping deletes expired claims, and backups leave
 * them out (shared/backup/create-backup.ts).
 */
import type { Db } from 'mongodb';
import { collectionsOf } from '../collections';

export const CLAIMS_COLLECTION = 'claims';

export interface ClaimDoc {
  /** `<kind>:<what>`, e.g. `totp:owner:<accountId>:<step>`. */
  _id: string;
  at: Date;
  expiresAt: Date;
  /** Who holds it, for a release that must not free another holder's claim (doc-lock.ts). */
  holder?: string;
}

function claims(db: Db) {
  return collectionsOf<{ claims: ClaimDoc }>(db, { claims: CLAIMS_COLLECTION }).claims;
}

const DUPLICATE_KEY = 11000;

/** True for the one caller that claimed `key`; false for every other, then or later. */
export async function claimOnce(
  db: Db,
  key: string,
  at: Date,
  expiresAt: Date,
  holder?: string,
): Promise<boolean> {
  try {
    await claims(db).insertOne({ _id: key, at, expiresAt, ...(holder ? { holder } : {}) });
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code === DUPLICATE_KEY) return false;
    throw err;
  }
}

/**
 * `work` for the one caller that claims `key`, `lost` for every other. A `work` that throws gives
 * the claim back (a store that failed mid-way must not leave a rollout unable to move, or a code
 * unusable, until the claim expires), then throws.
 */
export async function underClaim<T>(
  db: Db,
  key: string,
  at: Date,
  expiresAt: Date,
  work: () => Promise<T>,
  lost: T,
): Promise<T> {
  if (!(await claimOnce(db, key, at, expiresAt))) return lost;
  try {
    return await work();
  } catch (err) {
    await releaseClaim(db, key).catch(() => undefined);
    throw err;
  }
}

/** Gives `key` back (the claimed step failed and may be tried again); only `holder`'s, if named. */
export async function releaseClaim(db: Db, key: string, holder?: string): Promise<void> {
  await claims(db).deleteOne({ _id: key, ...(holder ? { holder } : {}) });
}

/** Frees `key` if its claim expired at `now` (one conditional delete: of racers, one frees it). */
export async function dropExpiredClaim(db: Db, key: string, now: Date): Promise<void> {
  await claims(db).deleteOne({ _id: key, expiresAt: { $lte: now } });
}

/** Deletes the claims expired at `now`; how many. */
export async function purgeExpiredClaims(db: Db, now: Date): Promise<number> {
  return (await claims(db).deleteMany({ expiresAt: { $lte: now } })).deletedCount;
}

export async function ensureClaimsIndexes(db: Db): Promise<void> {
  await claims(db).createIndex({ expiresAt: 1 }, { name: 'claims_expiry' });
}
