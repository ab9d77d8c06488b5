/**
 * Team members (docs/teams.md): further users of an account, each with an email (unique among
 * every login: account owners and members), a scrypt password and a role. The account's own email
 * and password (AccountDoc) stay its founding owner's login.
 */
import type { Collection, Db, ObjectId } from 'mongodb';
import type { MemberRole } from './principal';

export const MEMBERS_COLLECTION = 'members';

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

export interface Member {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly role: MemberRole;
  readonly createdAt: Date;
}

export function membersCollection(db: Db): Collection<MemberDoc> {
  return db.collection<MemberDoc>(MEMBERS_COLLECTION);
}

export async function ensureMemberIndexes(db: Db): Promise<void> {
  const members = membersCollection(db);
  await members.createIndex({ email: 1 }, { unique: true, name: 'member_email_unique' });
  await members.createIndex({ accountId: 1, createdAt: 1 }, { name: 'members_of_account' });
}

export function toMember(doc: MemberDoc): Member {
  return {
    id: doc._id.toHexString(),
    accountId: doc.accountId,
    email: doc.email,
    role: doc.role,
    createdAt: doc.createdAt,
  };
}
