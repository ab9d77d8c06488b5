/**
 * Web sessions of the access matrix's world, and A's team (issue 20, docs/teams.md): A's owner
 * invites an admin, a developer, a viewer and a spare developer through the members page; each
 * joins by the link and signs in with their own email. One more invitation stays pending.
 */
import { request, type Reply } from '../../helpers/http';
import type { TestStack } from '../../helpers/stack';
import { must } from './world-parts';

export const PASSWORD = 'password-123';

export interface WebSession {
  readonly cookie: string;
  readonly csrf: string;
}

const setCookies = (reply: Reply): string[] => {
  const raw = reply.headers['set-cookie'] ?? [];
  return Array.isArray(raw) ? raw : [raw];
};
const pair = (setCookie: string) => setCookie.split(';')[0] ?? '';
export const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Signs in through the login form; returns the session cookie and the session's CSRF token. */
export async function signIn(stack: TestStack, email: string): Promise<WebSession> {
  const form = await request(`${stack.urls.admin}/ui/login`, { ca: stack.ca });
  const anonCookie = pair(setCookies(form)[0] ?? '');
  const login = must(
    await request(`${stack.urls.admin}/ui/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: anonCookie },
      body: new URLSearchParams({ email, password: PASSWORD, _csrf: csrfIn(form.text) }).toString(),
      ca: stack.ca,
    }),
    303,
    `login of ${email}`,
  );
  const session = setCookies(login).find((c) => c.startsWith('__Host-apkrelay_session='));
  if (!session) throw new Error(`login of ${email} set no session cookie`);
  const cookie = pair(session);
  const apps = must(
    await request(`${stack.urls.admin}/ui/apps`, { headers: { cookie }, ca: stack.ca }),
    200,
    'apps page',
  );
  return { cookie, csrf: csrfIn(apps.text) };
}

let n = 0;
export const memberEmail = (role: string) => `matrix-${role}-${++n}-${Date.now()}@example.com`;

/** `owner` (A's owner's session) invites `email` as `role`: the link's path. */
export async function invitePath(
  stack: TestStack,
  owner: WebSession,
  email: string,
  role: string,
): Promise<string> {
  const reply = must(
    await request(`${stack.urls.admin}/ui/members/invitations`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: owner.cookie },
      body: new URLSearchParams({ email, role, _csrf: owner.csrf }).toString(),
      ca: stack.ca,
    }),
    201,
    `invitation of ${email}`,
  );
  const link = /id="invite-link">([^<]+)</.exec(reply.text)?.[1];
  if (!link) throw new Error(`no link in the invitation of ${email}`);
  return new URL(link).pathname;
}

/** The anonymous cookie and CSRF token of the join form at `path`. */
export async function joinForm(stack: TestStack, path: string) {
  const form = must(await request(`${stack.urls.admin}${path}`, { ca: stack.ca }), 200, path);
  return { cookie: pair(setCookies(form)[0] ?? ''), csrf: csrfIn(form.text) };
}

/** Joins by the link at `path` with PASSWORD. */
export async function joinWith(stack: TestStack, path: string): Promise<void> {
  const { cookie, csrf } = await joinForm(stack, path);
  must(
    await request(`${stack.urls.admin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ password: PASSWORD, confirm: PASSWORD, _csrf: csrf }).toString(),
      ca: stack.ca,
    }),
    303,
    `join by ${path}`,
  );
}

/** A new member of A in `role`: invited, joined; its id. */
export async function newMember(stack: TestStack, owner: WebSession, role: string) {
  const email = memberEmail(role);
  await joinWith(stack, await invitePath(stack, owner, email, role));
  const doc = await stack.mongo.db.collection('members').findOne({ email });
  if (!doc) throw new Error(`${email} did not become a member`);
  return { id: doc._id.toHexString(), email };
}

export async function membersOf(stack: TestStack, owner: WebSession, pkg: string) {
  const signedIn = async (role: string) => {
    const m = await newMember(stack, owner, role);
    return { ...m, session: await signIn(stack, m.email), package: pkg };
  };
  return {
    admin: await signedIn('admin'),
    developer: await signedIn('developer'),
    viewer: await signedIn('viewer'),
    spareId: (await newMember(stack, owner, 'developer')).id,
    joinPath: await invitePath(stack, owner, memberEmail('pending'), 'viewer'),
  };
}
