/**
 * The web administration on the admin host, under /ui: server-rendered HTML, no front-end
 * framework. Sessions are cookies backed by MongoDB (api/web/sessions.ts); every form carries a
 * CSRF token; every page sends a strict Content-Security-Policy (only 'self' resources). The
 * handlers are in api/web/; this module only lists the pages and their guards.
 */
import {
  uiGetAccountContract,
  uiGetAppJsContract,
  uiGetAppsByPackageContract,
  uiGetAppsByPackageExceptionsByIdContract,
  uiGetAppsByPackageExceptionsByIdScreenshotContract,
  uiGetAppsByPackageExceptionsContract,
  uiGetAppsByPackageRolloutsContract,
  uiGetAppsContract,
  uiGetHomeContract,
  uiGetLoginContract,
  uiGetSignupContract,
  uiGetStyleCssContract,
  uiPostAccountApiKeyRestrictionContract,
  uiPostAccountKeysByIdRevokeContract,
  uiPostAccountKeysContract,
  uiPostAccountPasswordContract,
  uiPostAccountSignOutEverywhereContract,
  uiPostApiKeyContract,
  uiPostApksContract,
  uiPostAppsByPackageApksContract,
  uiPostAppsByPackageCurrentContract,
  uiPostAppsByPackageDownloadLinksContract,
  uiPostAppsByPackageInstallationsByDeviceIdStatusContract,
  uiPostAppsByPackageRolloutsByActionContract,
  uiPostAppsByPackageRolloutsContract,
  uiPostLoginContract,
  uiPostLogoutContract,
  uiPostSignupContract,
} from './contracts';
import type { RequestHandler } from 'express';
import type { ApiDeps } from '../deps';
import { createKeyForm, restrictionForm, revokeKeyForm } from '../accounts/key-forms';
import { accountPages } from '../accounts/web-pages';
import { auditPages } from '../audit/web-pages';
import { webhookPages } from '../webhooks/web-pages';
import { changeStatus, createLink, makeCurrent } from '../apps/web-actions';
import { APP_JS, STYLE_CSS } from './assets';
import { showExceptionReport, showExceptions, showScreenshot } from '../exceptions/web-pages';
import { logIn, loginForm, logOut } from './login';
import { regenerateKey, showApks, showApps } from '../apps/web-pages';
import { installationPages } from '../devices/web-pages';
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
    page('get', '/ui', 'public', uiGetHomeContract, (_req, res) => res.redirect(303, '/ui/apps')),
    page('get', '/ui/style.css', 'public', uiGetStyleCssContract, asset('text/css', STYLE_CSS)),
    page('get', '/ui/app.js', 'public', uiGetAppJsContract, asset('text/javascript', APP_JS)),
    page('get', '/ui/signup', 'public', uiGetSignupContract, signUpForm(deps)),
    page(
      'post',
      '/ui/signup',
      'public',
      uiPostSignupContract,
      form,
      anonymousCsrfCheck,
      signUp(deps),
    ),
    page('get', '/ui/login', 'public', uiGetLoginContract, loginForm(deps)),
    page('post', '/ui/login', 'public', uiPostLoginContract, form, anonymousCsrfCheck, logIn(deps)),
    page('post', '/ui/logout', 'self', uiPostLogoutContract, form, csrfCheck, logOut(deps)),
  ];
}

/** The account page's device keys, CI tokens and the API key's switch (docs/keys.md). */
function keyPages(deps: ApiDeps, page: Page): Route[] {
  return [
    page(
      'post',
      '/ui/account/keys',
      'manage',
      uiPostAccountKeysContract,
      form,
      csrfCheck,
      (req, res) => createKeyForm(deps, req, res),
    ),
    page(
      'post',
      '/ui/account/keys/:id/revoke',
      'manage',
      uiPostAccountKeysByIdRevokeContract,
      form,
      csrfCheck,
      (req, res) => revokeKeyForm(deps, req, res),
    ),
    page(
      'post',
      '/ui/account/api-key-restriction',
      'owner',
      uiPostAccountApiKeyRestrictionContract,
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
    page('get', '/ui/account', 'read', uiGetAccountContract, account.page),
    page(
      'post',
      '/ui/account/password',
      'self',
      uiPostAccountPasswordContract,
      form,
      csrfCheck,
      account.changePassword,
    ),
    page(
      'post',
      '/ui/account/sign-out-everywhere',
      'self',
      uiPostAccountSignOutEverywhereContract,
      form,
      csrfCheck,
      account.signOutEverywhere,
    ),
    ...keyPages(deps, page),
    page('get', '/ui/apps', 'read', uiGetAppsContract, showApps(deps)),
    page(
      'post',
      '/ui/api-key',
      'owner',
      uiPostApiKeyContract,
      form,
      csrfCheck,
      regenerateKey(deps),
    ),
    page(
      'post',
      '/ui/apps/:package/installations/:deviceId/status',
      'manage',
      uiPostAppsByPackageInstallationsByDeviceIdStatusContract,
      form,
      csrfCheck,
      changeStatus(deps),
    ),
    page('post', '/ui/apks', 'upload', uiPostApksContract, uploadApk(deps)),
  ];
}

/** One app's pages: its tabs, a report and its screenshot, and the forms that change it. */
function appPages(deps: ApiDeps, page: Page): Route[] {
  return [
    page('get', '/ui/apps/:package', 'read', uiGetAppsByPackageContract, showApks(deps)),
    page(
      'post',
      '/ui/apps/:package/apks',
      'upload',
      uiPostAppsByPackageApksContract,
      uploadApk(deps),
    ),
    page(
      'get',
      '/ui/apps/:package/exceptions',
      'read',
      uiGetAppsByPackageExceptionsContract,
      showExceptions(deps),
    ),
    page(
      'get',
      '/ui/apps/:package/exceptions/:id',
      'read',
      uiGetAppsByPackageExceptionsByIdContract,
      showExceptionReport(deps),
    ),
    page(
      'get',
      '/ui/apps/:package/exceptions/:id/screenshot',
      'read',
      uiGetAppsByPackageExceptionsByIdScreenshotContract,
      showScreenshot(deps),
    ),
    page(
      'post',
      '/ui/apps/:package/current',
      'make-current',
      uiPostAppsByPackageCurrentContract,
      form,
      csrfCheck,
      makeCurrent(deps),
    ),
    page(
      'post',
      '/ui/apps/:package/download-links',
      'manage',
      uiPostAppsByPackageDownloadLinksContract,
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
      uiGetAppsByPackageRolloutsContract,
      showRollouts(deps),
    ),
    page(
      'post',
      '/ui/apps/:package/rollouts',
      'rollout',
      uiPostAppsByPackageRolloutsContract,
      form,
      csrfCheck,
      startRolloutPage(deps),
    ),
    page(
      'post',
      '/ui/apps/:package/rollouts/:action',
      'rollout',
      uiPostAppsByPackageRolloutsByActionContract,
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
    ...installationPages(deps, page),
    ...rolloutPages(deps, page),
    ...auditPages(deps, page),
    ...webhookPages(deps, page, [form, csrfCheck]),
    ...teamPages(deps, page),
    ...totpRoutes(deps, page),
  ];
}
