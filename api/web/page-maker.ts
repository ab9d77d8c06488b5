/**
 * How a web administration page becomes a route (api/web/routes.ts): admin host, secure headers,
 * and for a signed-in page the session check and the ONE guard of its need: every page names
 * either `public` or the scope its user's role must hold (shared/accounts/principal.ts), so a new
 * page cannot forget it. Reads need `read`; each form its own scope (docs/teams.md).
 */
import type { RequestHandler } from 'express';
import type { Scope } from '../../shared/accounts/principal';
import { formBody } from '../body-parsers';
import type { RouteContract } from '../route-contract';
import type { Route } from '../route-table';
import { ANON_CSRF_COOKIE, cookieOf, requireScope, sameToken } from './sessions';

const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const secureHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/** A urlencoded form body (16 KiB at most). */
export const form = formBody(16 * 1024);

/** The pre-session forms: the `_csrf` field must equal the double-submit cookie. */
export const anonymousCsrfCheck: RequestHandler = (req, res, next) => {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (!sameToken(body._csrf, cookieOf(req, ANON_CSRF_COOKIE) ?? '')) {
    res.status(403).type('text/plain').send('Missing or wrong CSRF token.');
    return;
  }
  next();
};

/** Makes one page's route; `need`: `public`, or the scope a signed-in user's role must hold. */
export type Page = (
  method: Route['method'],
  path: string,
  need: 'public' | Scope,
  contract: RouteContract,
  ...handlers: RequestHandler[]
) => Route;

export function pageMaker(session: RequestHandler): Page {
  return (method, path, need, contract, ...handlers) => ({
    method,
    path,
    hosts: ['admin'],
    access: need === 'public' ? 'public' : 'session',
    contract,
    handlers: [
      secureHeaders,
      ...(need === 'public' ? [] : [session, requireScope(need)]),
      ...handlers,
    ],
  });
}
