/**
 * The access matrix as data: one entry per route of the route table (plus the UI mounted beside
 * it), keyed `METHOD path`. An entry says which of A's resources the route addresses, how each
 * role calls it, and how to read the reply; who is allowed comes from the route's declared
 * `access` (roles.ts `defaultOutcomes`), and an entry overrides a role only with a reason.
 * The matrix test fails when a route has no entry, or an entry no route.
 */
import { randomBytes } from 'node:crypto';
import type { Access, Host, Method } from '../../../api/route-table';
import { request } from '../../helpers/http';
import type { Part } from '../../helpers/multipart';
import { fixture } from '../../helpers/uploads';
import {
  downloadJudge,
  formJudge,
  jsonJudge,
  legacyExceptionJudge,
  legacyUploadJudge,
  linkJudge,
  loginJudge,
  logoutJudge,
  pageJudge,
  publicJudge,
  streamJudge,
  webUploadJudge,
  type Call,
  type Judge,
} from './judge';
import { accountOf, keyOf, knowsCsrf, sessionOf, type Outcome, type Role } from './roles';
import { csrfIn, PASSWORD, SCREENSHOT, signIn, type World } from './world';

/** A's resources a route can name. */
export type Resource = 'package' | 'apk' | 'installation' | 'exception' | 'link' | 'job';

export interface CaseContext {
  readonly w: World;
  readonly role: Role;
  readonly host: Host;
  /** The package in the path: A's, or in the cross-package variant the caller's own. */
  readonly pkg: string;
}

export interface Entry {
  readonly addresses: readonly Resource[];
  /**
   * The path names a package and, under it, another resource of A: callers with an app of their
   * own also try A's resource under their own package (the lookup must be scoped to the account,
   * not only to the package).
   */
  readonly crossPackage?: boolean;
  readonly overrides?: Partial<Record<Role, Outcome>>;
  /** Why the overrides hold. */
  readonly why?: string;
  readonly judge: Judge;
  readonly call: (c: CaseContext) => Call | Promise<Call>;
  /** Runs after every other entry, in this order (it revokes or replaces what others use). */
  readonly last?: number;
}

/** Routes mounted beside the route table (a UI with its own sub-routes). */
export const EXTRA_MOUNTS: ReadonlyArray<{
  readonly method: Method;
  readonly path: string;
  readonly hosts: readonly Host[];
  readonly access: Access | 'operator';
}> = [
  { method: 'get', path: '/ops/queues', hosts: ['admin'], access: 'operator' },
  // The board's own JSON API (queues, jobs): the same guard, asked directly.
  { method: 'get', path: '/ops/queues/api/queues', hosts: ['admin'], access: 'operator' },
];

// --- how roles present what they hold ----------------------------------------------------------

const bearer = (c: CaseContext): Record<string, string> => {
  const key = keyOf(c.w, c.role);
  return key ? { authorization: `Bearer ${key}` } : {};
};
const cookie = (c: CaseContext): Record<string, string> => {
  const session = sessionOf(c.w, c.role);
  return session ? { cookie: session.cookie } : {};
};
const csrf = (c: CaseContext): string =>
  knowsCsrf(c.role) ? (sessionOf(c.w, c.role)?.csrf ?? '') : '';
/** The double-submit token of the sign-up and login forms: fetched, unless the form is forged. */
async function anonymousForm(
  c: CaseContext,
  path: string,
): Promise<{ cookie: string; csrf: string }> {
  const form = await request(`${c.w.stack.urls.admin}${path}`, { ca: c.w.stack.ca });
  const raw = form.headers['set-cookie'];
  const cookie = (Array.isArray(raw) ? raw[0] : raw)?.split(';')[0] ?? '';
  return { cookie, csrf: knowsCsrf(c.role) ? csrfIn(form.text) : '' };
}
const q = (params: Record<string, string | undefined>): string =>
  new URLSearchParams(
    Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined),
  ).toString();
/** The APK a role uploads: A's holders re-send A's (a duplicate), others their own app's. */
const apkOf = async (c: CaseContext): Promise<Part> => {
  const name = c.role === 'ownerB' || c.role === 'operator' ? 'other-package.apk' : 'version-1.apk';
  return { name: 'apk', filename: name, data: await fixture(name) };
};
const unique = () => `matrix-${randomBytes(6).toString('hex')}@example.com`;

const bearerGet =
  (path: (c: CaseContext) => string) =>
  (c: CaseContext): Call => ({ method: 'GET', path: path(c), headers: bearer(c) });
const page =
  (path: (c: CaseContext) => string) =>
  (c: CaseContext): Call => ({ method: 'GET', path: path(c), headers: cookie(c) });
const uiForm =
  (
    path: (c: CaseContext) => string,
    fields: (c: CaseContext) => Record<string, string> = () => ({}),
  ) =>
  (c: CaseContext): Call => ({
    method: 'POST',
    path: path(c),
    headers: cookie(c),
    form: { ...fields(c), _csrf: csrf(c) },
  });

/** A form sent from a session signed in for this call only (the route ends sessions). */
const freshSessionForm =
  (path: string, fields: Record<string, string> = {}) =>
  async (c: CaseContext): Promise<Call> => {
    const account = accountOf(c.w, c.role);
    const session = account ? await signIn(c.w.stack, account.email) : undefined;
    return {
      method: 'POST',
      path,
      headers: session ? { cookie: session.cookie } : {},
      form: { ...fields, _csrf: knowsCsrf(c.role) ? (session?.csrf ?? '') : '' },
    };
  };

const OWN_ACCOUNT = 'acts on the caller’s own account only; A’s data must not appear (leak check)';

function exceptionForm(c: CaseContext): URLSearchParams {
  const form = new URLSearchParams();
  form.set('package', c.w.a.package);
  const key = keyOf(c.w, c.role);
  if (key) form.set('api_key', key);
  form.set('hash', c.w.a.md5);
  form.set('deviceId', c.w.a.deviceId);
  form.append('st[]', 'java.lang.IllegalStateException: matrix legacy');
  form.append('st[]', '\tat a.B.c(B.java:2)');
  return form;
}

function registration(c: CaseContext, keyInBody: boolean): Call {
  const key = keyOf(c.w, c.role);
  const body: Record<string, unknown> = {
    package: c.w.a.package,
    deviceId: c.w.a.deviceId,
    installedMd5: c.w.a.md5,
  };
  // Devices send the key the PushLink way (in the body); owners' tools as a Bearer header.
  if (keyInBody && key) body.apiKey = key;
  return {
    method: 'POST',
    path: '',
    headers: keyInBody ? {} : bearer(c),
    json: body,
  };
}

export const EXPECTATIONS: Readonly<Record<string, Entry>> = {
  'GET /healthz': { addresses: [], judge: publicJudge, call: bearerGet(() => '/healthz') },
  'GET /readyz': { addresses: [], judge: publicJudge, call: bearerGet(() => '/readyz') },
  'GET /api/v2/openapi.json': {
    addresses: [],
    judge: publicJudge,
    call: bearerGet(() => '/api/v2/openapi.json'),
  },
  'POST /api/v2/accounts': {
    addresses: [],
    judge: publicJudge,
    call: (c) => ({
      method: 'POST',
      path: '/api/v2/accounts',
      headers: bearer(c),
      json: { email: unique(), password: PASSWORD },
    }),
  },
  'GET /api/v2/account': {
    addresses: [],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why: OWN_ACCOUNT,
    judge: jsonJudge,
    call: bearerGet(() => '/api/v2/account'),
  },

  // --- uploads ---
  'POST /apps/api_upload': {
    addresses: ['package'],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why: 'an upload lands in the account of the key; B’s and the operator’s go to their own app',
    judge: legacyUploadJudge,
    call: async (c) => {
      const key = keyOf(c.w, c.role);
      return {
        method: 'POST',
        path: '/apps/api_upload',
        multipart: [
          ...(key ? [{ name: 'apiKey', value: key }] : []),
          { name: 'current', value: 'false' },
          await apkOf(c),
        ],
      };
    },
  },
  'POST /api/v2/apps/:package/apks': {
    addresses: ['package'],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why:
      'an upload lands in the caller’s own account (apps are per account); the path only names ' +
      'the package the APK must have, so B’s APK is refused there later, never added to A’s app',
    judge: jsonJudge,
    call: async (c) => ({
      method: 'POST',
      path: `/api/v2/apps/${c.pkg}/apks`,
      headers: bearer(c),
      multipart: [{ name: 'current', value: 'false' }, await apkOf(c)],
    }),
  },
  'GET /api/v2/uploads/:jobId': {
    addresses: ['job'],
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/uploads/${c.w.a.jobId}`),
  },

  // --- downloads and metadata (PushLink) ---
  'GET /download': {
    addresses: ['package', 'installation'],
    judge: downloadJudge,
    call: (c) => ({
      method: 'GET',
      path: `/download?${q({ package: c.w.a.package, api_key: keyOf(c.w, c.role), deviceId: c.w.a.deviceId })}`,
    }),
  },
  'GET /apps/api_list_json': {
    addresses: ['package', 'installation'],
    judge: jsonJudge,
    call: (c) => ({
      method: 'GET',
      path: `/apps/api_list_json?${q({ packageName: c.w.a.package, apiKey: keyOf(c.w, c.role), deviceId: c.w.a.deviceId })}`,
    }),
  },

  // --- apps ---
  'GET /api/v2/apps': {
    addresses: [],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why: OWN_ACCOUNT,
    judge: jsonJudge,
    call: bearerGet(() => '/api/v2/apps'),
  },
  'GET /api/v2/apps/:package': {
    addresses: ['package'],
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}`),
  },
  'PUT /api/v2/apps/:package/current': {
    addresses: ['package', 'apk'],
    crossPackage: true,
    judge: jsonJudge,
    call: (c) => ({
      method: 'PUT',
      path: `/api/v2/apps/${c.pkg}/current`,
      headers: bearer(c),
      json: { sha256: c.w.a.sha256 },
    }),
  },

  // --- download links ---
  'POST /api/v2/apps/:package/download-links': {
    addresses: ['package', 'apk'],
    crossPackage: true,
    judge: jsonJudge,
    call: (c) => ({
      method: 'POST',
      path: `/api/v2/apps/${c.pkg}/download-links`,
      headers: bearer(c),
      json: { ttlSeconds: 60, sha256: c.w.a.sha256 },
    }),
  },
  'GET /api/v2/apps/:package/download-links': {
    addresses: ['package'],
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/download-links`),
  },
  'DELETE /api/v2/download-links/:id': {
    addresses: ['link'],
    judge: jsonJudge,
    // Revoking A's link would end the /d/ cases: after them.
    last: 1,
    call: (c) => ({
      method: 'DELETE',
      path: `/api/v2/download-links/${c.w.a.linkId}`,
      headers: bearer(c),
    }),
  },
  'GET /d/:token': {
    addresses: ['link'],
    why: 'a download link is a capability: whoever holds the URL downloads, by design',
    judge: linkJudge,
    call: page((c) => `/d/${c.w.a.linkToken}`),
  },
  'GET /d/:token/qr.svg': {
    addresses: ['link'],
    judge: linkJudge,
    call: page((c) => `/d/${c.w.a.linkToken}/qr.svg`),
  },
  'GET /d/:token/qr.png': {
    addresses: ['link'],
    judge: linkJudge,
    call: page((c) => `/d/${c.w.a.linkToken}/qr.png`),
  },

  // --- devices ---
  'POST /api/v2/installations': {
    addresses: ['package', 'installation'],
    judge: jsonJudge,
    call: (c) => ({ ...registration(c, c.role === 'device'), path: '/api/v2/installations' }),
  },
  'POST /api/v2/heartbeat': {
    addresses: ['package', 'installation'],
    judge: jsonJudge,
    call: (c) => ({ ...registration(c, c.role === 'device'), path: '/api/v2/heartbeat' }),
  },
  'GET /api/v2/stream': {
    addresses: ['package', 'installation'],
    judge: streamJudge,
    call: (c) => {
      const key = keyOf(c.w, c.role);
      const device = c.role === 'device';
      return {
        method: 'GET',
        path: `/api/v2/stream?${q({ package: c.w.a.package, deviceId: c.w.a.deviceId, api_key: device ? key : undefined })}`,
        headers: { accept: 'text/event-stream', ...(device ? {} : bearer(c)) },
        stream: true,
      };
    },
  },
  'GET /api/v2/push-key': {
    addresses: [],
    judge: publicJudge,
    call: bearerGet(() => '/api/v2/push-key'),
  },
  'GET /api/v2/apps/:package/installations': {
    addresses: ['package'],
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/installations`),
  },
  'PUT /api/v2/apps/:package/installations/:deviceId': {
    addresses: ['package', 'installation'],
    crossPackage: true,
    judge: jsonJudge,
    call: (c) => ({
      method: 'PUT',
      path: `/api/v2/apps/${c.pkg}/installations/${c.w.a.deviceId}`,
      headers: bearer(c),
      json: { status: 'enabled' },
    }),
  },

  // --- exceptions ---
  'POST /exception': {
    addresses: ['package', 'installation'],
    judge: legacyExceptionJudge,
    call: (c) => ({ method: 'POST', path: '/exception', form: exceptionForm(c) }),
  },
  'POST /api/v2/exceptions': {
    addresses: ['package', 'installation'],
    judge: jsonJudge,
    call: (c) => ({
      method: 'POST',
      path: '/api/v2/exceptions',
      headers: bearer(c),
      // The report of the world's setup again: a resend, so the 24 h budget is not spent.
      json: {
        package: c.w.a.package,
        hash: c.w.a.md5,
        deviceId: c.w.a.deviceId,
        stack: ['java.lang.IllegalStateException: access matrix', '\tat a.B.c(B.java:1)'],
        screen: SCREENSHOT.toString('base64'),
      },
    }),
  },
  'GET /api/v2/apps/:package/exceptions': {
    addresses: ['package'],
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/exceptions`),
  },
  'GET /api/v2/apps/:package/exceptions/:id': {
    addresses: ['package', 'exception'],
    crossPackage: true,
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/exceptions/${c.w.a.exceptionId}`),
  },
  'GET /api/v2/apps/:package/exceptions/:id/screenshot': {
    addresses: ['package', 'exception'],
    crossPackage: true,
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/exceptions/${c.w.a.exceptionId}/screenshot`),
  },

  // --- operations ---
  'GET /metrics': { addresses: [], judge: jsonJudge, call: bearerGet(() => '/metrics') },
  'GET /ops/queues': { addresses: [], judge: jsonJudge, call: bearerGet(() => '/ops/queues') },
  'GET /ops/queues/api/queues': {
    addresses: [],
    judge: jsonJudge,
    call: bearerGet(() => '/ops/queues/api/queues'),
  },

  // --- web administration ---
  'GET /ui': { addresses: [], judge: publicJudge, call: page(() => '/ui') },
  'GET /ui/style.css': { addresses: [], judge: publicJudge, call: page(() => '/ui/style.css') },
  'GET /ui/app.js': { addresses: [], judge: publicJudge, call: page(() => '/ui/app.js') },
  'GET /ui/signup': { addresses: [], judge: publicJudge, call: page(() => '/ui/signup') },
  'GET /ui/login': { addresses: [], judge: publicJudge, call: page(() => '/ui/login') },
  'POST /ui/signup': {
    addresses: [],
    judge: publicJudge,
    overrides: { forgedForm: 'forbidden' },
    why: 'anyone may sign up, but not through a form another site makes a browser send (CSRF)',
    call: async (c) => {
      const { cookie: anon, csrf: token } = await anonymousForm(c, '/ui/signup');
      return {
        method: 'POST',
        path: '/ui/signup',
        headers: { cookie: anon },
        form: { email: unique(), password: PASSWORD, _csrf: token },
      };
    },
  },
  'POST /ui/login': {
    addresses: [],
    overrides: {
      anonymous: 'unauthenticated',
      device: 'unauthenticated',
      ownerB: 'unauthenticated',
      operator: 'unauthenticated',
      scraper: 'unauthenticated',
      forgedForm: 'forbidden',
    },
    why:
      'everyone may try to sign in as A; only A’s owner knows A’s password; a forged ' +
      'cross-site login form is refused (login CSRF)',
    judge: loginJudge,
    call: async (c) => {
      const { cookie: anon, csrf: token } = await anonymousForm(c, '/ui/login');
      // The forged form carries the right password: only the missing token stops it.
      const password =
        c.role === 'ownerA' || c.role === 'forgedForm' ? PASSWORD : `not-${PASSWORD}`;
      return {
        method: 'POST',
        path: '/ui/login',
        headers: { cookie: anon },
        form: { email: c.w.a.email, password, _csrf: token },
      };
    },
  },
  'POST /ui/logout': {
    addresses: [],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why: 'ends the caller’s own session (a fresh one, so the other cases keep theirs)',
    judge: logoutJudge,
    call: freshSessionForm('/ui/logout'),
  },
  'GET /ui/account': {
    addresses: [],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why: OWN_ACCOUNT,
    judge: pageJudge,
    call: page(() => '/ui/account'),
  },
  'POST /ui/account/password': {
    addresses: [],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why:
      'changes the caller’s own password (to the same one, from a fresh session); runs late, ' +
      'since it ends the account’s other sessions',
    judge: formJudge,
    last: 3,
    call: freshSessionForm('/ui/account/password', {
      current: PASSWORD,
      password: PASSWORD,
      confirm: PASSWORD,
    }),
  },
  'POST /ui/account/sign-out-everywhere': {
    addresses: [],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why: 'ends the caller’s own sessions (from a fresh one); runs last, it ends all of them',
    judge: logoutJudge,
    last: 4,
    call: freshSessionForm('/ui/account/sign-out-everywhere'),
  },
  'GET /ui/apps': {
    addresses: [],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why: OWN_ACCOUNT,
    judge: pageJudge,
    call: page(() => '/ui/apps'),
  },
  'POST /ui/api-key': {
    addresses: [],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why: 'replaces the caller’s own API key; runs last, since the keys change',
    judge: formJudge,
    last: 2,
    call: uiForm(
      () => '/ui/api-key',
      () => ({ confirm: 'yes' }),
    ),
  },
  'POST /ui/apps/:package/installations/:deviceId/status': {
    addresses: ['package', 'installation'],
    crossPackage: true,
    judge: formJudge,
    call: uiForm(
      (c) => `/ui/apps/${c.pkg}/installations/${c.w.a.deviceId}/status`,
      () => ({ status: 'enabled' }),
    ),
  },
  'POST /ui/apks': {
    addresses: [],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why: 'an upload lands in the caller’s own account',
    judge: webUploadJudge,
    call: async (c) => ({
      method: 'POST',
      path: '/ui/apks',
      headers: cookie(c),
      multipart: [{ name: '_csrf', value: csrf(c) }, await apkOf(c)],
    }),
  },
  'GET /ui/apps/:package': {
    addresses: ['package'],
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}`),
  },
  'POST /ui/apps/:package/apks': {
    addresses: ['package'],
    overrides: { ownerB: 'allow', operator: 'allow' },
    why: 'as POST /api/v2/apps/:package/apks: the caller’s own account; B’s APK is refused there',
    judge: webUploadJudge,
    call: async (c) => ({
      method: 'POST',
      path: `/ui/apps/${c.pkg}/apks`,
      headers: cookie(c),
      multipart: [{ name: '_csrf', value: csrf(c) }, await apkOf(c)],
    }),
  },
  'GET /ui/apps/:package/installations': {
    addresses: ['package'],
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}/installations`),
  },
  'GET /ui/apps/:package/exceptions': {
    addresses: ['package'],
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}/exceptions`),
  },
  'GET /ui/apps/:package/exceptions/:id': {
    addresses: ['package', 'exception'],
    crossPackage: true,
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}/exceptions/${c.w.a.exceptionId}`),
  },
  'GET /ui/apps/:package/exceptions/:id/screenshot': {
    addresses: ['package', 'exception'],
    crossPackage: true,
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}/exceptions/${c.w.a.exceptionId}/screenshot`),
  },
  'POST /ui/apps/:package/current': {
    addresses: ['package', 'apk'],
    crossPackage: true,
    judge: formJudge,
    call: uiForm(
      (c) => `/ui/apps/${c.pkg}/current`,
      (c) => ({ sha256: c.w.a.sha256 }),
    ),
  },
  'POST /ui/apps/:package/download-links': {
    addresses: ['package', 'apk'],
    crossPackage: true,
    judge: formJudge,
    call: uiForm(
      (c) => `/ui/apps/${c.pkg}/download-links`,
      (c) => ({ sha256: c.w.a.sha256 }),
    ),
  },
};
