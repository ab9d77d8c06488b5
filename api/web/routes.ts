/**
 * The web administration on the admin host, under /ui: server-rendered HTML, no front-end
 * framework. Sessions are cookies backed by MongoDB (api/web/sessions.ts); every form carries a
 * CSRF token; every page sends a strict Content-Security-Policy (only 'self' resources). The
 * handlers are in api/web/; this module only lists the pages and their guards.
 */
import type { RequestHandler } from 'express';
import type { ApiDeps } from '../deps';
import { createKeyForm, restrictionForm, revokeKeyForm } from '../accounts/key-forms';
import { accountPages } from '../accounts/web-pages';
import { auditPages } from '../audit/web-pages';
import { changeStatus, createLink, makeCurrent } from '../apps/web-actions';
import { APP_JS, STYLE_CSS } from './assets';
import { showExceptionReport, showExceptions, showScreenshot } from '../exceptions/web-pages';
import { logIn, loginForm, logOut } from './login';
import { regenerateKey, showApks, showApps, showInstallations } from '../apps/web-pages';
import { actOnRolloutPage, showRollouts, startRolloutPage } from '../rollouts/web-pages';
import { anonymousCsrfCheck, form, pageMaker, type Page } from './page-maker';
import { csrfCheck, sessionAuth } from './sessions';
import { signUp, signUpForm } from '../accounts/sign-up-form';
import { teamPages } from '../accounts/team-pages';
import { totpRoutes } from '../accounts/totp-pages';
import { uploadApk } from '../uploads/web-page';
import type { Route } from '../route-table';

const asset =
  (type: string, body: string): RequestHandler =>
  (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type(type).send(body);
  };

/** Assets, sign-up, log-in and log-out. */
function entryPages(deps: ApiDeps, page: Page): Route[] {
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
    page('get', '/ui/login', 'public', 'Login page (HTML).', loginForm(deps)),
    page(
      'post',
      '/ui/login',
      'public',
      'Log in (form: email, password, _csrf); throttled.',
      form,
      anonymousCsrfCheck,
      logIn(deps),
    ),
    page('post', '/ui/logout', 'self', 'Log out (form: _csrf).', form, csrfCheck, logOut(deps)),
  ];
}

/** The account page's device keys, CI tokens and the API key's switch (docs/keys.md). */
function keyPages(deps: ApiDeps, page: Page): Route[] {
  return [
    page(
      'post',
      '/ui/account/keys',
      'manage',
      'Create a device key or CI token (form: kind, name, apps, _csrf); 201 shows its secret once.',
      form,
      csrfCheck,
      (req, res) => createKeyForm(deps, req, res),
    ),
    page(
      'post',
      '/ui/account/keys/:id/revoke',
      'manage',
      'Revoke a device key or CI token (form: _csrf).',
      form,
      csrfCheck,
      (req, res) => revokeKeyForm(deps, req, res),
    ),
    page(
      'post',
      '/ui/account/api-key-restriction',
      'owner',
      'Restrict the account API key to the device routes, or lift it (form: deviceOnly, _csrf).',
      form,
      csrfCheck,
      (req, res) => restrictionForm(deps, req, res),
    ),
  ];
}

/** The account page, the apps list, the API key and the upload of any package. */
function accountAndAppsPages(deps: ApiDeps, page: Page): Route[] {
  const account = accountPages(deps);
  return [
    page('get', '/ui/account', 'read', 'Account page: password, sessions (HTML).', account.page),
    page(
      'post',
      '/ui/account/password',
      'self',
      'Change the password (form: current, password, confirm, _csrf); ends the other sessions.',
      form,
      csrfCheck,
      account.changePassword,
    ),
    page(
      'post',
      '/ui/account/sign-out-everywhere',
      'self',
      'Sign out everywhere: end every session of the account (form: _csrf).',
      form,
      csrfCheck,
      account.signOutEverywhere,
    ),
    ...keyPages(deps, page),
    page('get', '/ui/apps', 'read', 'Apps list (HTML).', showApps(deps)),
    page(
      'post',
      '/ui/api-key',
      'owner',
      'Regenerate the API key (form: confirm=yes, _csrf).',
      form,
      csrfCheck,
      regenerateKey(deps),
    ),
    page(
      'post',
      '/ui/apps/:package/installations/:deviceId/status',
      'manage',
      'Enable (within the plan) or disable an installation (form: status, _csrf).',
      form,
      csrfCheck,
      changeStatus(deps),
    ),
    page(
      'post',
      '/ui/apks',
      'upload',
      'Upload an APK of any package (multipart with _csrf).',
      uploadApk(deps),
    ),
  ];
}

/** One app's pages: its tabs, a report and its screenshot, and the forms that change it. */
function appPages(deps: ApiDeps, page: Page): Route[] {
  return [
    page('get', '/ui/apps/:package', 'read', 'App page, tab APKs (HTML).', showApks(deps)),
    page(
      'post',
      '/ui/apps/:package/apks',
      'upload',
      'Upload an APK of this app (multipart with _csrf).',
      uploadApk(deps),
    ),
    page(
      'get',
      '/ui/apps/:package/installations',
      'read',
      'App page, tab Installations (HTML).',
      showInstallations(deps),
    ),
    page(
      'get',
      '/ui/apps/:package/exceptions',
      'read',
      'App page, tab Exceptions (HTML).',
      showExceptions(deps),
    ),
    page(
      'get',
      '/ui/apps/:package/exceptions/:id',
      'read',
      'One exception report: stack trace, metadata, device log, screenshot (HTML).',
      showExceptionReport(deps),
    ),
    page(
      'get',
      '/ui/apps/:package/exceptions/:id/screenshot',
      'read',
      "An exception report's screenshot (JPEG).",
      showScreenshot(deps),
    ),
    page(
      'post',
      '/ui/apps/:package/current',
      'make-current',
      'Make an APK current (form: sha256, _csrf).',
      form,
      csrfCheck,
      makeCurrent(deps),
    ),
    page(
      'post',
      '/ui/apps/:package/download-links',
      'manage',
      'Create a download link and show its QR code (form: sha256, _csrf).',
      form,
      csrfCheck,
      createLink(deps),
    ),
  ];
}

/** An app's Rollouts tab and its forms (the JSON API's use-cases: docs/rollouts.md). */
function rolloutPages(deps: ApiDeps, page: Page): Route[] {
  return [
    page(
      'get',
      '/ui/apps/:package/rollouts',
      'read',
      "App page, tab Rollouts: the rollout, its health numbers and decisions, the APK's funnel (HTML).",
      showRollouts(deps),
    ),
    page(
      'post',
      '/ui/apps/:package/rollouts',
      'rollout',
      'Start a rollout (form: sha256, stages, metadataKey, metadataValues, deviceIds, _csrf).',
      form,
      csrfCheck,
      startRolloutPage(deps),
    ),
    page(
      'post',
      '/ui/apps/:package/rollouts/:action',
      'rollout',
      'Pause, resume, advance, complete or halt the rollout (form: _csrf).',
      form,
      csrfCheck,
      actOnRolloutPage(deps),
    ),
  ];
}

export function webRoutes(deps: ApiDeps): Route[] {
  const page = pageMaker(sessionAuth(deps));
  return [
    ...entryPages(deps, page),
    ...accountAndAppsPages(deps, page),
    ...appPages(deps, page),
    ...rolloutPages(deps, page),
    ...auditPages(deps, page, [form, csrfCheck]),
    ...teamPages(deps, page),
    ...totpRoutes(deps, page),
  ];
}
