/**
 * Checking a password on the web: the login's (whose email and password are these) and the
 * re-check a signed-in user passes before changing their second factor (issue 31). Both count
 * against the login throttle, so the re-check is no way around it.
 */
import type { Request, Response } from 'express';
import { memberByEmail, verifyMemberPassword } from '../../shared/accounts/member-logins';
import type { Account } from '../../shared/accounts/types';
import { clientAddress } from '../auth';
import type { ApiDeps } from '../deps';
import { throttledMessage } from '../accounts/web-pages';
import { currentSession, userOf, type WebUser } from './sessions';

/** The account and user whose email and password these are (one password hashing either way). */
export async function verifyUser(
  deps: ApiDeps,
  email: string,
  password: string,
): Promise<{ account: Account; user: WebUser } | null> {
  const member = await memberByEmail(deps.db, email);
  if (!member) {
    const account = await deps.accounts.verifyLogin(email, password);
    return account ? { account, user: userOf(account) } : null;
  }
  const verified = await verifyMemberPassword(deps.db, member, password);
  const account = verified ? await deps.accounts.findById(verified.accountId) : null;
  return account && verified ? { account, user: userOf(account, verified) } : null;
}

/**
 * Checks the form's `password` field against the signed-in user's password, under the login
 * throttle. Null when it is theirs; else the status and problem to answer (401, or 429 with
 * Retry-After set).
 */
export async function recheckPassword(
  deps: ApiDeps,
  req: Request,
  res: Response,
): Promise<{ status: number; problem: string } | null> {
  const { account, user } = currentSession(res);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const password = typeof body.password === 'string' ? body.password : '';
  const nowMs = deps.now().getTime();
  const attempt = await deps.loginThrottle.attempt(user.email, clientAddress(req), nowMs);
  if (attempt.waitMs > 0) return { status: 429, problem: throttledMessage(res, attempt.waitMs) };
  const found = password ? await verifyUser(deps, user.email, password) : null;
  if (found?.account.id !== account.id || found.user.memberId !== user.memberId) {
    return { status: 401, problem: 'The password is wrong.' };
  }
  await attempt.succeeded();
  return null;
}
