/**
 * Invitations by link (docs/teams.md): a random 256-bit token, shown once as /ui/join/<token> and
 * stored only as its SHA-256; valid 7 days, single use, revocable. Using one and revoking one both
 * claim it first (shared/storage/claims.ts), so of two joins, or of a join and a revocation, one
 * wins: a conditional update alone lets both win on the default store.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ObjectId, type Db } from 'mongodb';
import { releaseClaim, underClaim } from '../storage/claims';
import type { MemberRole } from './principal';
import { accountsCollections, type InvitationDoc } from './collections';

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

export type InvitationState = 'pending' | 'used' | 'expired' | 'revoked';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
/** Tokens are 43 base64url characters; anything else is no invitation. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function insertInvitation(
  db: Db,
  input: {
    accountId: string;
    email: string;
    role: MemberRole;
    invitedBy: string;
    inviterMemberId: string | null;
  },
  now: Date,
): Promise<{ invitation: InvitationDoc; token: string }> {
  const token = randomBytes(32).toString('base64url');
  const invitation: InvitationDoc = {
    _id: new ObjectId(),
    ...input,
    tokenHash: hashToken(token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    usedAt: null,
    revokedAt: null,
  };
  await accountsCollections(db).invitations.insertOne(invitation);
  return { invitation, token };
}

export function invitationState(doc: InvitationDoc, now: Date): InvitationState {
  if (doc.revokedAt) return 'revoked';
  if (doc.usedAt) return 'used';
  return doc.expiresAt.getTime() <= now.getTime() ? 'expired' : 'pending';
}

/** The invitation of a link's token, whatever its state; null for no invitation. */
export async function invitationOfToken(db: Db, token: string): Promise<InvitationDoc | null> {
  if (!TOKEN.test(token)) return null;
  return accountsCollections(db).invitations.findOne({ tokenHash: hashToken(token) });
}

/** One invitation of the account, whatever its state. */
export async function invitationOfAccount(db: Db, accountId: string, id: string) {
  if (!ObjectId.isValid(id)) return null;
  return accountsCollections(db).invitations.findOne({ _id: new ObjectId(id), accountId });
}

/** The account's invitations still to be used, oldest first. */
export async function pendingInvitations(db: Db, accountId: string, now: Date) {
  return accountsCollections(db)
    .invitations.find({ accountId, usedAt: null, revokedAt: null, expiresAt: { $gt: now } })
    .sort({ createdAt: 1 })
    .toArray();
}

/** Revokes a pending invitation of the account; null when there is none by that id. */
export async function revokePending(
  db: Db,
  accountId: string,
  id: string,
  now: Date,
): Promise<InvitationDoc | null> {
  if (!ObjectId.isValid(id)) return null;
  const _id = new ObjectId(id);
  return claimed(db, _id, now, () =>
    accountsCollections(db).invitations.findOneAndUpdate(
      { _id, accountId, usedAt: null, revokedAt: null, expiresAt: { $gt: now } },
      { $set: { revokedAt: now } },
      { returnDocument: 'after' },
    ),
  );
}

const claimKey = (id: ObjectId) => `invitation:${id.toHexString()}`;

/**
 * `change` (a use or a revocation) under the invitation's claim: null, and the claim kept by its
 * holder, when another use or revocation has it; the claim given back when `change` finds no
 * pending invitation or fails.
 */
async function claimed(
  db: Db,
  id: ObjectId,
  now: Date,
  change: () => Promise<InvitationDoc | null>,
): Promise<InvitationDoc | null> {
  // Kept as long as an invitation made now could be pending: past that, none is.
  const until = new Date(now.getTime() + INVITATION_TTL_MS);
  const changed = async () => {
    const doc = await change();
    if (!doc) await releaseClaim(db, claimKey(id));
    return doc;
  };
  return underClaim(db, claimKey(id), now, until, changed, null);
}

/** The pending invitations one member made (issue 31: revoked when the member may no longer). */
export async function pendingInvitationsBy(
  db: Db,
  accountId: string,
  inviterMemberId: string,
  now: Date,
): Promise<InvitationDoc[]> {
  return accountsCollections(db)
    .invitations.find({
      accountId,
      inviterMemberId,
      usedAt: null,
      revokedAt: null,
      expiresAt: { $gt: now },
    })
    .toArray();
}

/** Uses a pending invitation up: of two joins with one link, or a join and a revocation, one wins. */
export async function claimInvitation(db: Db, id: ObjectId, now: Date) {
  return claimed(db, id, now, () =>
    accountsCollections(db).invitations.findOneAndUpdate(
      { _id: id, usedAt: null, revokedAt: null, expiresAt: { $gt: now } },
      { $set: { usedAt: now } },
      { returnDocument: 'after' },
    ),
  );
}

/** Gives a claimed invitation back (the join failed after claiming it). */
export async function releaseInvitation(db: Db, id: ObjectId): Promise<void> {
  await accountsCollections(db).invitations.updateOne({ _id: id }, { $set: { usedAt: null } });
  await releaseClaim(db, claimKey(id));
}
