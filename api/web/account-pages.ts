/**
 * Handlers of the account page (mounted by api/routes/web.ts): the password change checks the
 * current password under the login throttle (a wrong one counts as a failed login), then renews
 * the caller's session and ends every other one; "sign out everywhere" ends them all.
 */
import type { Request, Response } from 'express';
import { passwordProblems } from '../../shared/accounts/service';
import { clientAddress } from '../auth';
import type { ApiDeps } from '../deps';
import { sendAccountPage } from './account-keys';
import { accountPage } from './account-views';
import { sendPage, viewerOfSession } from './pages';
import { currentSession, endAllSessions, renewOnlySession } from './sessions';

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

export function accountPages(deps: ApiDeps) {
  return {
    page: async (req: Request, res: Response): Promise<void> => {
      const notice =
        req.query.changed === 'password'
          ? 'Password changed; every other session was signed out.'
          : null;
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
      const { email, id } = viewer.account;
      const attempt = await deps.loginThrottle.attempt(
        email,
        clientAddress(req),
        deps.now().getTime(),
      );
      if (attempt.waitMs > 0) return refuse(429, throttledMessage(res, attempt.waitMs));
      if (!(await deps.accounts.changePassword(id, current, next))) {
        return refuse(401, 'The current password is wrong.');
      }
      await attempt.succeeded();
      await renewOnlySession(deps, res, viewer.account);
      res.redirect(303, '/ui/account?changed=password');
    },

    signOutEverywhere: async (_req: Request, res: Response): Promise<void> => {
      await endAllSessions(deps, res, currentSession(res).account.id);
      res.redirect(303, '/ui/login');
    },
  };
}
