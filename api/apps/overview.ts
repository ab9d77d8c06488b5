/**
 * The apps list's data (the page and `GET /api/v2/apps`): each app with its fleet at a glance
 * (fleet.ts). One read per kind for the whole account, never one per app: the apps, their APKs,
 * their installations, their rollouts and the last 24 hours' reports (no joins on the embedded
 * server); only the sightings, in Redis, are read per app.
 */
import { apksOfAccount, appsOf } from '../../shared/catalog/queries';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import { installationsByApp } from '../../shared/devices/store';
import { reportTimesSince } from '../../shared/exceptions/owner-queries';
import { rolloutsOfAccount } from '../../shared/rollouts/store';
import type { ApiDeps } from '../deps';
import { appFleet, HOURS_SHOWN, type AppFleet } from './fleet';

type OverviewDeps = Pick<ApiDeps, 'db' | 'live' | 'now' | 'limits'>;

export interface AppOverview {
  readonly app: AppDoc;
  readonly current: ApkDoc | null;
  readonly fleet: AppFleet;
}

/** Every app of the account with its fleet; online: seen within three heartbeats. */
export async function appOverview(deps: OverviewDeps, accountId: string): Promise<AppOverview[]> {
  const now = deps.now();
  const apps = await appsOf(deps.db, accountId);
  const onlineSince = new Date(now.getTime() - 3 * deps.limits.heartbeatSeconds * 1000);
  const packages = apps.map((a) => a.package);
  const [apks, installations, rollouts, reports] = await Promise.all([
    apksOfAccount(deps.db, accountId),
    installationsByApp(deps, accountId, packages, onlineSince),
    rolloutsOfAccount(deps.db, accountId),
    reportTimesSince(deps.db, accountId, new Date(now.getTime() - HOURS_SHOWN * 3_600_000)),
  ]);
  return apps.map((app) => {
    const id = app._id.toHexString();
    const own = apks.filter((a) => a.appId.equals(app._id));
    const fleet = appFleet({
      app,
      apks: own,
      installations: installations.get(app.package),
      rollout: rollouts.find((r) => r._id.equals(app._id)) ?? null,
      reports: reports.filter((r) => r.appId === id),
      now,
    });
    const current = own.find((a) => app.currentApkId?.equals(a._id)) ?? null;
    return { app, current, fleet };
  });
}
