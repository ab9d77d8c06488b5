/**
 * The owner's view of an app's installations: one page, filtered by status or online state and
 * by a device id prefix, each with its live state (last seen, pending offer) from Redis.
 */
import type { Filter } from 'mongodb';
import type { StoreDeps } from './cards';
import { presentInstallOutcome } from './install-outcome';
import { lastSeenAt, seenFilter, type AppScope } from './live-state';
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
  return filter;
}

function present(d: InstallationDoc, seen: Date, pendingApkId: string | null, onlineSince: Date) {
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
  const col = devicesCollections(deps.db).installations;
  const [total, docs] = await Promise.all([
    col.countDocuments(filter),
    col
      .find(filter)
      .sort({ lastSeenAt: -1, deviceId: 1 })
      .skip((q.page - 1) * q.pageSize)
      .limit(q.pageSize)
      .toArray(),
  ]);
  const ids = docs.map((d) => d._id.toHexString());
  const [seen, offers] = await Promise.all([
    deps.live.lastSeen(scope, ids),
    deps.live.offers(scope, ids),
  ]);
  return {
    page: q.page,
    pageSize: q.pageSize,
    total,
    installations: docs.map((d, i) =>
      present(d, lastSeenAt(d, seen[i]!), offers[i]!.offeredApkId, q.onlineSince),
    ),
  };
}
