/**
 * The login form, logging in (throttled) and logging out of the web administration. The login
 * takes the founding owner's email and password or a team member's (docs/teams.md); any failure
 * is the same "Wrong email or password.".
 */
import type { RequestHandler } from 'express';
import { totpEnabled, userKey } from '../../shared/accounts/totp-factors';
import { clientAddress } from '../auth';
import type { ApiDeps } from '../deps';
import { throttledMessage } from '../accounts/web-pages';
import { sendPage, type PageHandler } from '../apps/web-pages';
import { verifyUser } from './password-check';
import { anonymousCsrf, endSession, startSession } from './sessions';
import { credentialFields } from '../accounts/sign-up-form';
import { askTotpCode } from '../accounts/totp-pages';
import { credentialsPage } from './views';

export function loginForm(deps: ApiDeps): RequestHandler {
  return (req, res) =>
    sendPage(
      res,
      200,
      credentialsPage('login', anonymousCsrf(req, res), null, '', deps.signups.open),
    );
}

export function logIn(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const { email, password } = credentialFields(req);
    const csrf = anonymousCsrf(req, res);
    const open = deps.signups.open;
    // Counted before the password is checked, in one atomic step, per address and per email from
    // that address (see login-throttle.ts): no race past the limit, no lockout of the owner.
    const attempt = await deps.loginThrottle.attempt(
      email,
      clientAddress(req),
      deps.now().getTime(),
    );
    if (attempt.waitMs > 0) {
      const problem = throttledMessage(res, attempt.waitMs);
      sendPage(res, 429, credentialsPage('login', csrf, problem, email, open));
      return;
    }
    const found = await verifyUser(deps, email, password);
    if (!found) {
      const problem = 'Wrong email or password.';
      sendPage(res, 401, credentialsPage('login', csrf, problem, email, open));
      return;
    }
    const user = userKey(found.account.id, found.user.memberId);
    // The second factor: the attempt stays counted until the code is right too.
    if (await totpEnabled(deps.db, user)) return askTotpCode(deps, req, res, found);
    await attempt.succeeded();
    await startSession(deps, res, found.account, found.user);
    res.redirect(303, '/ui/apps');
  };
}

export function logOut(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    await endSession(deps, req, res);
    res.redirect(303, '/ui/login');
  };
}
