/**
 * The web administration on the admin host, under /ui: server-rendered HTML, no front-end
 * framework. Sessions are cookies backed by MongoDB (api/web/sessions.ts); every form carries a
 * CSRF token; every page sends a strict Content-Security-Policy (only 'self' resources).
 */
import type { Request, RequestHandler, Response } from 'express';
import { clientAddress } from '../auth';
import { formBody } from '../body-parsers';
import type { ApiDeps } from '../deps';
import type { Route } from '../route-table';
import { accountPages, throttledMessage } from '../web/account-pages';
import { APP_JS, STYLE_CSS } from '../web/assets';
import { sendPage, webPages } from '../web/pages';
import {
  anonymousCsrf,
  ANON_CSRF_COOKIE,
  cookieOf,
  csrfCheck,
  endSession,
  sameToken,
  sessionAuth,
  startSession,
} from '../web/sessions';
import { credentialFields, signUp, signUpForm } from '../web/sign-up-form';
import { credentialsPage } from '../web/views';

const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const secureHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  next();
};

const form = formBody(16 * 1024);

/** The pre-session forms: the `_csrf` field must equal the double-submit cookie. */
const anonymousCsrfCheck: RequestHandler = (req, res, next) => {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (!sameToken(body._csrf, cookieOf(req, ANON_CSRF_COOKIE) ?? '')) {
    res.status(403).type('text/plain').send('Missing or wrong CSRF token.');
    return;
  }
  next();
};

export function webRoutes(deps: ApiDeps): Route[] {
  const pages = webPages(deps);
  const account = accountPages(deps);
  const session = sessionAuth(deps);

  async function logIn(req: Request, res: Response): Promise<void> {
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
  }

  const page = (
    method: Route['method'],
    path: string,
    access: 'public' | 'session',
    summary: string,
    ...handlers: RequestHandler[]
  ): Route => ({
    method,
    path,
    hosts: ['admin'],
    access,
    summary,
    handlers: [secureHeaders, ...(access === 'session' ? [session] : []), ...handlers],
  });
  const asset =
    (type: string, body: string): RequestHandler =>
    (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.type(type).send(body);
    };

  return [
    page('get', '/ui', 'public', 'Web administration: to the apps list.', (_req, res) =>
      res.redirect(303, '/ui/apps'),
    ),
    page(
      'get',
      '/ui/style.css',
      'public',
      'Web administration stylesheet.',
      asset('text/css', STYLE_CSS),
    ),
    page(
      'get',
      '/ui/app.js',
      'public',
      'Web administration script.',
      asset('text/javascript', APP_JS),
    ),
    page('get', '/ui/signup', 'public', 'Sign-up page (HTML).', signUpForm(deps)),
    page(
      'post',
      '/ui/signup',
      'public',
      'Sign up (form: email, password, _csrf).',
      form,
      anonymousCsrfCheck,
      signUp(deps),
    ),
    page('get', '/ui/login', 'public', 'Login page (HTML).', (req, res) =>
      sendPage(
        res,
        200,
        credentialsPage('login', anonymousCsrf(req, res), null, '', deps.signups.open),
      ),
    ),
    page(
      'post',
      '/ui/login',
      'public',
      'Log in (form: email, password, _csrf); throttled.',
      form,
      anonymousCsrfCheck,
      logIn,
    ),
    page(
      'post',
      '/ui/logout',
      'session',
      'Log out (form: _csrf).',
      form,
      csrfCheck,
      async (req, res) => {
        await endSession(deps, req, res);
        res.redirect(303, '/ui/login');
      },
    ),
    page('get', '/ui/account', 'session', 'Account page: password, sessions (HTML).', account.page),
    page(
      'post',
      '/ui/account/password',
      'session',
      'Change the password (form: current, password, confirm, _csrf); ends the other sessions.',
      form,
      csrfCheck,
      account.changePassword,
    ),
    page(
      'post',
      '/ui/account/sign-out-everywhere',
      'session',
      'Sign out everywhere: end every session of the account (form: _csrf).',
      form,
      csrfCheck,
      account.signOutEverywhere,
    ),
    page('get', '/ui/apps', 'session', 'Apps list (HTML).', pages.apps),
    page(
      'post',
      '/ui/api-key',
      'session',
      'Regenerate the API key (form: confirm=yes, _csrf).',
      form,
      csrfCheck,
      pages.regenerateKey,
    ),
    page(
      'post',
      '/ui/apps/:package/installations/:deviceId/status',
      'session',
      'Enable (within the plan) or disable an installation (form: status, _csrf).',
      form,
      csrfCheck,
      pages.setStatus,
    ),
    page(
      'post',
      '/ui/apks',
      'session',
      'Upload an APK of any package (multipart with _csrf).',
      pages.upload,
    ),
    page('get', '/ui/apps/:package', 'session', 'App page, tab APKs (HTML).', pages.apks),
    page(
      'post',
      '/ui/apps/:package/apks',
      'session',
      'Upload an APK of this app (multipart with _csrf).',
      pages.upload,
    ),
    page(
      'get',
      '/ui/apps/:package/installations',
      'session',
      'App page, tab Installations (HTML).',
      pages.installations,
    ),
    page(
      'get',
      '/ui/apps/:package/exceptions',
      'session',
      'App page, tab Exceptions (HTML).',
      pages.exceptions,
    ),
    page(
      'get',
      '/ui/apps/:package/exceptions/:id',
      'session',
      'One exception report: stack trace, metadata, device log, screenshot (HTML).',
      pages.report,
    ),
    page(
      'get',
      '/ui/apps/:package/exceptions/:id/screenshot',
      'session',
      "An exception report's screenshot (JPEG).",
      pages.screenshot,
    ),
    page(
      'post',
      '/ui/apps/:package/current',
      'session',
      'Make an APK current (form: sha256, _csrf).',
      form,
      csrfCheck,
      pages.makeCurrent,
    ),
    page(
      'post',
      '/ui/apps/:package/download-links',
      'session',
      'Create a download link and show its QR code (form: sha256, _csrf).',
      form,
      csrfCheck,
      pages.createLink,
    ),
  ];
}
