/**
 * Handlers of the account page (mounted by api/web/routes.ts): the password change checks the
 * current password under the login throttle (a wrong one counts as a failed login), then renews
 * the caller's session and ends every other one of the same user; "sign out everywhere" ends every
 * session of the user (the founding owner's, or one member's: docs/teams.md). Each is one audit
 * entry.
 */
import type { Request, Response } from 'express';
import { changeMemberPassword } from '../../shared/accounts/member-logins';
import { passwordProblems } from '../../shared/accounts/service';
import { audit, selfChange } from '../audit-context';
import { clientAddress } from '../auth';
import type { ApiDeps } from '../deps';
import { sendAccountPage } from './key-forms';
import { accountPage } from './web-views';
import { sendPage, viewerOfSession } from '../apps/web-pages';
import { currentSession, endAllSessions, renewOnlySession } from '../web/sessions';

/** Sets Retry-After for a throttled login attempt and says how long to wait. */
export function throttledMessage(res: Response, waitMs: number): string {
  res.setHeader('Retry-After', String(Math.ceil(waitMs / 1000)));
  const minutes = Math.ceil(waitMs / 60_000);
  return `Too many failed attempts; wait ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

const field = (req: Request, name: string): string => {
  const value = ((req.body ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
};

const NOTICES: Readonly<Record<string, string>> = {
  password: 'Password changed; every other session of yours was signed out.',
  'totp-on': 'Two-factor authentication is on.',
  'totp-off': 'Two-factor authentication is off.',
};

export function accountPages(deps: ApiDeps) {
  return {
    page: async (req: Request, res: Response): Promise<void> => {
      const changed = req.query.changed;
      const notice = typeof changed === 'string' ? (NOTICES[changed] ?? null) : null;
      await sendAccountPage(deps, res, 200, { notice });
    },

    changePassword: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOfSession(deps, res);
      const refuse = (status: number, problem: string) =>
        sendPage(res, status, accountPage(viewer, { problem }));
      const [current, next] = [field(req, 'current'), field(req, 'password')];
      if (next !== field(req, 'confirm')) return refuse(400, 'The new passwords differ.');
      const problems = passwordProblems(next);
      if (problems.length > 0) return refuse(400, problems.join('; '));
      const session = currentSession(res);
      const { email, memberId } = session.user;
      const attempt = await deps.loginThrottle.attempt(
        email,
        clientAddress(req),
        deps.now().getTime(),
      );
      if (attempt.waitMs > 0) return refuse(429, throttledMessage(res, attempt.waitMs));
      const changed = memberId
        ? await changeMemberPassword(deps.db, memberId, current, next)
        : await deps.accounts.changePassword(session.account.id, current, next);
      if (!changed) return refuse(401, 'The current password is wrong.');
      await attempt.succeeded();
      await audit(deps, req, res, selfChange(res, 'member.password-changed'));
      await renewOnlySession(deps, res, session);
      res.redirect(303, '/ui/account?changed=password');
    },

    signOutEverywhere: async (req: Request, res: Response): Promise<void> => {
      await audit(deps, req, res, selfChange(res, 'member.signed-out-everywhere'));
      await endAllSessions(deps, res, currentSession(res));
      res.redirect(303, '/ui/login');
    },
  };
}
