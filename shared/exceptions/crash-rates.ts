/**
 * Crash rate per version over a window (the Exceptions tab and `GET …/crash-rates`). Pure: the
 * APKs, the installations and the unhandled reports go in, one row per version comes out.
 *
 * - An installation counts for the version it reports running now (its `installedMd5`), if it
 *   was seen in the window. Its installation-hours are the time from the later of its
 *   registration and the window's start to the earlier of its last sighting and the window's end:
 *   the time it was known to be running. An installation that changed version inside the window
 *   counts all of those hours on the version it runs now (the server keeps no finer history).
 * - Reports count for the APK they were sent from (unhandled only, received in the window), even
 *   when the device has moved on since.
 * - Crash-free installations: the version's installations with no unhandled report from that
 *   version in the window.
 */
export interface RateApk {
  readonly id: string;
  readonly md5: string;
  readonly versionCode: number;
  readonly versionName: string | null;
}

export interface RateInstallation {
  readonly deviceId: string;
  readonly installedMd5: string | null;
  readonly registeredAt: Date;
  readonly lastSeenAt: Date;
}

export interface RateReport {
  readonly deviceId: string;
  /** The APK the device ran when it sent the report. */
  readonly apkId: string;
  readonly receivedAt: Date;
}

export interface CrashRate {
  readonly apkId: string;
  readonly versionCode: number;
  readonly versionName: string | null;
  /** Installations running it, seen in the window. */
  readonly installations: number;
  readonly installationHours: number;
  /** Unhandled reports sent from it in the window. */
  readonly unhandled: number;
  /** Null without installation-hours. */
  readonly perInstallationHour: number | null;
  /** Null without installations. */
  readonly perInstallation: number | null;
  readonly crashFreeInstallations: number;
  /** 0–100; null without installations. */
  readonly crashFreePercent: number | null;
}

const HOUR_MS = 3_600_000;

function hoursIn(i: RateInstallation, from: number, to: number): number {
  const start = Math.max(i.registeredAt.getTime(), from);
  const end = Math.min(i.lastSeenAt.getTime(), to);
  return Math.max(0, end - start) / HOUR_MS;
}

interface Tally {
  installations: Set<string>;
  hours: number;
  unhandled: number;
  crashed: Set<string>;
}

function tallies(
  apks: readonly RateApk[],
  installations: readonly RateInstallation[],
  reports: readonly RateReport[],
  window: { readonly from: Date; readonly to: Date },
): Map<string, Tally> {
  const [from, to] = [window.from.getTime(), window.to.getTime()];
  const byMd5 = new Map(apks.map((a) => [a.md5, a.id]));
  const out = new Map<string, Tally>();
  const of = (id: string) => {
    const t = out.get(id) ?? {
      installations: new Set(),
      hours: 0,
      unhandled: 0,
      crashed: new Set(),
    };
    out.set(id, t);
    return t;
  };
  for (const i of installations) {
    const id = byMd5.get(i.installedMd5 ?? '');
    if (!id || i.lastSeenAt.getTime() < from) continue;
    const t = of(id);
    t.installations.add(i.deviceId);
    t.hours += hoursIn(i, from, to);
  }
  for (const r of reports) {
    const at = r.receivedAt.getTime();
    if (at < from || at >= to || !apks.some((a) => a.id === r.apkId)) continue;
    const t = of(r.apkId);
    t.unhandled += 1;
    t.crashed.add(r.deviceId);
  }
  return out;
}

/** One row per version with installations or reports in the window, highest versionCode first. */
export function crashRates(
  apks: readonly RateApk[],
  installations: readonly RateInstallation[],
  reports: readonly RateReport[],
  window: { readonly from: Date; readonly to: Date },
): CrashRate[] {
  const counted = tallies(apks, installations, reports, window);
  return apks
    .filter((a) => counted.has(a.id))
    .sort((a, b) => b.versionCode - a.versionCode || a.id.localeCompare(b.id))
    .map((apk) => {
      const t = counted.get(apk.id)!;
      const n = t.installations.size;
      const crashFree = [...t.installations].filter((d) => !t.crashed.has(d)).length;
      return {
        apkId: apk.id,
        versionCode: apk.versionCode,
        versionName: apk.versionName,
        installations: n,
        installationHours: t.hours,
        unhandled: t.unhandled,
        perInstallationHour: t.hours > 0 ? t.unhandled / t.hours : null,
        perInstallation: n > 0 ? t.unhandled / n : null,
        crashFreeInstallations: crashFree,
        crashFreePercent: n > 0 ? (100 * crashFree) / n : null,
      };
    });
}
