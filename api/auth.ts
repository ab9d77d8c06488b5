/**
 * Authentication of the JSON API and of every route that takes an API key: `bearerAuth` for
 * `Authorization: Bearer <apiKey>`, `apiKeyAccount` for keys presented elsewhere (PushLink form
 * fields and query parameters). A failed key is counted by the failed-auth throttle
 * (shared/accounts/auth-throttle.ts); past its limits the failure is 429 AUTH_RATE_LIMITED with
 * Retry-After instead of 401. A valid key is never refused by the throttle.
 */
import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Authenticated } from '../shared/accounts/service';
import { decide, type Need, type Principal } from '../shared/accounts/principal';
import type { Account } from '../shared/accounts/types';
import { AppError, coerceError } from '../shared/errors';
import type { ApiDeps } from './deps';

type AuthDeps = Pick<ApiDeps, 'accounts' | 'authThrottle' | 'now' | 'log'>;

/**
 * What the throttle needs of a request: Express's `req.ip` (the client address as the trusted
 * proxies report it, TRUST_PROXY), else the socket's peer. The push stream, served without
 * Express, sets `ip` itself.
 */
export interface ClientView {
  readonly ip?: string | undefined;
  readonly socket: { readonly remoteAddress?: string | undefined };
}

/** The client address as the trusted proxies (TRUST_PROXY) report it. */
export function clientAddress(req: ClientView): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * Counts a failed authentication with `presented`; throws AUTH_RATE_LIMITED (Retry-After set on
 * `res`) when this client or this key is past its limit. A throttle outage is logged and ignored.
 */
export async function noteAuthFailure(
  deps: AuthDeps,
  req: ClientView,
  res: Pick<ServerResponse, 'setHeader'>,
  presented: string,
): Promise<void> {
  let waitMs = 0;
  try {
    waitMs = await deps.authThrottle.failed(
      { address: clientAddress(req), presented },
      deps.now().getTime(),
    );
  } catch (err) {
    deps.log.warn({ err: coerceError(err) }, 'failed-auth throttle unavailable');
  }
  if (waitMs > 0) refuseFor(res, 'AUTH_RATE_LIMITED', waitMs);
}

/** A throttle's refusal: Retry-After (whole seconds, at least 1) on `res`, and `code` thrown. */
export function refuseFor(
  res: Pick<ServerResponse, 'setHeader'>,
  code: 'AUTH_RATE_LIMITED' | 'SIGNUP_RATE_LIMITED',
  waitMs: number,
): never {
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  res.setHeader('Retry-After', String(retryAfterSeconds));
  throw new AppError(code, { details: { retryAfterSeconds } });
}

/** A valid key of a kind (or app) the route does not take: the plain-text routes answer 403. */
export function isKeyRefused(err: unknown): err is AppError {
  return (
    err instanceof AppError && (err.code === 'KEY_SCOPE_REFUSED' || err.code === 'KEY_APP_REFUSED')
  );
}

export function isAuthRateLimited(err: unknown): err is AppError {
  return err instanceof AppError && err.code === 'AUTH_RATE_LIMITED';
}

/** What an owner's route needs unless it says otherwise: everything but device keys and CI tokens. */
export const MANAGE: Need = { scope: 'manage' };

/** Throws KEY_SCOPE_REFUSED or KEY_APP_REFUSED (403) unless `principal` may do what `need` asks. */
export function authorize(principal: Principal, need: Need): void {
  const decision = decide(principal, need);
  if (!decision.allow) throw new AppError(decision.code);
}

interface KeyOptions {
  readonly countMissing?: boolean;
  /** What the route needs of the key (shared/accounts/principal.ts); default MANAGE. */
  readonly need?: Need;
}

/**
 * The account and principal of a presented key or token allowed `need`, or null (nothing
 * presented, or a wrong key under the limits); throws AUTH_RATE_LIMITED for a wrong key past them,
 * and KEY_SCOPE_REFUSED/KEY_APP_REFUSED for a valid key of a kind the route does not take. With
 * `countMissing` (the upload routes) nothing presented is counted as a failure too: a client that
 * sends files without a key must meet the throttle as one with a wrong key does.
 */
export async function apiKeyPrincipal(
  deps: AuthDeps,
  req: ClientView,
  res: Pick<ServerResponse, 'setHeader'>,
  presented: string | undefined,
  options: KeyOptions = {},
): Promise<Authenticated | null> {
  if (!presented) {
    if (options.countMissing) await noteAuthFailure(deps, req, res, '');
    return null;
  }
  const found = await deps.accounts.authenticateKey(presented);
  if (!found) {
    await noteAuthFailure(deps, req, res, presented);
    return null;
  }
  authorize(found.principal, options.need ?? MANAGE);
  return found;
}

/** `apiKeyPrincipal`'s account. */
export async function apiKeyAccount(
  deps: AuthDeps,
  req: ClientView,
  res: Pick<ServerResponse, 'setHeader'>,
  presented: string | undefined,
  options: KeyOptions = {},
): Promise<Account | null> {
  return (await apiKeyPrincipal(deps, req, res, presented, options))?.account ?? null;
}

/** The key of an `Authorization: Bearer <apiKey>` header, if the request has one. */
export function bearerKey(req: { header(name: string): string | undefined }): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '')?.[1];
}

/**
 * Bearer authentication of a route that needs `need` (default MANAGE; a function of the request for
 * routes naming their app in the path). Sets `res.locals.account` and `res.locals.principal`.
 */
export function bearerAuth(
  deps: AuthDeps,
  options: {
    readonly countMissing?: boolean;
    readonly need?: Need | ((req: Request) => Need);
  } = {},
): RequestHandler {
  return async (req, res, next) => {
    const need = typeof options.need === 'function' ? options.need(req) : options.need;
    const found = await apiKeyPrincipal(deps, req, res, bearerKey(req), {
      countMissing: options.countMissing === true,
      need: need ?? MANAGE,
    });
    if (!found) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="apkrelay"');
      throw new AppError('UNAUTHENTICATED');
    }
    res.locals.account = found.account;
    res.locals.principal = found.principal;
    next();
  };
}

/** The need of a route acting on the app its path names (`:package`). */
export function appNeed(scope: Need['scope']): (req: Request) => Need {
  return (req) => ({ scope, package: String(req.params.package) });
}

/** The principal `bearerAuth` decided on. */
export function currentPrincipal(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new AppError('UNAUTHENTICATED');
  return principal;
}

/** Bearer API key of an account with the `operator` role (queue board); others get 403. */
export function operatorAuth(deps: AuthDeps): RequestHandler[] {
  return [
    bearerAuth(deps),
    (_req, res, next) => {
      if (!currentAccount(res).roles.includes('operator')) {
        throw new AppError('FORBIDDEN', { message: 'operator accounts only' });
      }
      next();
    },
  ];
}

export function currentAccount(res: Response): Account {
  const account = res.locals.account as Account | undefined;
  if (!account) throw new AppError('UNAUTHENTICATED');
  return account;
}
