/**
 * An app's whole fleet, compact: one small row per installation (no device details, no location)
 * with its true last sighting (the document's, or a later one in Redis). The installations page
 * sorts and pages these rows on the server (skip/limit over the sorted list: a last-seen order
 * needs Redis's sightings, which no database index holds), its summary strip counts them, and the
 * crash rates take each installation's hours from them. 10,000 installations are one projected
 * query and a few Redis commands.
 */
import type { Filter } from 'mongodb';
import type { StoreDeps } from './cards';
import { lastSeenAt, type AppScope } from './live-state';
import type { InstallationDoc, KeyValue } from './types';
import { devicesCollections } from './collections';

export interface FleetRow {
  /** The installation's id (hex). */
  readonly id: string;
  readonly deviceId: string;
  readonly status: InstallationDoc['status'];
  readonly installedMd5: string | null;
  readonly metadata: readonly KeyValue[];
  readonly registeredAt: Date;
  readonly lastSeenAt: Date;
}

export type FleetSort = 'lastSeen' | 'version' | 'deviceId';
export const FLEET_SORTS: readonly FleetSort[] = ['lastSeen', 'version', 'deviceId'];

const CHUNK = 1_000;

/** The app's installations matching `filter`, in no particular order. */
export async function fleetRows(
  deps: StoreDeps,
  app: AppScope,
  filter: Filter<InstallationDoc> = {},
): Promise<FleetRow[]> {
  const docs = await devicesCollections(deps.db)
    .installations.find(
      { ...filter, accountId: app.accountId, package: app.package },
      {
        projection: {
          deviceId: 1,
          status: 1,
          installedMd5: 1,
          metadata: 1,
          registeredAt: 1,
          lastSeenAt: 1,
        },
      },
    )
    .toArray();
  const seen: Array<Date | null> = [];
  for (let i = 0; i < docs.length; i += CHUNK) {
    const ids = docs.slice(i, i + CHUNK).map((d) => d._id.toHexString());
    seen.push(...(await deps.live.lastSeen(app, ids)));
  }
  return docs.map((d, i) => ({
    id: d._id.toHexString(),
    deviceId: d.deviceId,
    status: d.status,
    installedMd5: d.installedMd5 ?? null,
    metadata: d.metadata ?? [],
    registeredAt: d.registeredAt,
    lastSeenAt: lastSeenAt(d, seen[i] ?? null),
  }));
}

const byDeviceId = (a: FleetRow, b: FleetRow) =>
  a.deviceId < b.deviceId ? -1 : a.deviceId > b.deviceId ? 1 : 0;

/**
 * The rows in the order asked for: last seen (newest first), version (highest versionCode first,
 * unknown versions last) or device id (A to Z); ties by device id. Pure.
 */
export function orderFleet(
  rows: readonly FleetRow[],
  sort: FleetSort,
  versionCodes: ReadonlyMap<string, number>,
): FleetRow[] {
  const code = (r: FleetRow) => versionCodes.get(r.installedMd5 ?? '') ?? -1;
  const compare: Record<FleetSort, (a: FleetRow, b: FleetRow) => number> = {
    lastSeen: (a, b) => b.lastSeenAt.getTime() - a.lastSeenAt.getTime() || byDeviceId(a, b),
    version: (a, b) => code(b) - code(a) || byDeviceId(a, b),
    deviceId: byDeviceId,
  };
  return [...rows].sort(compare[sort]);
}
