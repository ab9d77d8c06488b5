/**
 * The team's use-cases (docs/teams.md), shared by the web pages: invite, revoke an invitation,
 * join, change a member's role, remove a member. Each change writes one audit entry. Rules: only
 * owners add, change or remove owners (admins get 403); the founding owner (the account's own
 * login) is no member and cannot be changed or removed, so an account always has an owner.
 */
import { MongoServerError, ObjectId, type Db } from 'mongodb';
import { recordAudit, type AuditChange } from '../audit/record';
import type { AuditContext } from '../audit/types';
import { AppError } from '../errors';
import {
  claimInvitation,
  insertInvitation,
  invitationOfAccount,
  invitationOfToken,
  invitationState,
  releaseInvitation,
  revokePending,
} from './invitations';
import { toMember, type Member } from './member-types';
import { inviterOf, inviterRoleNow, mayGrant, revokeFor, revokeUngrantable } from './inviters';
import { endPendingLogins } from './pending-logins';
import { MEMBER_ROLES, type MemberRole } from './principal';
import { hashPassword } from './passwords';
import { EMAIL_PATTERN, normaliseEmail, passwordProblems } from './service';
import { type InvitationDoc, type MemberDoc, accountsCollections } from './collections';
import { underMemberLock } from './doc-locks';

export const WEB_SESSIONS_COLLECTION = 'web_sessions';

/** Who revokes a link whose inviter can no longer grant its role, at the join (issue 31). */
const INVITER_CHECK_ACTOR = Object.freeze({
  kind: 'system',
  id: 'inviter-check',
  name: 'inviter role check',
});

/** Who is changing the team: their role and the audit context. */
export interface Acting {
  readonly role: MemberRole;
  readonly ctx: AuditContext;
}

function validRole(value: unknown): MemberRole {
  if (!(MEMBER_ROLES as readonly unknown[]).includes(value)) {
    throw new AppError('VALIDATION_FAILED', { message: `role: one of ${MEMBER_ROLES.join(', ')}` });
  }
  return value as MemberRole;
}

/** Only owners add, change or remove owners. */
function refuseOwnerChange(acting: Acting, ...roles: MemberRole[]): void {
  if (acting.role !== 'owner' && roles.includes('owner')) {
    throw new AppError('FORBIDDEN', { message: 'Only owners add, change or remove owners.' });
  }
}

/** Whether an email is already a login: an account's or a member's. */
async function loginExists(db: Db, email: string): Promise<boolean> {
  const [account, member] = await Promise.all([
    accountsCollections(db).accounts.findOne({ email }, { projection: { _id: 1 } }),
    accountsCollections(db).members.findOne({ email }, { projection: { _id: 1 } }),
  ]);
  return account !== null || member !== null;
}

/** One audit entry of a team change, done by `ctx` at `now`. */
function teamAudit(db: Db, ctx: AuditContext, now: Date, change: AuditChange): Promise<unknown> {
  return recordAudit(db, ctx, change, now);
}

const TAKEN = () =>
  new AppError('ACCOUNT_EMAIL_TAKEN', { message: 'This email already signs in to apkrelay.' });

export async function invite(
  db: Db,
  acting: Acting,
  accountId: string,
  input: { email: unknown; role: unknown },
  now: Date,
): Promise<{ invitation: InvitationDoc; token: string }> {
  const email = typeof input.email === 'string' ? normaliseEmail(input.email) : '';
  if (!EMAIL_PATTERN.test(email)) {
    throw new AppError('VALIDATION_FAILED', { message: 'email must be an email address' });
  }
  const role = validRole(input.role);
  refuseOwnerChange(acting, role);
  if (await loginExists(db, email)) throw TAKEN();
  const invitedBy = acting.ctx.actor.name;
  const inviterMemberId = inviterOf(acting.ctx.actor);
  const made = await insertInvitation(
    db,
    { accountId, email, role, invitedBy, inviterMemberId },
    now,
  );
  await teamAudit(db, acting.ctx, now, {
    accountId: accountId,
    action: 'member.invited',
    resource: { kind: 'invitation', id: made.invitation._id.toHexString() },
    details: { email, role },
  });
  return made;
}

export async function revokeInvitation(
  db: Db,
  acting: Acting,
  accountId: string,
  id: string,
  now: Date,
): Promise<void> {
  const pending = await invitationOfAccount(db, accountId, id);
  if (pending) refuseOwnerChange(acting, pending.role);
  const revoked = pending ? await revokePending(db, accountId, id, now) : null;
  if (!revoked) throw new AppError('NOT_FOUND', { message: 'No such pending invitation.' });
  await teamAudit(db, acting.ctx, now, {
    accountId: accountId,
    action: 'member.invitation-revoked',
    resource: { kind: 'invitation', id },
    details: { email: revoked.email, role: revoked.role },
  });
}

/** Inserts the member, then checks no account took the email meanwhile (sign-up does the reverse). */
async function insertMember(db: Db, doc: MemberDoc): Promise<void> {
  try {
    await accountsCollections(db).members.insertOne(doc);
  } catch (err) {
    if (err instanceof MongoServerError && err.code === 11000) throw TAKEN();
    throw err;
  }
  if (
    await accountsCollections(db).accounts.findOne({ email: doc.email }, { projection: { _id: 1 } })
  ) {
    await accountsCollections(db).members.deleteOne({ _id: doc._id });
    throw TAKEN();
  }
}

/**
 * Joins with a link's token: checks the password, uses the invitation up, makes the member.
 * Throws NOT_FOUND (no such link), INVITATION_UNUSABLE (410, `details.state`: used, expired or
 * revoked), VALIDATION_FAILED (the password), ACCOUNT_EMAIL_TAKEN (the email signs in already).
 */
export async function join(
  db: Db,
  input: { token: string; password: string; address: string | null },
  now: Date,
): Promise<Member> {
  const invitation = await invitationOfToken(db, input.token);
  if (!invitation) throw new AppError('NOT_FOUND', { message: 'No such invitation.' });
  const state = invitationState(invitation, now);
  if (state !== 'pending') throw new AppError('INVITATION_UNUSABLE', { details: { state } });
  // The inviter must still be able to grant the role (issue 31): else the link is revoked now.
  if (!mayGrant(await inviterRoleNow(db, invitation), invitation.role)) {
    const reason = 'inviter may no longer grant this role';
    await revokeFor(
      db,
      { actor: INVITER_CHECK_ACTOR, address: input.address },
      invitation,
      reason,
      now,
    );
    throw new AppError('INVITATION_UNUSABLE', { details: { state: 'revoked' } });
  }
  const problems = passwordProblems(input.password);
  if (problems.length > 0) throw new AppError('VALIDATION_FAILED', { message: problems[0]! });
  const passwordHash = await hashPassword(input.password);
  const claimed = await claimInvitation(db, invitation._id, now);
  if (!claimed) throw new AppError('INVITATION_UNUSABLE', { details: { state: 'used' } });
  const doc: MemberDoc = {
    _id: new ObjectId(),
    accountId: claimed.accountId,
    email: claimed.email,
    passwordHash,
    role: claimed.role,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await insertMember(db, doc);
  } catch (err) {
    await releaseInvitation(db, claimed._id);
    throw err;
  }
  const member = toMember(doc);
  await teamAudit(db, { actor: memberActor(member), address: input.address }, now, {
    accountId: member.accountId,
    action: 'member.joined',
    resource: { kind: 'member', id: member.id },
    details: { email: member.email, role: member.role, invitation: claimed._id.toHexString() },
  });
  return member;
}

/** The audit log's actor of a member's web session. */
export function memberActor(member: { readonly id: string; readonly email: string }) {
  return { kind: 'member', id: member.id, name: member.email };
}

async function memberOf(db: Db, accountId: string, id: string): Promise<MemberDoc> {
  const doc = ObjectId.isValid(id)
    ? await accountsCollections(db).members.findOne({ _id: new ObjectId(id), accountId })
    : null;
  if (!doc) throw new AppError('NOT_FOUND', { message: 'No such member.' });
  return doc;
}

/** Changes a member's role (nothing recorded when it is the same); effective at the next request. */
export async function changeRole(
  db: Db,
  acting: Acting,
  accountId: string,
  id: string,
  input: { role: unknown },
  now: Date,
): Promise<void> {
  const role = validRole(input.role);
  const doc = await memberOf(db, accountId, id);
  refuseOwnerChange(acting, doc.role, role);
  if (doc.role === role) return;
  const result = await underMemberLock(db, doc._id, () =>
    accountsCollections(db).members.updateOne(
      { _id: doc._id, role: doc.role },
      { $set: { role, updatedAt: now } },
    ),
  );
  if (result.modifiedCount !== 1) throw new AppError('NOT_FOUND', { message: 'No such member.' });
  await teamAudit(db, acting.ctx, now, {
    accountId: accountId,
    action: 'member.role-changed',
    resource: { kind: 'member', id },
    details: { email: doc.email, from: doc.role, to: role },
  });
  await revokeUngrantable(db, acting.ctx, { accountId, id, role }, now);
}

/** Removes a member and ends their sessions and half-finished logins. */
export async function removeMember(
  db: Db,
  acting: Acting,
  accountId: string,
  id: string,
  now: Date,
): Promise<void> {
  const doc = await memberOf(db, accountId, id);
  refuseOwnerChange(acting, doc.role);
  const result = await accountsCollections(db).members.deleteOne({ _id: doc._id });
  if (result.deletedCount !== 1) throw new AppError('NOT_FOUND', { message: 'No such member.' });
  await db.collection(WEB_SESSIONS_COLLECTION).deleteMany({ accountId, memberId: id });
  await endPendingLogins(db, accountId, id);
  await teamAudit(db, acting.ctx, now, {
    accountId: accountId,
    action: 'member.removed',
    resource: { kind: 'member', id },
    details: { email: doc.email, role: doc.role },
  });
  await revokeUngrantable(db, acting.ctx, { accountId, id, role: null }, now);
}
