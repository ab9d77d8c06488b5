/**
 * Team members (docs/teams.md): further users of an account, each with an email (unique among
 * every login: account owners and members), a scrypt password and a role. The account's own email
 * and password (AccountDoc) stay its founding owner's login.
 */
import type { MemberRole } from './principal';
import type { MemberDoc } from './collections';

export interface Member {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly role: MemberRole;
  readonly createdAt: Date;
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
