/**
 * The web sign-up form (`/ui/signup`), on the same rules as the JSON API (sign-up.ts): closed
 * (SIGNUP=closed) it answers 403 with a page that says who creates accounts; past the per-address
 * limit it shows the form again with status 429, Retry-After and a message saying how long to wait.
 */
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../../shared/errors';
import type { ApiDeps } from '../deps';
import { publicSignUp } from './sign-up';
import { html } from '../web/html';
import { sendPage } from '../apps/web-pages';
import { anonymousCsrf, startSession } from '../web/sessions';
import { credentialsPage, layout } from '../web/views';

/** The email and password fields of the sign-up and login forms. */
export function credentialFields(req: Request): { email: string; password: string } {
  const body = (req.body ?? {}) as Record<string, unknown>;
  return {
    email: typeof body.email === 'string' ? body.email : '',
    password: typeof body.password === 'string' ? body.password : '',
  };
}

export function signUpClosedPage(): string {
  return layout(
    'Sign-up closed',
    null,
    html`<h1>Sign-up is closed</h1>
      <p>
        Accounts on this server are created by its operator, with
        <code>apkrelay account create</code>. Ask the operator for an account, then
        <a href="/ui/login">log in</a>.
      </p>`,
    false,
  );
}

function limitedMessage(err: AppError): string {
  const seconds = Number(err.details?.retryAfterSeconds ?? 3600);
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `Too many sign-ups from your network; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

export function signUpForm(deps: ApiDeps): RequestHandler {
  return (req, res) => {
    if (!deps.signups.open) return sendPage(res, 403, signUpClosedPage());
    sendPage(res, 200, credentialsPage('signup', anonymousCsrf(req, res), null));
  };
}

export function signUp(deps: ApiDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const { email, password } = credentialFields(req);
    try {
      const { account } = await publicSignUp(deps, req, res, { email, password });
      await startSession(deps, res, account);
      res.redirect(303, '/ui/apps');
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      if (err.code === 'SIGNUP_CLOSED') return sendPage(res, err.status, signUpClosedPage());
      const problem = err.code === 'SIGNUP_RATE_LIMITED' ? limitedMessage(err) : err.message;
      sendPage(res, err.status, credentialsPage('signup', anonymousCsrf(req, res), problem, email));
    }
  };
}
