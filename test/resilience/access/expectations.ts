/**
 * How the access matrix asks each route of the route table, keyed `METHOD path` as in matrix.tsv:
 * the request each role sends, and how to read the reply as allow or a kind of denial. Who should
 * get what is in matrix.tsv, written by hand; the queue board's routes are in board.ts. The matrix
 * test fails when a row of matrix.tsv has no entry here or in board.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Host } from '../../../api/route-table';
import { fingerprint } from '../../../shared/exceptions/fingerprint';
import { request } from '../../helpers/http';
import type { Part } from '../../helpers/multipart';
import { fixture } from '../../helpers/uploads';
import {
  deltaJudge,
  downloadJudge,
  formJudge,
  jsonJudge,
  legacyExceptionJudge,
  legacyUploadJudge,
  linkJudge,
  loginJudge,
  logoutJudge,
  pageJudge,
  rolloutJudge,
  publicJudge,
  streamJudge,
  webRolloutJudge,
  webUploadJudge,
  type Call,
  type Judge,
} from './judge';
import { accountOf, keyOf, knowsCsrf, MEMBER_ROLES, sessionOf, type Role } from './roles';
import { csrfIn, PASSWORD, SCREENSHOT, signIn, type World } from './world';

export interface CaseContext {
  readonly w: World;
  readonly role: Role;
  readonly host: Host;
  /** The package in the path: A's, or in the cross-package variant the caller's own. */
  readonly pkg: string;
}

export interface Entry {
  readonly judge: Judge;
  readonly call: (c: CaseContext) => Call | Promise<Call>;
  /** Runs after every other entry, in this order (it revokes or replaces what others use). */
  readonly last?: number;
}

/** The fingerprint of A's issue: the stack world.ts reports for A. */
const A_ISSUE = fingerprint([
  'java.lang.IllegalStateException: access matrix',
  '\tat a.B.c(B.java:1)',
]);

// --- how roles present what they hold ----------------------------------------------------------

export const bearer = (c: CaseContext): Record<string, string> => {
  const key = keyOf(c.w, c.role);
  return key ? { authorization: `Bearer ${key}` } : {};
};
export const cookie = (c: CaseContext): Record<string, string> => {
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

const KEY_ROLES: readonly string[] = ['deviceKey', 'ciToken', 'ciOther'];

/** Devices (the account key's or a device key's) send their key the PushLink way. */
const pushlinkWay = (c: CaseContext): boolean => c.role === 'device' || c.role === 'deviceKey';

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
  'GET /healthz': { judge: publicJudge, call: bearerGet(() => '/healthz') },
  'GET /readyz': { judge: publicJudge, call: bearerGet(() => '/readyz') },
  'GET /api/v2/openapi.json': {
    judge: publicJudge,
    call: bearerGet(() => '/api/v2/openapi.json'),
  },
  'POST /api/v2/accounts': {
    judge: publicJudge,
    call: (c) => ({
      method: 'POST',
      path: '/api/v2/accounts',
      headers: bearer(c),
      json: { email: unique(), password: PASSWORD },
    }),
  },
  'GET /api/v2/account': {
    judge: jsonJudge,
    call: bearerGet(() => '/api/v2/account'),
  },
  'GET /api/v2/account/keys': {
    judge: jsonJudge,
    call: bearerGet(() => '/api/v2/account/keys'),
  },
  'POST /api/v2/account/keys': {
    judge: jsonJudge,
    call: (c) => ({
      method: 'POST',
      path: '/api/v2/account/keys',
      headers: bearer(c),
      json: { kind: 'device-key', name: 'matrix', apps: [c.pkg] },
    }),
  },
  'DELETE /api/v2/account/keys/:id': {
    judge: jsonJudge,
    call: (c) => ({
      method: 'DELETE',
      path: `/api/v2/account/keys/${c.w.a.spareKeyId}`,
      headers: bearer(c),
    }),
  },
  'PUT /api/v2/account/api-key-restriction': {
    judge: jsonJudge,
    // Lifting a restriction that is not set: changes nothing, and no other case depends on it.
    call: (c) => ({
      method: 'PUT',
      path: '/api/v2/account/api-key-restriction',
      headers: bearer(c),
      json: { deviceOnly: false },
    }),
  },

  // --- uploads ---
  'POST /apps/api_upload': {
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
    judge: jsonJudge,
    call: async (c) => ({
      method: 'POST',
      path: `/api/v2/apps/${c.pkg}/apks`,
      headers: bearer(c),
      multipart: [{ name: 'current', value: 'false' }, await apkOf(c)],
    }),
  },
  'GET /api/v2/uploads/:jobId': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/uploads/${c.w.a.jobId}`),
  },

  // --- downloads and metadata (PushLink) ---
  'GET /download': {
    judge: downloadJudge,
    call: (c) => ({
      method: 'GET',
      path: `/download?${q({ package: c.w.a.package, api_key: keyOf(c.w, c.role), deviceId: c.w.a.deviceId })}`,
    }),
  },
  'GET /download/delta': {
    judge: deltaJudge,
    call: (c) => ({
      method: 'GET',
      path: `/download/delta?${q({ package: c.w.a.package, api_key: keyOf(c.w, c.role), deviceId: c.w.a.deviceId, from: '0'.repeat(32), to: '0'.repeat(64) })}`,
    }),
  },
  'GET /apps/api_list_json': {
    judge: jsonJudge,
    call: (c) => ({
      method: 'GET',
      path: `/apps/api_list_json?${q({ packageName: c.w.a.package, apiKey: keyOf(c.w, c.role), deviceId: c.w.a.deviceId })}`,
    }),
  },

  // --- apps ---
  'GET /api/v2/apps': {
    judge: jsonJudge,
    call: bearerGet(() => '/api/v2/apps'),
  },
  'GET /api/v2/apps/:package': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}`),
  },
  'PUT /api/v2/apps/:package/current': {
    judge: jsonJudge,
    call: (c) => ({
      method: 'PUT',
      path: `/api/v2/apps/${c.pkg}/current`,
      headers: bearer(c),
      json: { sha256: c.w.a.sha256 },
    }),
  },

  // --- rollouts ---
  'GET /api/v2/apps/:package/rollout': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/rollout`),
  },
  'GET /api/v2/apps/:package/rollout/preview': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/rollout/preview?percent=100`),
  },
  'POST /api/v2/apps/:package/rollout': {
    judge: rolloutJudge,
    call: (c) => ({
      method: 'POST',
      path: `/api/v2/apps/${c.pkg}/rollout`,
      headers: bearer(c),
      json: {
        sha256: c.w.a.rolloutSha256,
        stages: [10, 100],
        targeting: { deviceIds: ['nobody'] },
      },
    }),
  },
  'POST /api/v2/apps/:package/rollout/:action': {
    judge: rolloutJudge,
    call: (c) => ({
      method: 'POST',
      path: `/api/v2/apps/${c.pkg}/rollout/pause`,
      headers: bearer(c),
    }),
  },

  // --- download links ---
  'POST /api/v2/apps/:package/download-links': {
    judge: jsonJudge,
    call: (c) => ({
      method: 'POST',
      path: `/api/v2/apps/${c.pkg}/download-links`,
      headers: bearer(c),
      json: { ttlSeconds: 60, sha256: c.w.a.sha256 },
    }),
  },
  'GET /api/v2/apps/:package/download-links': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/download-links`),
  },
  'DELETE /api/v2/download-links/:id': {
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
    judge: linkJudge,
    call: page((c) => `/d/${c.w.a.linkToken}`),
  },
  'GET /d/:token/qr.svg': {
    judge: linkJudge,
    call: page((c) => `/d/${c.w.a.linkToken}/qr.svg`),
  },
  'GET /d/:token/qr.png': {
    judge: linkJudge,
    call: page((c) => `/d/${c.w.a.linkToken}/qr.png`),
  },

  // --- devices ---
  'POST /api/v2/installations': {
    judge: jsonJudge,
    call: (c) => ({ ...registration(c, pushlinkWay(c)), path: '/api/v2/installations' }),
  },
  'POST /api/v2/heartbeat': {
    judge: jsonJudge,
    call: (c) => ({ ...registration(c, pushlinkWay(c)), path: '/api/v2/heartbeat' }),
  },
  'GET /api/v2/stream': {
    judge: streamJudge,
    call: (c) => {
      const key = keyOf(c.w, c.role);
      const device = pushlinkWay(c);
      return {
        method: 'GET',
        path: `/api/v2/stream?${q({ package: c.w.a.package, deviceId: c.w.a.deviceId, api_key: device ? key : undefined })}`,
        headers: { accept: 'text/event-stream', ...(device ? {} : bearer(c)) },
        stream: true,
      };
    },
  },
  'GET /api/v2/push-key': {
    judge: publicJudge,
    call: bearerGet(() => '/api/v2/push-key'),
  },
  'GET /api/v2/apps/:package/installations': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/installations`),
  },
  'GET /api/v2/apps/:package/funnel': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/funnel?${q({ sha256: c.w.a.sha256 })}`),
  },
  'GET /api/v2/apps/:package/adoption': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/adoption`),
  },
  'GET /api/v2/apps/:package/installations/:deviceId': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/installations/${c.w.a.deviceId}`),
  },
  'PUT /api/v2/apps/:package/installations/:deviceId': {
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
    judge: legacyExceptionJudge,
    call: (c) => ({ method: 'POST', path: '/exception', form: exceptionForm(c) }),
  },
  'POST /api/v2/exceptions': {
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
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/exceptions`),
  },
  'GET /api/v2/apps/:package/exceptions/:id': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/exceptions/${c.w.a.exceptionId}`),
  },
  'GET /api/v2/apps/:package/exceptions/:id/screenshot': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/exceptions/${c.w.a.exceptionId}/screenshot`),
  },
  'GET /api/v2/apps/:package/exception-stats': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/exception-stats`),
  },
  'GET /api/v2/apps/:package/exception-groups/:fingerprint': {
    judge: jsonJudge,
    call: bearerGet((c) => `/api/v2/apps/${c.pkg}/exception-groups/${A_ISSUE}`),
  },

  // --- operations ---
  'GET /metrics': { judge: jsonJudge, call: bearerGet(() => '/metrics') },

  // --- web administration ---
  'GET /ui': { judge: publicJudge, call: page(() => '/ui') },
  'GET /ui/style.css': { judge: publicJudge, call: page(() => '/ui/style.css') },
  'GET /ui/app.js': { judge: publicJudge, call: page(() => '/ui/app.js') },
  'GET /ui/signup': { judge: publicJudge, call: page(() => '/ui/signup') },
  'GET /ui/login': { judge: publicJudge, call: page(() => '/ui/login') },
  'POST /ui/signup': {
    judge: publicJudge,
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
    judge: loginJudge,
    call: async (c) => {
      const { cookie: anon, csrf: token } = await anonymousForm(c, '/ui/login');
      // The forged form carries the right password: only the missing token stops it. A's team
      // members log in with their own email and password (docs/teams.md).
      const member = MEMBER_ROLES.includes(c.role) ? accountOf(c.w, c.role) : undefined;
      const password =
        c.role === 'ownerA' || c.role === 'forgedForm' || member ? PASSWORD : `not-${PASSWORD}`;
      // Key holders guess at an email of their own: A's email meets the login throttle's 5
      // attempts per email and address, which the other roles' wrong passwords already use.
      const email = KEY_ROLES.includes(c.role) ? `${c.role}@example.com` : c.w.a.email;
      return {
        method: 'POST',
        path: '/ui/login',
        headers: { cookie: anon },
        form: { email: member?.email ?? email, password, _csrf: token },
      };
    },
  },
  'POST /ui/logout': {
    judge: logoutJudge,
    call: freshSessionForm('/ui/logout'),
  },
  'GET /ui/account': {
    judge: pageJudge,
    call: page(() => '/ui/account'),
  },
  'POST /ui/account/password': {
    judge: formJudge,
    last: 3,
    call: freshSessionForm('/ui/account/password', {
      current: PASSWORD,
      password: PASSWORD,
      confirm: PASSWORD,
    }),
  },
  'POST /ui/account/sign-out-everywhere': {
    judge: logoutJudge,
    last: 4,
    call: freshSessionForm('/ui/account/sign-out-everywhere'),
  },
  'GET /ui/apps': {
    judge: pageJudge,
    call: page(() => '/ui/apps'),
  },
  'POST /ui/account/keys': {
    judge: formJudge,
    call: uiForm(
      () => '/ui/account/keys',
      (c) => ({ kind: 'ci-token', name: 'matrix form', apps: c.pkg }),
    ),
  },
  'POST /ui/account/keys/:id/revoke': {
    judge: formJudge,
    call: uiForm((c) => `/ui/account/keys/${c.w.a.spareKeyId}/revoke`),
  },
  'POST /ui/account/api-key-restriction': {
    judge: formJudge,
    // Lifting a restriction that is not set: changes nothing other cases depend on.
    call: uiForm(
      () => '/ui/account/api-key-restriction',
      () => ({ deviceOnly: 'false' }),
    ),
  },
  'POST /ui/api-key': {
    judge: formJudge,
    last: 2,
    call: uiForm(
      () => '/ui/api-key',
      () => ({ confirm: 'yes' }),
    ),
  },
  'POST /ui/apps/:package/installations/:deviceId/status': {
    judge: formJudge,
    call: uiForm(
      (c) => `/ui/apps/${c.pkg}/installations/${c.w.a.deviceId}/status`,
      () => ({ status: 'enabled' }),
    ),
  },
  'POST /ui/apks': {
    judge: webUploadJudge,
    call: async (c) => ({
      method: 'POST',
      path: '/ui/apks',
      headers: cookie(c),
      multipart: [{ name: '_csrf', value: csrf(c) }, await apkOf(c)],
    }),
  },
  'GET /ui/apps/:package': {
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}`),
  },
  'POST /ui/apps/:package/apks': {
    judge: webUploadJudge,
    call: async (c) => ({
      method: 'POST',
      path: `/ui/apps/${c.pkg}/apks`,
      headers: cookie(c),
      multipart: [{ name: '_csrf', value: csrf(c) }, await apkOf(c)],
    }),
  },
  'GET /ui/apps/:package/installations': {
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}/installations`),
  },
  'GET /ui/apps/:package/installations/:deviceId': {
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}/installations/${c.w.a.deviceId}`),
  },
  'GET /ui/apps/:package/exceptions': {
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}/exceptions`),
  },
  'GET /ui/apps/:package/exceptions/:id': {
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}/exceptions/${c.w.a.exceptionId}`),
  },
  'GET /ui/apps/:package/exceptions/:id/screenshot': {
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}/exceptions/${c.w.a.exceptionId}/screenshot`),
  },
  'POST /ui/apps/:package/current': {
    judge: formJudge,
    call: uiForm(
      (c) => `/ui/apps/${c.pkg}/current`,
      (c) => ({ sha256: c.w.a.sha256, confirm: 'yes' }),
    ),
  },
  'POST /ui/apps/:package/download-links': {
    judge: formJudge,
    call: uiForm(
      (c) => `/ui/apps/${c.pkg}/download-links`,
      (c) => ({ sha256: c.w.a.sha256 }),
    ),
  },
  'GET /ui/apps/:package/rollouts': {
    judge: pageJudge,
    call: page((c) => `/ui/apps/${c.pkg}/rollouts`),
  },
  'POST /ui/apps/:package/rollouts': {
    judge: webRolloutJudge,
    call: uiForm(
      (c) => `/ui/apps/${c.pkg}/rollouts`,
      (c) => ({ sha256: c.w.a.rolloutSha256, stages: '10, 100', deviceIds: 'nobody' }),
    ),
  },
  'POST /ui/apps/:package/rollouts/:action': {
    judge: webRolloutJudge,
    call: uiForm((c) => `/ui/apps/${c.pkg}/rollouts/pause`),
  },
};
