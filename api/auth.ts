/** API-key authentication for the JSON API: `Authorization: Bearer <apiKey>`. */
import type { RequestHandler, Response } from 'express';
import type { Account } from '../shared/accounts/types';
import { AppError } from '../shared/errors';
import type { ApiDeps } from './deps';

export function bearerAuth(deps: Pick<ApiDeps, 'accounts'>): RequestHandler {
  return async (req, res, next) => {
    const header = req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const account = match?.[1] ? await deps.accounts.authenticateApiKey(match[1]) : null;
    if (!account) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="apkrelay"');
      throw new AppError('UNAUTHENTICATED');
    }
    res.locals.account = account;
    next();
  };
}

/** Bearer API key of an account with the `operator` role (queue board); others get 403. */
export function operatorAuth(deps: Pick<ApiDeps, 'accounts'>): RequestHandler[] {
  return [
    bearerAuth(deps),
    (_req, res, next) => {
      if (!currentAccount(res).roles.includes('operator')) {
        throw new AppError('FORBIDDEN', 'operator accounts only');
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
