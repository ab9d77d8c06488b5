/**
 * PushLink-compatible reads (on every host devices reach): `GET /download` streams the device's
 * target APK (the current one, or a rollout's: docs/rollouts.md);
 * `GET /apps/api_list_json` describes the app, its APKs and optionally one installation.
 * Errors are short plain text (download; legacy clients log the body) or the JSON error shape.
 */
import type { Request, Response } from 'express';
import type { Account } from '../../shared/accounts/types';
import { ObjectId } from 'mongodb';
import { apksOf, findApp, versionCodeOf } from '../../shared/catalog/queries';
import { isAhead } from '../../shared/devices/decide';
import { loadTargets, refOf, targetApk } from '../../shared/rollouts/targets';
import { presentApk } from '../../shared/catalog/present';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import {
  installationCard,
  installationId,
  installationSeen,
  recordDownload,
} from '../../shared/devices/store';
import type { InstallationDoc } from '../../shared/devices/types';
import { AppError } from '../../shared/errors';
import { recordMarks } from '../../shared/funnel/marks';
import { apiKeyAccount, isAuthRateLimited, isKeyRefused } from '../auth';
import type { ApiDeps } from '../deps';
import { sendApk } from './send-apk';
import { offloadApk } from './offload-reply';
import { legacyDownloadContract, legacyListContract } from './contracts';
import { DEVICE_HOSTS, type Route } from '../route-table';
import { sendText } from '../text-reply';

/** A query parameter, with an empty value counting as absent (PushLink clients send `x=`). */
export function param(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export const DOWNLOAD_TEXT = {
  INVALID_KEY: 'Download failed: Invalid API Key.',
  UNKNOWN_PACKAGE: 'Download failed: Invalid Package. You probably never uploaded this app.',
  NO_CURRENT: 'Download failed: this app has no current APK yet.',
  DISABLED:
    'Download failed: this installation is disabled (plan quantity of installations reached).',
  THROTTLED: 'Download failed: too many failed API key attempts; retry later.',
} as const;

/**
 * The account of the `api_key` parameter (the account key or a device key of `pkg`), or null once a
 * 401, 403 or 429 reply is sent. Looked up through the device routes' 5 s cache
 * (shared/devices/lookups.ts): a fleet's downloads present the same key.
 */
export async function downloadAccount(deps: ApiDeps, req: Request, res: Response, pkg: string) {
  let account: Account | null;
  const auth = { ...deps, accounts: deps.deviceLookups.accounts };
  try {
    account = await apiKeyAccount(auth, req, res, param(req, 'api_key'), {
      need: { scope: 'device', package: pkg },
    });
  } catch (err) {
    if (isKeyRefused(err)) {
      sendText(res, 403, `Download failed: ${err.message}`);
      return null;
    }
    if (!isAuthRateLimited(err)) throw err;
    sendText(res, 429, DOWNLOAD_TEXT.THROTTLED);
    return null;
  }
  if (!account) sendText(res, 401, DOWNLOAD_TEXT.INVALID_KEY);
  return account;
}

/**
 * Notes that installation `deviceId` fetches `apk`; false once a 403 reply is sent (the
 * installation is disabled). The status from the installation's card (Redis), as push and
 * heartbeat read it, not from the document (shared/devices/store.ts says why).
 */
export async function noteDownload(
  deps: ApiDeps,
  res: Response,
  app: AppDoc,
  deviceId: string,
  apk: ApkDoc,
): Promise<boolean> {
  const id = installationId(app.accountId, app.package, deviceId);
  const card = await installationCard(deps, app, id);
  if (card?.status === 'disabled') {
    sendText(res, 403, DOWNLOAD_TEXT.DISABLED);
    return false;
  }
  if (card && card.lastDownloadedMd5 !== apk.md5) {
    // The update funnel: this installation fetched this APK. Once per APK (resumes and
    // repeats write nothing), and the card kept in step, so the heartbeat that reports the
    // same hash next writes nothing either. The funnel's mark first: if the document's write
    // fails, the next download records both.
    // An installation ahead of this APK (it runs a higher versionCode: never offered it) is not
    // counted by its funnel (docs/funnel.md); what it fetched is still kept on its card.
    const at = deps.now();
    const mark = { installation: id.toHexString(), md5: apk.md5, stage: 'downloaded', at } as const;
    const installed = card.installedMd5
      ? await versionCodeOf(deps.db, app, card.installedMd5)
      : null;
    if (!isAhead(refOf(apk), installed)) await recordMarks(deps.db, app, [mark]);
    await recordDownload(deps, app, id, apk.md5, at);
  }
  return true;
}

/**
 * The APK a download serves: the device's target (inside a rollout, the rollout's APK: the same
 * selection as the push hub's, shared/rollouts/targets.ts), or the current APK without a device id.
 * The app and its rollout are read fresh (a deploy or a halt holds for the next download); the
 * APK documents they name come from the device lookups' cache, as they never change.
 */
async function apkFor(deps: ApiDeps, app: AppDoc, deviceId: string | undefined) {
  const apk = (id: ObjectId) => deps.deviceLookups.apk(app.accountId, id);
  if (!deviceId) return app.currentApkId ? apk(app.currentApkId) : null;
  const loaded = await loadTargets(deps.db, app, (id) => apk(new ObjectId(id)));
  const card = await installationCard(
    deps,
    app,
    installationId(app.accountId, app.package, deviceId),
  );
  return targetApk(loaded, {
    deviceId,
    installedMd5: card?.installedMd5 ?? null,
    metadata: card?.metadata ?? [],
  });
}

export async function download(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const pkg = param(req, 'package');
  const account = await downloadAccount(deps, req, res, pkg ?? '');
  if (!account) return;
  const app = pkg ? await findApp(deps.db, account.id, pkg) : null;
  if (!app) return sendText(res, 404, DOWNLOAD_TEXT.UNKNOWN_PACKAGE);
  const deviceId = param(req, 'deviceId');
  const apk = await apkFor(deps, app, deviceId);
  if (!apk) return sendText(res, 404, DOWNLOAD_TEXT.NO_CURRENT);
  if (deviceId && !(await noteDownload(deps, res, app, deviceId, apk))) return;
  const { offload } = deps;
  if (offload) await offloadApk(req, res, apk, { ...deps, offload });
  else await sendApk(req, res, apk, deps);
}

function presentInstallation(
  deviceId: string,
  installation: { doc: InstallationDoc; lastSeenAt: Date },
) {
  return {
    deviceId,
    status: installation.doc.status,
    installedHash: installation.doc.installedMd5,
    lastDownloadedHash: installation.doc.lastDownloadedMd5,
    lastSeenAt: installation.lastSeenAt.toISOString(),
  };
}

export async function listJson(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const pkg = param(req, 'packageName');
  const account = await apiKeyAccount(deps, req, res, param(req, 'apiKey'), {
    need: { scope: 'device', package: pkg ?? '' },
  });
  if (!account) throw new AppError('UNAUTHENTICATED', { message: 'Invalid API key.' });
  const app = pkg ? await findApp(deps.db, account.id, pkg) : null;
  if (!app)
    throw new AppError('NOT_FOUND', {
      message: 'Invalid package: you probably never uploaded this app.',
    });
  const apks = await apksOf(deps.db, app);
  const current = app.currentApkId;
  const deviceId = param(req, 'deviceId');
  const installation = deviceId ? await installationSeen(deps, app, deviceId) : null;
  res.json({
    package: app.package,
    label: app.label,
    signerSha256: app.signerSha256,
    currentVersion: app.currentVersion,
    apks: apks.map((apk) => ({ ...presentApk(apk), current: current?.equals(apk._id) ?? false })),
    ...(deviceId
      ? {
          installation: installation ? presentInstallation(deviceId, installation) : null,
        }
      : {}),
  });
}

export function downloadRoutes(deps: ApiDeps): Route[] {
  return [
    {
      method: 'get',
      path: '/download',
      hosts: DEVICE_HOSTS,
      access: 'apiKey',
      contract: legacyDownloadContract,
      handlers: [(req, res) => download(deps, req, res)],
    },
    {
      method: 'get',
      path: '/apps/api_list_json',
      hosts: DEVICE_HOSTS,
      access: 'apiKey',
      contract: legacyListContract,
      handlers: [(req, res) => listJson(deps, req, res)],
    },
  ];
}
