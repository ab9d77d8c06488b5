/**
 * Devices: registration and heartbeat (JSON), the push stream (server-sent events on the push
 * host), the push-signing public key, and the owner's view and control of installations.
 * Devices authenticate with their account's API key (Bearer, or `apiKey`/`api_key` as PushLink
 * clients send it) plus their device id.
 */
import type { Request, Response } from 'express';
import type { Account } from '../../shared/accounts/types';
import {
  changeInstallationStatus,
  installationCard,
  installationId,
  recordReported,
  registerDevice,
  REGISTER_TEXT,
  reportedChanges,
  UnknownPackageError,
} from '../../shared/devices/store';
import { parseInstallOutcome } from '../../shared/devices/install-outcome';
import { recordReport } from '../../shared/funnel/marks';
import { parseRegistration, type RegistrationInput } from '../../shared/devices/registration-input';
import { publicKeyInfo } from '../../shared/devices/push-signing';
import { AppError } from '../../shared/errors';
import { apiKeyPrincipal, authorize, bearerAuth, currentAccount } from '../auth';
import { audit, statusChange } from '../audit-context';
import type { ApiDeps } from '../deps';
import {
  heartbeatContract,
  installationStatusContract,
  listInstallationsContract,
  showInstallationContract,
  pushKeyContract,
  registerContract,
  streamContract,
} from './contracts';
import { inputOf } from '../request-validation';
import { listInstallations, listingInput } from './installations-list';
import { installationDetail } from './installation-detail';
import { appOf } from '../owned-app';
import { DEVICE_HOSTS, type Route } from '../route-table';
import { STREAM_PATH, streamEndpoint } from '../push/stream-endpoint';

function presentedKey(req: Request): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.header('authorization') ?? '')?.[1];
  const body = (req.body ?? {}) as Record<string, unknown>;
  const fromBody = typeof body.apiKey === 'string' ? body.apiKey : undefined;
  const q = req.query.api_key ?? req.query.apiKey;
  return bearer ?? fromBody ?? (typeof q === 'string' ? q : undefined);
}

/** ApiDeps, with `deviceAuth` checking API keys through the per-process device look-ups. */
export type DeviceDeps = ApiDeps & { readonly deviceAuth: ApiDeps };

/**
 * The account of a device route's key (the account key, or a device key of the registration's
 * package) and the registration; CI tokens and other apps' device keys are refused (403
 * KEY_SCOPE_REFUSED, KEY_APP_REFUSED).
 */
async function device(
  deps: DeviceDeps,
  req: Request,
  res: Response,
): Promise<{ account: Account; input: RegistrationInput; key: string }> {
  const key = presentedKey(req);
  const found = await apiKeyPrincipal(deps.deviceAuth, req, res, key, {
    need: { scope: 'device' },
  });
  if (!found) throw new AppError('UNAUTHENTICATED', { message: REGISTER_TEXT.INVALID_KEY });
  const input = parseRegistration(req.body);
  authorize(found.principal, { scope: 'device', package: input.package });
  return { account: found.account, input, key: key ?? '' };
}

export async function register(deps: DeviceDeps, req: Request, res: Response): Promise<void> {
  const { account, input, key } = await device(deps, req, res);
  const app = await deps.deviceLookups.app(account.id, input.package);
  if (!app) throw new UnknownPackageError();
  const now = deps.now();
  const admitNew = () => deps.registrations.admit(key, app, now.getTime());
  const inst = await registerDevice(deps, account, app, input, now, admitNew);
  // A sighting (version adoption counts installations seen from Redis alone).
  await deps.live.seen(inst, [inst._id.toHexString()], now);
  // The install funnel: what it reports having downloaded and running (once per APK and stage).
  await recordReport(deps.db, inst, inst._id.toHexString(), input, now);
  res.json({
    status: inst.status,
    // Signed notices name the account (format 2): the device checks them against this.
    accountId: account.id,
    deviceId: inst.deviceId,
    heartbeatSeconds: deps.limits.heartbeatSeconds,
    streamUrl: `${deps.publicUrls.push}/api/v2/stream?package=${encodeURIComponent(inst.package)}&deviceId=${encodeURIComponent(inst.deviceId)}`,
  });
}

/**
 * A heartbeat is a sighting (Redis); the installation's document is written only when the
 * device reports something new (hashes, metadata). A fleet beating every 30 s must not make
 * the database read or rewrite documents all the time (shared/devices/store.ts says why). An
 * installation outcome (`lastInstall`) is sent once by the device, so it is always written.
 */
export async function heartbeat(deps: DeviceDeps, req: Request, res: Response): Promise<void> {
  const { account, input } = await device(deps, req, res);
  const outcome = parseInstallOutcome(
    (req.body as { lastInstall?: unknown } | undefined)?.lastInstall,
  );
  const app = { accountId: account.id, package: input.package };
  const id = installationId(account.id, input.package, input.deviceId);
  const card = await installationCard(deps, app, id);
  if (!card)
    throw new AppError('NOT_FOUND', {
      message: 'This device is not registered for this package: register first.',
    });
  const now = deps.now();
  await deps.live.seen(app, [id.toHexString()], now);
  const reported = reportedChanges(card, input);
  const set = outcome ? { ...reported, lastInstall: { ...outcome, reportedAt: now } } : reported;
  // The funnel first: if the document's write fails, the device reports it all again.
  if (set) await recordReport(deps.db, app, id.toHexString(), { ...reported, outcome }, now);
  if (set) await recordReported(deps, app, id, set, now);
  res.json({ status: card.status, heartbeatSeconds: deps.limits.heartbeatSeconds });
}

export async function listAppInstallations(
  deps: ApiDeps,
  req: Request,
  res: Response,
): Promise<void> {
  // The contract checked `status`; the listing reads the query as the web page's does.
  const app = await appOf(deps, res, req);
  res.json(await listInstallations(deps, app, listingInput(req.query)));
}

export async function showInstallation(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const app = await appOf(deps, res, req);
  const detail = await installationDetail(deps, app, String(req.params.deviceId));
  if (!detail) throw new AppError('NOT_FOUND', { message: 'no such installation' });
  res.json(detail);
}

export async function putInstallationStatus(
  deps: ApiDeps,
  req: Request,
  res: Response,
): Promise<void> {
  const { status } = inputOf(installationStatusContract, res).body;
  const app = await appOf(deps, res, req);
  const inst = await changeInstallationStatus(
    deps,
    currentAccount(res),
    app.package,
    String(req.params.deviceId),
    status,
  );
  await audit(deps, req, res, statusChange(app, inst.deviceId, status));
  res.json({ deviceId: inst.deviceId, status: inst.status });
}

export function deviceRoutes(deps: ApiDeps): Route[] {
  const d: DeviceDeps = { ...deps, deviceAuth: { ...deps, accounts: deps.deviceLookups.accounts } };
  const stream = streamEndpoint(deps, deps.deviceLookups);
  const owner = bearerAuth(deps);

  return [
    {
      method: 'post',
      path: '/api/v2/installations',
      hosts: DEVICE_HOSTS,
      access: 'apiKey',
      contract: registerContract,
      handlers: [(req, res) => register(d, req, res)],
    },
    {
      method: 'post',
      path: '/api/v2/heartbeat',
      hosts: DEVICE_HOSTS,
      access: 'apiKey',
      contract: heartbeatContract,
      handlers: [(req, res) => heartbeat(d, req, res)],
    },
    {
      method: 'get',
      path: STREAM_PATH,
      hosts: ['push'],
      access: 'apiKey',
      contract: streamContract,
      // The push listener serves it before Express (api/push/stream-endpoint.ts).
      // Not on web nor admin: a device reaches push_url for push (spec section 8), and
      // registration, on any device host, answers the stream's URL on the push host.
      handlers: [(req, res) => stream(req, res, req)],
    },
    {
      method: 'get',
      path: '/api/v2/push-key',
      hosts: DEVICE_HOSTS,
      access: 'public',
      contract: pushKeyContract,
      handlers: [(_req, res) => void res.json(publicKeyInfo(deps.pushKeys))],
    },
    {
      method: 'get',
      path: '/api/v2/apps/:package/installations',
      hosts: ['admin'],
      access: 'apiKey',
      contract: listInstallationsContract,
      handlers: [owner, (req, res) => listAppInstallations(deps, req, res)],
    },
    {
      method: 'get',
      path: '/api/v2/apps/:package/installations/:deviceId',
      hosts: ['admin'],
      access: 'apiKey',
      contract: showInstallationContract,
      handlers: [owner, (req, res) => showInstallation(deps, req, res)],
    },
    {
      method: 'put',
      path: '/api/v2/apps/:package/installations/:deviceId',
      hosts: ['admin'],
      access: 'apiKey',
      contract: installationStatusContract,
      handlers: [owner, (req, res) => putInstallationStatus(deps, req, res)],
    },
  ];
}
