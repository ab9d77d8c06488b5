/**
 * A JSON route the account's owner calls on the admin host with the account key (`bearerAuth`,
 * default need MANAGE: device keys and CI tokens are refused). Shared by the key and webhook routes.
 */
import type { Request, Response } from 'express';
import { bearerAuth } from './auth';
import type { ApiDeps } from './deps';
import type { RouteContract } from './route-contract';
import type { Route } from './route-table';

export function ownerRoute(deps: ApiDeps) {
  const auth = bearerAuth(deps);
  return (
    method: Route['method'],
    path: string,
    contract: RouteContract,
    handler: (deps: ApiDeps, req: Request, res: Response) => Promise<void>,
  ): Route => ({
    method,
    path,
    hosts: ['admin'],
    access: 'apiKey',
    contract,
    handlers: [auth, (req, res) => handler(deps, req, res)],
  });
}
