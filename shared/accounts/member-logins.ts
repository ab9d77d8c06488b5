/**
 * Team members' passwords (docs/teams.md): the web login and the password change, scrypt as for
 * the founding owner (passwords.ts). The login hashes once whoever the email belongs to.
 */
import { ObjectId, type Db } from 'mongodb';
import { AppError } from '../errors';
import { toMember, type Member } from './member-types';
import { hashPassword, needsRehash, verifyPassword } from './passwords';
import { normaliseEmail, passwordProblems } from './service';
import { type MemberDoc, accountsCollections } from './collections';
import { underMemberLock } from './doc-locks';

/** The member of an email (any account), or null. */
export async function memberByEmail(db: Db, email: string): Promise<Member | null> {
  const doc = await accountsCollections(db).members.findOne({ email: normaliseEmail(email) });
  return doc ? toMember(doc) : null;
}

/** Stores a hash of `password` unless the stored hash changed meanwhile (one update). */
async function storeHash(db: Db, doc: MemberDoc, password: string): Promise<boolean> {
  const passwordHash = await hashPassword(password);
  const result = await underMemberLock(db, doc._id, () =>
    accountsCollections(db).members.updateOne(
      { _id: doc._id, passwordHash: doc.passwordHash },
      { $set: { passwordHash, updatedAt: new Date() } },
    ),
  );
  return result.modifiedCount === 1;
}

/**
 * The member when `password` is theirs, else null. A match whose stored hash has older scrypt
 * parameters is rehashed with the current ones, as the founding owner's is.
 */
export async function verifyMemberPassword(
  db: Db,
  member: Member,
  password: string,
): Promise<Member | null> {
  const doc = await accountsCollections(db).members.findOne({ _id: new ObjectId(member.id) });
  if (!doc || !(await verifyPassword(password, doc.passwordHash))) return null;
  if (needsRehash(doc.passwordHash)) await storeHash(db, doc, password);
  return toMember(doc);
}

/**
 * Sets `next` (checked like a sign-up's password: 400 VALIDATION_FAILED) when `current` is the
 * member's password; false (nothing changed) when it is not.
 */
export async function changeMemberPassword(
  db: Db,
  memberId: string,
  current: string,
  next: string,
): Promise<boolean> {
  const problems = passwordProblems(next);
  if (problems.length > 0) throw new AppError('VALIDATION_FAILED', { message: problems[0]! });
  const doc = await accountsCollections(db).members.findOne({ _id: new ObjectId(memberId) });
  if (!doc) throw new AppError('NOT_FOUND', { message: 'member not found' });
  if (!(await verifyPassword(current, doc.passwordHash))) return false;
  // A concurrent change between the check and the update wins; this one is then refused.
  return storeHash(db, doc, next);
}
