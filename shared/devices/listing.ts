/**
 * The owner's view of an app's installations: one page, filtered by status or online state, by a
 * device id prefix, by the version run and by a metadata pair, sorted (fleet.ts: last seen,
 * version or device id) and paged with skip/limit over the sorted fleet, each with its live state
 * (last seen, pending offer) from Redis.
 */
import { ObjectId, type Filter } from 'mongodb';
import type { StoreDeps } from './cards';
import { fleetRows, orderFleet, type FleetSort } from './fleet';
import { presentInstallOutcome } from './install-outcome';
import { seenFilter, type AppScope } from './live-state';
import type { InstallationDoc } from './types';
import { devicesCollections } from './collections';

export type InstallationFilter = 'enabled' | 'disabled' | 'online' | 'offline' | null;

export interface InstallationQuery {
  readonly page: number;
  readonly pageSize: number;
  readonly status: InstallationFilter;
  /** A prefix of the device id, matched literally. */
  readonly deviceIdPrefix: string | null;
  /** Seen at or after this instant counts as online. */
  readonly onlineSince: Date;
  /** Only installations running one of these APKs (by MD5); null: any. */
  readonly installedMd5s: readonly string[] | null;
  /** Only installations with this metadata pair; null: any. */
  readonly metadata: { readonly key: string; readonly value: string } | null;
  readonly sort: FleetSort;
  /** The app's APKs' versionCodes by MD5 (the version order). */
  readonly versionCodes: ReadonlyMap<string, number>;
}

async function filterOf(
  deps: StoreDeps,
  scope: AppScope,
  q: InstallationQuery,
): Promise<Filter<InstallationDoc>> {
  let filter: Filter<InstallationDoc> = { ...scope };
  if (q.status === 'enabled' || q.status === 'disabled') filter.status = q.status;
  if (q.status === 'online' || q.status === 'offline') {
    filter = {
      ...filter,
      ...(await seenFilter(deps.live, scope, q.onlineSince, q.status === 'online')),
    };
  }
  if (q.deviceIdPrefix) {
    // A literal prefix (no regex injection).
    filter.deviceId = { $regex: `^${q.deviceIdPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` };
  }
  if (q.installedMd5s) filter.installedMd5 = { $in: [...q.installedMd5s] };
  return filter;
}

/** One installation as the owner's list and its page show it. */
export function presentInstallation(
  d: InstallationDoc,
  seen: Date,
  pendingApkId: string | null,
  onlineSince: Date,
) {
  return {
    deviceId: d.deviceId,
    status: d.status,
    online: seen >= onlineSince,
    installedMd5: d.installedMd5,
    lastDownloadedMd5: d.lastDownloadedMd5,
    pendingApkId,
    strategy: d.strategy,
    channel: d.channel ?? 'sse',
    plVersion: d.plVersion ?? null,
    device: d.device,
    metadata: d.metadata,
    location: d.location
      ? { lat: d.location.lat, lon: d.location.lon, at: d.location.at.toISOString() }
      : null,
    lastInstall: d.lastInstall ? presentInstallOutcome(d.lastInstall) : null,
    registeredAt: d.registeredAt.toISOString(),
    lastSeenAt: seen.toISOString(),
  };
}

export async function listInstallationPage(deps: StoreDeps, scope: AppScope, q: InstallationQuery) {
  const filter = await filterOf(deps, scope, q);
  // The metadata pair is matched here, on the compact rows: the embedded database server matches
  // no array element by two of its fields ($elemMatch, or an element equal to {key, value}).
  const pair = q.metadata;
  const rows = (await fleetRows(deps, scope, filter)).filter(
    (r) => !pair || r.metadata.some((m) => m.key === pair.key && m.value === pair.value),
  );
  const sorted = orderFleet(rows, q.sort, q.versionCodes);
  const pageRows = sorted.slice((q.page - 1) * q.pageSize, q.page * q.pageSize);
  const ids = pageRows.map((r) => r.id);
  const found = await devicesCollections(deps.db)
    .installations.find({ _id: { $in: pageRows.map((r) => ObjectId.createFromHexString(r.id)) } })
    .toArray();
  const docs = new Map(found.map((d) => [d._id.toHexString(), d]));
  const offers = await deps.live.offers(scope, ids);
  return {
    page: q.page,
    pageSize: q.pageSize,
    total: sorted.length,
    installations: pageRows.flatMap((r, i) => {
      const doc = docs.get(r.id);
      return doc
        ? [presentInstallation(doc, r.lastSeenAt, offers[i]!.offeredApkId, q.onlineSince)]
        : [];
    }),
  };
}
