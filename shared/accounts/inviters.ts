/**
 * Who may still stand behind an invitation (issue 31, docs/teams.md). An invitation grants what
 * its inviter could grant: owners any role, admins any but owner, developers and viewers none.
 * When an inviter is removed or demoted, their pending invitations that they could no longer make
 * are revoked (one audit entry each, naming why); and a join checks the inviter's role as stored
 * then, so a change racing the invitation cannot let it through either.
 */
import { ObjectId, type Db } from 'mongodb';
import { recordAudit } from '../audit/record';
import type { Actor, AuditContext } from '../audit/types';
import { pendingInvitationsBy, revokePending } from './invitations';
import type { MemberRole } from './principal';
import { type InvitationDoc, accountsCollections } from './collections';

/** Whether a user of role `inviter` may invite someone as `role`. */
export function mayGrant(inviter: MemberRole | null, role: MemberRole): boolean {
  return inviter === 'owner' || (inviter === 'admin' && role !== 'owner');
}

/** The inviter's member id to store: a member's session names them; the founding owner: null. */
export function inviterOf(actor: Actor): string | null {
  return actor.kind === 'member' ? actor.id : null;
}

/** A member's role now, or null when they are no member of the account any more. */
async function memberRole(db: Db, accountId: string, query: object): Promise<MemberRole | null> {
  const doc = await accountsCollections(db).members.findOne({ accountId, ...query });
  return doc?.role ?? null;
}

/**
 * The inviter's role as stored now: the founding owner is always an owner; an invitation made
 * before the inviter was stored is traced by the email it names (`invitedBy`).
 */
export async function inviterRoleNow(
  db: Db,
  invitation: InvitationDoc,
): Promise<MemberRole | null> {
  const { accountId, inviterMemberId } = invitation;
  if (inviterMemberId === null) return 'owner';
  if (typeof inviterMemberId === 'string') {
    if (!ObjectId.isValid(inviterMemberId)) return null;
    return memberRole(db, accountId, { _id: new ObjectId(inviterMemberId) });
  }
  const account = ObjectId.isValid(accountId)
    ? await accountsCollections(db).accounts.findOne({ _id: new ObjectId(accountId) })
    : null;
  if (account?.email === invitation.invitedBy) return 'owner';
  return memberRole(db, accountId, { email: invitation.invitedBy });
}

/** Revokes one pending invitation for `reason`, with its audit entry; false when it was not. */
export async function revokeFor(
  db: Db,
  ctx: AuditContext,
  invitation: InvitationDoc,
  reason: string,
  now: Date,
): Promise<boolean> {
  const id = invitation._id.toHexString();
  const revoked = await revokePending(db, invitation.accountId, id, now);
  if (!revoked) return false;
  await recordAudit(
    db,
    ctx,
    {
      accountId: invitation.accountId,
      action: 'member.invitation-revoked',
      resource: { kind: 'invitation', id },
      details: { email: revoked.email, role: revoked.role, reason },
    },
    now,
  );
  return true;
}

/**
 * Revokes the pending invitations of a member who is now `role` (null: removed) that such a
 * member could not make; each is one audit entry done by `ctx`.
 */
export async function revokeUngrantable(
  db: Db,
  ctx: AuditContext,
  member: { readonly accountId: string; readonly id: string; readonly role: MemberRole | null },
  now: Date,
): Promise<void> {
  const reason = member.role === null ? 'inviter removed' : 'inviter demoted';
  const pending = await pendingInvitationsBy(db, member.accountId, member.id, now);
  for (const invitation of pending) {
    if (!mayGrant(member.role, invitation.role)) await revokeFor(db, ctx, invitation, reason, now);
  }
}
