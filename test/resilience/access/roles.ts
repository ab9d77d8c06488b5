/**
 * The roles of the access matrix and what each one holds (issue 20 adds A's team members: an
 * admin, a developer and a viewer, each signed in with their own email). What each role is expected to get from
 * each route is written by hand in matrix.tsv, never derived from the route's declared `access`.
 */
import { METRICS_TOKEN, type Member, type Principal, type WebSession, type World } from './world';

export const ROLES = [
  'anonymous',
  'device',
  'ownerA',
  'ownerB',
  'operator',
  'scraper',
  'forgedForm',
  'deviceKey',
  'ciToken',
  'ciOther',
  'adminA',
  'developerA',
  'viewerA',
] as const;
export type Role = (typeof ROLES)[number];

/** Issue 20's team members of A: web sessions only, with their own email and password. */
export const MEMBER_ROLES: readonly Role[] = ['adminA', 'developerA', 'viewerA'];

/**
 * `allow`: the route did its work for the caller. The denials say how: `unauthenticated` (401, a
 * redirect to the login page, "sign in first"), `forbidden` (403: authenticated, not allowed),
 * `notFound` (404 that does not tell another account's resource from a missing one),
 * `methodNotAllowed` (405: the queue board refuses a write).
 */
export type Outcome = 'allow' | 'unauthenticated' | 'forbidden' | 'notFound' | 'methodNotAllowed';

/** The API key (or whatever stands in its place) a role presents; undefined: nothing. */
export function keyOf(w: World, role: Role): string | undefined {
  switch (role) {
    case 'anonymous':
      return undefined;
    // In PushLink's model the app embeds the account's API key: the device holds A's key.
    case 'device':
    case 'ownerA':
      return w.a.apiKey;
    case 'ownerB':
      return w.b.apiKey;
    case 'operator':
      return w.operator.apiKey;
    // The scraper holds METRICS_TOKEN only, and presents it wherever a credential goes.
    case 'scraper':
      return METRICS_TOKEN;
    // A form another site makes A's browser send: A's cookies ride along, nothing else does.
    case 'forgedForm':
      return undefined;
    // Issue 20's key kinds: a device key of A's app, a CI token of A's app, and a CI token of
    // another app of A (refused for A's app like any other non-upload route).
    case 'deviceKey':
      return w.a.deviceKey;
    case 'ciToken':
      return w.a.ciToken;
    case 'ciOther':
      return w.a.ciOther;
    // Team members sign in to the web administration; they hold no API key.
    case 'adminA':
    case 'developerA':
    case 'viewerA':
      return undefined;
  }
}

/** Whether a role can put the right CSRF token in its forms (a forged cross-site form cannot). */
export function knowsCsrf(role: Role): boolean {
  return role !== 'forgedForm';
}

/**
 * The user a role signs in as (web session); devices and scrapers have none. A's members sign in
 * with their own email to A's account (their `package` is A's).
 */
export function accountOf(w: World, role: Role): Principal | Member | undefined {
  if (role === 'ownerA' || role === 'forgedForm') return w.a;
  if (role === 'ownerB') return w.b;
  if (role === 'operator') return w.operator;
  if (role === 'adminA') return w.members.admin;
  if (role === 'developerA') return w.members.developer;
  if (role === 'viewerA') return w.members.viewer;
  return undefined;
}

export function sessionOf(w: World, role: Role): WebSession | undefined {
  return accountOf(w, role)?.session;
}
