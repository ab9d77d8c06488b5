/**
 * Every write of an account or member document runs under that document's lock
 * (shared/storage/doc-lock.ts): on the default store two updates of one document at once can
 * undo each other, whatever their filters, and these hold security state written by different
 * paths (a regenerated API key beside a password change or the device-only switch; a member's
 * role beside a rehash of their password at login; a TOTP factor's last step beside the removal
 * of a used recovery code; an access key's revocation beside the operator's reseal of it), where a
 * lost write is a change that did not hold.
 */
import type { Db, ObjectId } from 'mongodb';
import { withDocLock } from '../storage/doc-lock';

export function underAccountLock<T>(db: Db, id: ObjectId, write: () => Promise<T>): Promise<T> {
  return withDocLock(db, `account:${id.toHexString()}`, write);
}

export function underMemberLock<T>(db: Db, id: ObjectId, write: () => Promise<T>): Promise<T> {
  return withDocLock(db, `member:${id.toHexString()}`, write);
}

/** A TOTP factor's (`owner:<accountId>` or `member:<memberId>`). */
export function underFactorLock<T>(db: Db, user: string, write: () => Promise<T>): Promise<T> {
  return withDocLock(db, `totp-factor:${user}`, write);
}

/** An access key's (`dk_`/`ct_`; its last use is kept apart: key-uses.ts). */
export function underAccessKeyLock<T>(db: Db, id: ObjectId, write: () => Promise<T>): Promise<T> {
  return withDocLock(db, `access-key:${id.toHexString()}`, write);
}
