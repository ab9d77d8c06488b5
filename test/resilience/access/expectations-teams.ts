/**
 * How the access matrix asks the team routes (issue 20, docs/teams.md): the members page and its
 * forms, joining by link, the second factor's forms. Keyed as in matrix.tsv, which says who should
 * get what. Cases that use something up (an invitation, a member) make their own first, as A's
 * owner.
 */
import { randomBytes } from 'node:crypto';
import { request } from '../../helpers/http';
import type { CaseContext, Entry } from './expectations';
import { formJudge, loginJudge, publicJudge, pageJudge, type Call, type Judge } from './judge';
import { knowsCsrf, sessionOf } from './roles';
import { invitePath, joinForm, memberEmail, newMember, PASSWORD } from './world-members';

const cookie = (c: CaseContext): Record<string, string> => {
  const session = sessionOf(c.w, c.role);
  return session ? { cookie: session.cookie } : {};
};
const form =
  (path: (c: CaseContext) => string | Promise<string>, fields: Record<string, string> = {}) =>
  async (c: CaseContext): Promise<Call> => ({
    method: 'POST',
    path: await path(c),
    headers: cookie(c),
    form: { ...fields, _csrf: knowsCsrf(c.role) ? (sessionOf(c.w, c.role)?.csrf ?? '') : '' },
  });

/**
 * The second factor's confirm and disable with a code that is not current: the wrong-code page
 * (400), or "set it up first" (409), means the caller reached their own factor.
 */
const totpJudge: Judge = (r) => (r.status === 400 || r.status === 409 ? 'allow' : formJudge(r));

/**
 * A pending invitation of A's, made by A's owner for this case. On the hosts the route is not on
 * (asked after every case, when A's sessions have ended) any id does: the route is not there.
 */
async function freshInvitation(c: CaseContext): Promise<{ path: string; id: string }> {
  if (c.host !== 'admin') return { path: `/ui/join/${'x'.repeat(43)}`, id: 'none' };
  const email = memberEmail('case');
  const path = await invitePath(c.w.stack, c.w.a.session, email, 'viewer');
  const doc = await c.w.stack.mongo.db.collection('invitations').findOne({ email });
  return { path, id: doc!._id.toHexString() };
}

async function joinCall(c: CaseContext): Promise<Call> {
  const { path } = await freshInvitation(c);
  const anon =
    c.host === 'admin' ? await joinForm(c.w.stack, path) : { cookie: '', csrf: 'not-mounted' };
  const password = 'password-123';
  return {
    method: 'POST',
    path,
    headers: { cookie: anon.cookie },
    form: { password, confirm: password, _csrf: knowsCsrf(c.role) ? anon.csrf : '' },
  };
}

async function codeStepCall(c: CaseContext): Promise<Call> {
  const form = await request(`${c.w.stack.urls.admin}/ui/login`, { ca: c.w.stack.ca });
  const raw = form.headers['set-cookie'];
  const anon = (Array.isArray(raw) ? raw[0] : raw)?.split(';')[0] ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
  // No login is pending under this token: whoever sends it gets the "log in again" page.
  const pending = randomBytes(32).toString('base64url');
  return {
    method: 'POST',
    path: '/ui/login/totp',
    headers: { cookie: anon },
    form: { pending, code: '000000', _csrf: knowsCsrf(c.role) ? csrf : '' },
  };
}

export const TEAM_EXPECTATIONS: Readonly<Record<string, Entry>> = {
  'GET /ui/members': {
    judge: pageJudge,
    call: (c) => ({ method: 'GET', path: '/ui/members', headers: cookie(c) }),
  },
  'POST /ui/members/invitations': {
    judge: formJudge,
    call: (c) =>
      form(() => '/ui/members/invitations', { email: memberEmail('inv'), role: 'viewer' })(c),
  },
  'POST /ui/members/invitations/:id/revoke': {
    judge: formJudge,
    call: form(async (c) => `/ui/members/invitations/${(await freshInvitation(c)).id}/revoke`),
  },
  'POST /ui/members/:id/role': {
    judge: formJudge,
    // The spare developer's own role: allowed callers change nothing other cases depend on.
    call: form((c) => `/ui/members/${c.w.members.spareId}/role`, { role: 'developer' }),
  },
  'POST /ui/members/:id/remove': {
    judge: formJudge,
    call: form(async (c) => {
      if (c.host !== 'admin') return `/ui/members/${c.w.members.spareId}/remove`;
      const target = await newMember(c.w.stack, c.w.a.session, 'developer');
      return `/ui/members/${target.id}/remove`;
    }),
  },
  'GET /ui/join/:token': {
    judge: publicJudge,
    call: (c) => ({ method: 'GET', path: c.w.members.joinPath, headers: cookie(c) }),
  },
  'POST /ui/join/:token': { judge: formJudge, call: joinCall },
  // Each signed-in role's password is PASSWORD (world.ts, world-members.ts): issue 31 asks it.
  'POST /ui/account/totp': {
    judge: formJudge,
    call: form(() => '/ui/account/totp', { password: PASSWORD }),
  },
  'POST /ui/account/totp/confirm': {
    judge: totpJudge,
    call: form(() => '/ui/account/totp/confirm', { code: '000000' }),
  },
  'POST /ui/account/totp/disable': {
    judge: totpJudge,
    call: form(() => '/ui/account/totp/disable', { password: PASSWORD, code: '000000' }),
  },
  'POST /ui/login/totp': { judge: loginJudge, call: codeStepCall },
};
