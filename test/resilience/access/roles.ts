/**
 * The roles of the access matrix, what each one holds, and what each one is expected to get from
 * a route by default given the route's declared `access` (api/route-table.ts). Entries of the
 * matrix (expectations.ts) override a role only with a reason.
 */
import type { Access } from '../../../api/route-table';
import { METRICS_TOKEN, type Principal, type WebSession, type World } from './world';

export const ROLES = [
  'anonymous',
  'device',
  'ownerA',
  'ownerB',
  'operator',
  'scraper',
  'forgedForm',
] as const;
export type Role = (typeof ROLES)[number];

/**
 * `allow`: the route did its work for the caller. The denials say how: `unauthenticated` (401, a
 * redirect to the login page, "sign in first"), `forbidden` (403: authenticated, not allowed),
 * `notFound` (404 that does not tell another account's resource from a missing one).
 */
export type Outcome = 'allow' | 'unauthenticated' | 'forbidden' | 'notFound';

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
  }
}

/** Whether a role can put the right CSRF token in its forms (a forged cross-site form cannot). */
export function knowsCsrf(role: Role): boolean {
  return role !== 'forgedForm';
}

/** The account a role signs in as (web session); devices and scrapers have none. */
export function accountOf(w: World, role: Role): Principal | undefined {
  if (role === 'ownerA' || role === 'forgedForm') return w.a;
  if (role === 'ownerB') return w.b;
  if (role === 'operator') return w.operator;
  return undefined;
}

export function sessionOf(w: World, role: Role): WebSession | undefined {
  return accountOf(w, role)?.session;
}

/** What each role gets by default from a route of this access class and method. */
export function defaultOutcomes(
  access: Access | 'operator',
  method: string,
): Record<Role, Outcome> {
  // A forged form carries A's session cookie but no CSRF token: signed-in pages read fine (the
  // other site cannot see them: CSP frame-ancestors, no CORS), every form is refused.
  const forged: Outcome =
    access === 'public' || (access === 'session' && method === 'get') ? 'allow' : 'unauthenticated';
  return {
    ...byAccess(access),
    forgedForm: access === 'session' && method !== 'get' ? 'forbidden' : forged,
  };
}

function byAccess(access: Access | 'operator'): Omit<Record<Role, Outcome>, 'forgedForm'> {
  switch (access) {
    case 'public':
      return {
        anonymous: 'allow',
        device: 'allow',
        ownerA: 'allow',
        ownerB: 'allow',
        operator: 'allow',
        scraper: 'allow',
      };
    // A's resources: A's key opens them (whoever holds it: the owner or any of A's devices);
    // another account's key finds nothing there.
    case 'apiKey':
      return {
        anonymous: 'unauthenticated',
        device: 'allow',
        ownerA: 'allow',
        ownerB: 'notFound',
        operator: 'notFound',
        scraper: 'unauthenticated',
      };
    case 'session':
      return {
        anonymous: 'unauthenticated',
        device: 'unauthenticated',
        ownerA: 'allow',
        ownerB: 'notFound',
        operator: 'notFound',
        scraper: 'unauthenticated',
      };
    case 'metricsToken':
      return {
        anonymous: 'unauthenticated',
        device: 'unauthenticated',
        ownerA: 'unauthenticated',
        ownerB: 'unauthenticated',
        operator: 'unauthenticated',
        scraper: 'allow',
      };
    case 'operator':
      return {
        anonymous: 'unauthenticated',
        device: 'forbidden',
        ownerA: 'forbidden',
        ownerB: 'forbidden',
        operator: 'allow',
        scraper: 'unauthenticated',
      };
  }
}
