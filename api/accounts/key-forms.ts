/**
 * The account page's forms for device keys and CI tokens (docs/keys.md): create (the page answers
 * 201 with the secret, shown once), revoke, and the account key's device-only switch. The same
 * use-cases as the JSON API (deps.accounts.accessKeys, setApiKeyDeviceOnly).
 */
import type { Request, Response } from 'express';
import { totpEnabled, userKey } from '../../shared/accounts/totp-factors';
import { AppError } from '../../shared/errors';
import { auditContext } from '../audit-context';
import type { ApiDeps } from '../deps';
import type { KeysState } from './key-views';
import { accountPage, type AccountPageState } from './web-views';
import { sendPage, viewerOfSession } from '../apps/web-pages';

const field = (req: Request, name: string): string => {
  const value = ((req.body ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
};

export async function keysStateOf(deps: ApiDeps, accountId: string): Promise<KeysState> {
  return {
    keys: await deps.accounts.accessKeys.list(accountId),
    deviceOnly: await deps.accounts.apiKeyDeviceOnly(accountId),
    now: deps.now(),
  };
}

/** The account page, with its keys section, at `status`. */
export async function sendAccountPage(
  deps: ApiDeps,
  res: Response,
  status: number,
  state: Omit<AccountPageState, 'keys'> & { created?: KeysState['created'] },
): Promise<void> {
  const viewer = await viewerOfSession(deps, res);
  const keys = { ...(await keysStateOf(deps, viewer.account.id)), created: state.created ?? null };
  const totp = await totpEnabled(deps.db, userKey(viewer.account.id, viewer.user.memberId));
  sendPage(res, status, accountPage(viewer, { ...state, keys, totp }));
}

export async function createKeyForm(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const viewer = await viewerOfSession(deps, res);
  const apps = field(req, 'apps')
    .split(/[\s,]+/)
    .filter((a) => a.length > 0);
  try {
    const { key, secret } = await deps.accounts.accessKeys.create(
      viewer.account.id,
      { kind: field(req, 'kind'), name: field(req, 'name'), apps },
      auditContext(req, res),
    );
    await sendAccountPage(deps, res, 201, { created: { name: key.name, secret } });
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'VALIDATION_FAILED')) throw err;
    await sendAccountPage(deps, res, 400, { problem: err.message });
  }
}

export async function revokeKeyForm(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const viewer = await viewerOfSession(deps, res);
  try {
    await deps.accounts.accessKeys.revoke(
      viewer.account.id,
      String(req.params.id),
      auditContext(req, res),
    );
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
    await sendAccountPage(deps, res, 404, { problem: 'No such key or token.' });
    return;
  }
  res.redirect(303, '/ui/account');
}

export async function restrictionForm(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const viewer = await viewerOfSession(deps, res);
  const deviceOnly = field(req, 'deviceOnly');
  if (deviceOnly !== 'true' && deviceOnly !== 'false') {
    await sendAccountPage(deps, res, 400, { problem: 'deviceOnly must be true or false.' });
    return;
  }
  const ctx = auditContext(req, res);
  await deps.accounts.setApiKeyDeviceOnly(viewer.account.id, deviceOnly === 'true', ctx);
  res.redirect(303, '/ui/account');
}
