/**
 * An app's fleet at a glance, as the apps list and `GET /api/v2/apps` show it: installations by
 * the version they run (a version above the current APK's that no running rollout offers is
 * "ahead": installed from a rollout that was then halted), online and offline, the rollout's state
 * with the halt reason, and the unhandled crash reports of each of the last 24 hours. Pure: the
 * loader (overview.ts) reads the account's data once for every app.
 */
import { adoptionPoint, type VersionCount } from '../../shared/adoption/points';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import type { AppInstallations } from '../../shared/devices/store';
import { haltReason } from '../../shared/rollouts/halt-reason';
import { percentOf, type RolloutState } from '../../shared/rollouts/rollout';
import { isActive } from '../../shared/rollouts/store';
import type { RolloutDoc } from '../../shared/rollouts/types';

const HOUR_MS = 3_600_000;
export const HOURS_SHOWN = 24;

export interface FleetVersion extends VersionCount {
  /** Above the current APK and offered by no running or paused rollout. */
  readonly ahead: boolean;
}

export interface FleetRollout {
  readonly state: RolloutState;
  readonly percent: number;
  /** The rolled-out APK: "name (code)". */
  readonly version: string;
  /** Why it was halted, in one sentence (null unless halted). */
  readonly haltReason: string | null;
}

export interface AppFleet {
  readonly installations: number;
  readonly online: number;
  readonly offline: number;
  readonly enabled: number;
  /** Highest versionCode first; unknown hashes, then no hash, last. */
  readonly versions: readonly FleetVersion[];
  /** Running, paused, or halted while the app is still on the APK it started from; else null. */
  readonly rollout: FleetRollout | null;
  /** Unhandled crash reports received in each of the 24 hours before now, oldest first. */
  readonly unhandledHourly: readonly number[];
  /** Every report (handled or not) of the last 24 hours: what the 24 h limit counts. */
  readonly exceptions24h: number;
}

export interface FleetInput {
  readonly app: AppDoc;
  /** The app's APKs. */
  readonly apks: readonly ApkDoc[];
  readonly installations: AppInstallations | undefined;
  readonly rollout: RolloutDoc | null;
  /** The app's reports of the last 24 hours. */
  readonly reports: ReadonlyArray<{ readonly receivedAt: Date; readonly handled: boolean }>;
  readonly now: Date;
}

/** Counts per hour over the `HOURS_SHOWN` hours before `now`, oldest first (as groupsPage). */
export function hourlyCounts(times: readonly Date[], now: Date): number[] {
  const counts = new Array<number>(HOURS_SHOWN).fill(0);
  const start = now.getTime() - HOURS_SHOWN * HOUR_MS;
  for (const t of times) {
    const hour = Math.floor((t.getTime() - start) / HOUR_MS);
    if (hour >= 0 && hour < HOURS_SHOWN) counts[hour]! += 1;
  }
  return counts;
}

const label = (apk: ApkDoc | undefined) =>
  apk ? `${apk.versionName ?? ''} (${apk.versionCode})`.trim() : 'an APK no longer stored';

/** The rollout the apps list shows: not a completed one, nor a halt the app has moved past. */
function shownRollout(input: FleetInput): FleetRollout | null {
  const r = input.rollout;
  if (!r || r.state === 'completed') return null;
  if (
    r.state === 'halted' &&
    !(r.previousApkId?.equals(input.app.currentApkId ?? '') ?? input.app.currentApkId === null)
  )
    return null;
  const byId = (id: RolloutDoc['apkId'] | null) => input.apks.find((a) => id && a._id.equals(id));
  const apk = byId(r.apkId);
  return {
    state: r.state,
    percent: percentOf(r),
    version: label(apk),
    haltReason: haltReason(r, apk ?? null, byId(r.previousApkId) ?? null),
  };
}

export function appFleet(input: FleetInput): AppFleet {
  const inst = input.installations ?? { byMd5: new Map(), total: 0, enabled: 0, online: 0 };
  const current = input.apks.find((a) => input.app.currentApkId?.equals(a._id));
  const rolling =
    input.rollout && isActive(input.rollout)
      ? input.apks.find((a) => a._id.equals(input.rollout!.apkId))
      : undefined;
  const point = adoptionPoint(input.now, inst.byMd5, input.apks);
  const versions = point.versions.map((v) => ({
    ...v,
    ahead:
      current !== undefined &&
      v.versionCode !== null &&
      v.versionCode > current.versionCode &&
      v.md5 !== rolling?.md5,
  }));
  return {
    installations: inst.total,
    online: inst.online,
    offline: inst.total - inst.online,
    enabled: inst.enabled,
    versions,
    rollout: shownRollout(input),
    unhandledHourly: hourlyCounts(
      input.reports.filter((r) => !r.handled).map((r) => r.receivedAt),
      input.now,
    ),
    exceptions24h: input.reports.length,
  };
}
