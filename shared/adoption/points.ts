/**
 * Version adoption (issue 19): how many of an app's installations run each version, over time.
 * A point counts the installations seen (registration, heartbeat, open stream) in the
 * IN_USE_WINDOW before it, by the APK they last reported running. Pure: a point from counts.
 */
export const IN_USE_WINDOW_MS = 24 * 60 * 60 * 1000;
export const SAMPLE_EVERY_MS = 60 * 60 * 1000;

export interface KnownApk {
  readonly md5: string;
  readonly versionCode: number;
  readonly versionName: string | null;
}

export interface VersionCount {
  /** Null: the installations reported no hash. */
  readonly md5: string | null;
  /** Null: the hash is of no APK uploaded to this app. */
  readonly versionCode: number | null;
  readonly versionName: string | null;
  readonly count: number;
}

export interface AdoptionPoint {
  readonly at: Date;
  readonly total: number;
  /** Highest versionCode first; unknown hashes, then no hash, last. */
  readonly versions: readonly VersionCount[];
}

/** The sample time of `at`: the start of its hour (UTC). */
export function sampleTime(at: Date): Date {
  return new Date(Math.floor(at.getTime() / SAMPLE_EVERY_MS) * SAMPLE_EVERY_MS);
}

function rank(v: VersionCount): number {
  if (v.versionCode !== null) return v.versionCode;
  return v.md5 === null ? -2 : -1;
}

export function adoptionPoint(
  at: Date,
  counts: ReadonlyMap<string | null, number>,
  apks: readonly KnownApk[],
): AdoptionPoint {
  const byMd5 = new Map(apks.map((a) => [a.md5, a]));
  const versions: VersionCount[] = [...counts]
    .filter(([, count]) => count > 0)
    .map(([md5, count]) => {
      const apk = md5 === null ? undefined : byMd5.get(md5);
      return {
        md5,
        versionCode: apk?.versionCode ?? null,
        versionName: apk?.versionName ?? null,
        count,
      };
    });
  versions.sort((a, b) => rank(b) - rank(a) || String(a.md5).localeCompare(String(b.md5)));
  return { at, total: versions.reduce((n, v) => n + v.count, 0), versions };
}
