/**
 * Authentication of the JSON API and of every route that takes an API key: `bearerAuth` for
 * `Authorization: Bearer <apiKey>`, `apiKeyAccount` for keys presented elsewhere (PushLink form
 * fields and query parameters). A failed key is counted by the failed-auth throttle
 * (shared/accounts/auth-throttle.ts); past its limits the failure is 429 AUTH_RATE_LIMITED with
 * Retry-After instead of 401. A valid key is never refused by the throttle.
 */
import type { ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
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

export function isAuthRateLimited(err: unknown): err is AppError {
  return err instanceof AppError && err.code === 'AUTH_RATE_LIMITED';
}

/**
 * The account of a presented API key, or null (nothing presented, or a wrong key under the
 * limits); throws AUTH_RATE_LIMITED for a wrong key past them. With `countMissing` (the upload
 * routes) nothing presented is counted as a failure too: a client that sends files without a key
 * must meet the throttle as one with a wrong key does.
 */
export async function apiKeyAccount(
  deps: AuthDeps,
  req: ClientView,
  res: Pick<ServerResponse, 'setHeader'>,
  presented: string | undefined,
  options: { readonly countMissing?: boolean } = {},
): Promise<Account | null> {
  if (!presented) {
    if (options.countMissing) await noteAuthFailure(deps, req, res, '');
    return null;
  }
  const account = await deps.accounts.authenticateApiKey(presented);
  if (!account) await noteAuthFailure(deps, req, res, presented);
  return account;
}

/** The key of an `Authorization: Bearer <apiKey>` header, if the request has one. */
export function bearerKey(req: { header(name: string): string | undefined }): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '')?.[1];
}

export function bearerAuth(
  deps: AuthDeps,
  options: { readonly countMissing?: boolean } = {},
): RequestHandler {
  return async (req, res, next) => {
    const account = await apiKeyAccount(deps, req, res, bearerKey(req), options);
    if (!account) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="apkrelay"');
      throw new AppError('UNAUTHENTICATED');
    }
    res.locals.account = account;
    next();
  };
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
