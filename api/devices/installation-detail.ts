/**
 * One installation's page and `GET /api/v2/apps/{package}/installations/{deviceId}`: the
 * installation as its list row shows it (ahead or not, as installations-list.ts tells), its
 * history from the install funnel's marks (each version offered, downloaded, installed, or failed
 * with the OS's status and message), its last install outcome, and the crash reports it sent.
 */
import { ObjectId } from 'mongodb';
import { apkById, apksOf } from '../../shared/catalog/queries';
import type { AppDoc } from '../../shared/catalog/types';
import { isAhead } from '../../shared/devices/decide';
import { presentInstallation } from '../../shared/devices/listing';
import { installationSeen } from '../../shared/devices/store';
import { reportsOfDevice } from '../../shared/exceptions/owner-queries';
import { presentReportLine } from '../../shared/exceptions/present';
import { marksOfInstallation } from '../../shared/funnel/marks';
import { targetFor } from '../../shared/rollouts/target';
import { loadTargets } from '../../shared/rollouts/targets';
import type { ApiDeps } from '../deps';

/** How many of the device's reports its page lists, newest first. */
export const DEVICE_REPORTS_SHOWN = 100;

export async function installationDetail(deps: ApiDeps, app: AppDoc, deviceId: string) {
  const scope = { accountId: app.accountId, package: app.package };
  const seen = await installationSeen(deps, scope, deviceId);
  if (!seen) return null;
  const id = seen.doc._id.toHexString();
  const [apks, loaded, offer, marks, reports] = await Promise.all([
    apksOf(deps.db, app),
    loadTargets(deps.db, app, (apk) => apkById(deps.db, app.accountId, new ObjectId(apk))),
    deps.live.offer(scope, id),
    marksOfInstallation(deps.db, scope, id),
    reportsOfDevice(deps.db, app, deviceId, DEVICE_REPORTS_SHOWN),
  ]);
  const byMd5 = new Map(apks.map((a) => [a.md5, a]));
  const onlineSince = new Date(deps.now().getTime() - 3 * deps.limits.heartbeatSeconds * 1000);
  const row = presentInstallation(seen.doc, seen.lastSeenAt, offer.offeredApkId, onlineSince);
  const installed = byMd5.get(row.installedMd5 ?? '')?.versionCode ?? null;
  return {
    installation: { ...row, ahead: isAhead(targetFor(loaded.targets, row), installed) },
    history: marks.map((m) => ({
      md5: m.md5,
      versionCode: byMd5.get(m.md5)?.versionCode ?? null,
      versionName: byMd5.get(m.md5)?.versionName ?? null,
      stage: m.stage,
      at: m.at.toISOString(),
      osStatus: m.osStatus ?? null,
      message: m.message ?? null,
    })),
    reports: reports.map(presentReportLine),
  };
}

export type InstallationDetail = NonNullable<Awaited<ReturnType<typeof installationDetail>>>;
