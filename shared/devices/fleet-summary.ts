/**
 * The installations page's summary strip, and the `summary` of `GET …/installations`: how many
 * installations the app has, online and offline, how many run each version, and which are
 * "ahead" (they run a higher versionCode than the APK they would be offered: decide.ts). Pure:
 * the fleet's rows (fleet.ts), each told whether it is ahead, and the app's APKs go in.
 */
import type { FleetRow } from './fleet';

export interface SummaryApk {
  readonly md5: string;
  readonly versionCode: number;
  readonly versionName: string | null;
}

export interface VersionShare {
  /** Null: installations that run no APK known to the app (or report none). */
  readonly md5: string | null;
  readonly versionCode: number | null;
  readonly versionName: string | null;
  readonly installations: number;
}

export interface FleetSummary {
  readonly total: number;
  readonly online: number;
  readonly offline: number;
  /** Highest versionCode first; the unknown ones last. */
  readonly versions: readonly VersionShare[];
  /** Device ids of the installations ahead of their target, A to Z. */
  readonly ahead: readonly string[];
}

export function fleetSummary(
  rows: ReadonlyArray<
    Pick<FleetRow, 'deviceId' | 'installedMd5' | 'lastSeenAt'> & { ahead: boolean }
  >,
  apks: readonly SummaryApk[],
  onlineSince: Date,
): FleetSummary {
  const byMd5 = new Map(apks.map((a) => [a.md5, a]));
  const counts = new Map<string | null, number>();
  for (const r of rows) {
    const key = r.installedMd5 !== null && byMd5.has(r.installedMd5) ? r.installedMd5 : null;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const versions = [...counts]
    .map(([md5, installations]) => {
      const apk = md5 === null ? undefined : byMd5.get(md5);
      return {
        md5,
        versionCode: apk?.versionCode ?? null,
        versionName: apk?.versionName ?? null,
        installations,
      };
    })
    .sort((a, b) => (b.versionCode ?? -1) - (a.versionCode ?? -1));
  const online = rows.filter((r) => r.lastSeenAt >= onlineSince).length;
  return {
    total: rows.length,
    online,
    offline: rows.length - online,
    versions,
    ahead: rows
      .filter((r) => r.ahead)
      .map((r) => r.deviceId)
      .sort(),
  };
}
