/** The apps list's rows: each app's current version, installations online and enabled, reports. */
import { appsOf, currentApkOf } from '../../shared/catalog/queries';
import type { AppDoc } from '../../shared/catalog/types';
import { countEnabled, countOnline } from '../../shared/devices/store';
import { reportsSince } from '../../shared/exceptions/owner-queries';
import type { ApiDeps } from '../deps';
import type { AppRow } from '../web/views';

const DAY_MS = 24 * 3600 * 1000;

type OverviewDeps = Pick<ApiDeps, 'db' | 'live' | 'now' | 'limits'>;

async function appRow(deps: OverviewDeps, app: AppDoc, onlineSince: Date): Promise<AppRow> {
  const scope = { accountId: app.accountId, package: app.package };
  const [current, online, enabled, exceptions24h] = await Promise.all([
    currentApkOf(deps.db, app),
    countOnline(deps, scope, onlineSince),
    countEnabled(deps, scope),
    reportsSince(deps.db, app, new Date(deps.now().getTime() - DAY_MS)),
  ]);
  return {
    package: app.package,
    currentVersion: current ? `${current.versionName ?? ''} (${current.versionCode})` : null,
    online,
    enabled,
    exceptions24h,
  };
}

/** One row per app of the account; online: seen within three heartbeats. */
export async function appOverview(deps: OverviewDeps, accountId: string): Promise<AppRow[]> {
  const apps = await appsOf(deps.db, accountId);
  const onlineSince = new Date(deps.now().getTime() - 3 * deps.limits.heartbeatSeconds * 1000);
  return Promise.all(apps.map((app) => appRow(deps, app, onlineSince)));
}
