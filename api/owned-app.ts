/** The app a Bearer-authenticated owner names in the path (`:package`), or a 404. */
import type { Request, Response } from 'express';
import { findApp } from '../shared/catalog/queries';
import type { AppDoc } from '../shared/catalog/types';
import { AppError } from '../shared/errors';
import { currentAccount } from './auth';
import type { ApiDeps } from './deps';

export async function appOf(deps: ApiDeps, res: Response, req: Request): Promise<AppDoc> {
  const app = await findApp(deps.db, currentAccount(res).id, String(req.params.package));
  if (!app) throw new AppError('NOT_FOUND', { message: 'no such app' });
  return app;
}
