/**
 * The owner's device keys and CI tokens (docs/keys.md): list, create (the secret is answered once,
 * here), revoke; and the switch restricting the account key to the device routes. Account key
 * (unrestricted) only: device keys and CI tokens manage nothing.
 */
import type { Request, Response } from 'express';
import { auditContext } from '../audit-context';
import { currentAccount } from '../auth';
import type { ApiDeps } from '../deps';
import {
  apiKeyRestrictionContract,
  createKeyContract,
  listKeysContract,
  revokeKeyContract,
} from './key-contracts';
import { inputOf } from '../request-validation';
import type { Route } from '../route-table';
import { ownerRoute } from '../owner-route';

export async function listKeys(deps: ApiDeps, _req: Request, res: Response): Promise<void> {
  res.json({ keys: await deps.accounts.accessKeys.list(currentAccount(res).id) });
}

export async function createKey(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const { key, secret } = await deps.accounts.accessKeys.create(
    currentAccount(res).id,
    { kind: body.kind, name: body.name, apps: body.apps },
    auditContext(req, res),
  );
  res.status(201).json({ ...key, secret });
}

export async function revokeKey(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const id = String(req.params.id);
  res.json(
    await deps.accounts.accessKeys.revoke(currentAccount(res).id, id, auditContext(req, res)),
  );
}

export async function putApiKeyRestriction(
  deps: ApiDeps,
  req: Request,
  res: Response,
): Promise<void> {
  const { deviceOnly } = inputOf(apiKeyRestrictionContract, res).body;
  await deps.accounts.setApiKeyDeviceOnly(
    currentAccount(res).id,
    deviceOnly,
    auditContext(req, res),
  );
  res.json({ deviceOnly });
}

export function keyRoutes(deps: ApiDeps): Route[] {
  const route = ownerRoute(deps);
  return [
    route('get', '/api/v2/account/keys', listKeysContract, listKeys),
    route('post', '/api/v2/account/keys', createKeyContract, createKey),
    route('delete', '/api/v2/account/keys/:id', revokeKeyContract, revokeKey),
    route(
      'put',
      '/api/v2/account/api-key-restriction',
      apiKeyRestrictionContract,
      putApiKeyRestriction,
    ),
  ];
}
