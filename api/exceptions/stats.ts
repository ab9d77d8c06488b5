/**
 * What the Exceptions tab and its JSON twins show beyond the groups list: the app's reports per
 * hour over the last 24 h with the plan's 24-h limit, and the crash rate of each version over the
 * same window (shared/exceptions/crash-rates.ts says how it is counted); and one group's page
 * (its trend, versions, devices and one page of its occurrences, newest first, skip/limit).
 */
import { apksOf } from '../../shared/catalog/queries';
import type { AppDoc } from '../../shared/catalog/types';
import { fleetRows } from '../../shared/devices/fleet';
import { crashRates } from '../../shared/exceptions/crash-rates';
import { buckets, groupBreakdown, HOUR_MS } from '../../shared/exceptions/group-breakdown';
import {
  groupOfApp,
  unhandledBetween,
  reportsOfGroup,
} from '../../shared/exceptions/owner-queries';
import { exceptionsCollections } from '../../shared/exceptions/collections';
import { presentGroup, presentReportLine } from '../../shared/exceptions/present';
import type { ApiDeps } from '../deps';
import { exceptionLimit } from './intake';

export const WINDOW_HOURS = 24;
export const OCCURRENCES_PER_PAGE = 20;

/** The app's reports received in the 24 hours before `to`, by hour, oldest first. */
async function hourlyReports(deps: ApiDeps, app: AppDoc, to: Date): Promise<number[]> {
  const from = new Date(to.getTime() - WINDOW_HOURS * HOUR_MS);
  const docs = await exceptionsCollections(deps.db)
    .reports.find(
      {
        accountId: app.accountId,
        appId: app._id.toHexString(),
        receivedAt: { $gte: from, $lt: to },
      },
      { projection: { _id: 0, receivedAt: 1 } },
    )
    .toArray();
  return buckets(
    docs.map((d) => d.receivedAt),
    to.getTime(),
    WINDOW_HOURS,
    HOUR_MS,
  );
}

export async function exceptionStats(deps: ApiDeps, app: AppDoc, planInstallations: number) {
  const to = deps.now();
  const from = new Date(to.getTime() - WINDOW_HOURS * HOUR_MS);
  const scope = { accountId: app.accountId, package: app.package };
  const [apks, fleet, reports, hourly] = await Promise.all([
    apksOf(deps.db, app),
    fleetRows(deps, scope),
    unhandledBetween(deps.db, app, from, to),
    hourlyReports(deps, app, to),
  ]);
  const rates = crashRates(
    apks.map((a) => ({ ...a, id: a._id.toHexString() })),
    fleet,
    reports,
    { from, to },
  );
  return {
    package: app.package,
    from: from.toISOString(),
    to: to.toISOString(),
    windowHours: WINDOW_HOURS,
    limit: exceptionLimit(planInstallations),
    hourly,
    versions: rates,
  };
}

export type ExceptionStats = Awaited<ReturnType<typeof exceptionStats>>;

/** A group of the app by fingerprint, with page `page` of its occurrences; null: no such group. */
export async function groupView(deps: ApiDeps, app: AppDoc, fingerprint: string, page: number) {
  const group = await groupOfApp(deps.db, app, fingerprint);
  if (!group) return null;
  const reports = await reportsOfGroup(deps.db, app, group._id);
  const nowMs = deps.now().getTime();
  const pages = Math.max(1, Math.ceil(reports.length / OCCURRENCES_PER_PAGE));
  const at = Math.min(Math.max(1, page), pages);
  const shown = reports.slice((at - 1) * OCCURRENCES_PER_PAGE, at * OCCURRENCES_PER_PAGE);
  return {
    group: presentGroup(group),
    now: new Date(nowMs).toISOString(),
    ...groupBreakdown(reports, nowMs),
    occurrences: {
      page: at,
      pageSize: OCCURRENCES_PER_PAGE,
      total: reports.length,
      reports: shown.map(presentReportLine),
    },
  };
}

export type GroupView = NonNullable<Awaited<ReturnType<typeof groupView>>>;
