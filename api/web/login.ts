/** The login form, logging in (throttled) and logging out of the web administration. */
import type { RequestHandler } from 'express';
import { clientAddress } from '../auth';
import type { ApiDeps } from '../deps';
import { throttledMessage } from './account-pages';
import { sendPage, type PageHandler } from './pages';
import { anonymousCsrf, endSession, startSession } from './sessions';
import { credentialFields } from './sign-up-form';
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
    const account = await deps.accounts.verifyLogin(email, password);
    if (!account) {
      const problem = 'Wrong email or password.';
      sendPage(res, 401, credentialsPage('login', csrf, problem, email, open));
      return;
    }
    await attempt.succeeded();
    await startSession(deps, res, account);
    res.redirect(303, '/ui/apps');
  };
}

export function logOut(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    await endSession(deps, req, res);
    res.redirect(303, '/ui/login');
  };
}
