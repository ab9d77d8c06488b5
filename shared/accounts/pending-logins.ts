/**
 * Half-finished logins (docs/teams.md): the password was right and the user has a second factor,
 * so the login waits for a code. Kept in MongoDB by the SHA-256 of a random token, 5 minutes.
 * Whatever ends a user's sessions (a password change, "sign out everywhere", removal, a second
 * factor reset) ends their pending logins too (issue 31), so a login started before it cannot be
 * finished after it.
 */
import type { Db } from 'mongodb';
import { accountsCollections } from './collections';

/** Deletes every pending login of one user: the founding owner (`memberId` null) or a member. */
export async function endPendingLogins(
  db: Db,
  accountId: string,
  memberId: string | null,
): Promise<void> {
  await accountsCollections(db).pendingLogins.deleteMany({ accountId, 'user.memberId': memberId });
}
