/**
 * Which installed versions a target APK gets patches from: the MD5s the app's installations
 * report running, most common first (ties by MD5, so a rerun picks the same), skipping the target
 * itself and any MD5 the account has no stored APK for (a patch needs the old file), at most
 * `max` of them.
 */
import type { Db } from 'mongodb';
import { catalogCollections } from '../catalog/collections';
import type { ApkDoc, AppDoc } from '../catalog/types';
import { devicesCollections } from '../devices/collections';

export interface RunningCount {
  readonly md5: string;
  readonly installations: number;
}

/** Pure: the order and the cut, given the counts and the MD5s that have a stored APK. */
export function pickSources(
  running: readonly RunningCount[],
  stored: ReadonlySet<string>,
  targetMd5: string,
  max: number,
): string[] {
  return running
    .filter((r) => r.md5 !== targetMd5 && stored.has(r.md5) && r.installations > 0)
    .sort((a, b) => b.installations - a.installations || (a.md5 < b.md5 ? -1 : 1))
    .slice(0, max)
    .map((r) => r.md5);
}

async function runningCounts(db: Db, app: AppDoc): Promise<RunningCount[]> {
  const rows = await devicesCollections(db)
    .installations.aggregate<{ _id: string; n: number }>([
      {
        $match: {
          accountId: app.accountId,
          package: app.package,
          installedMd5: { $type: 'string' },
        },
      },
      { $group: { _id: '$installedMd5', n: { $sum: 1 } } },
    ])
    .toArray();
  return rows.map((r) => ({ md5: r._id, installations: r.n }));
}

/** The stored APKs to make patches from, for `target` of `app`. */
export async function deltaSources(
  db: Db,
  app: AppDoc,
  target: ApkDoc,
  max: number,
): Promise<ApkDoc[]> {
  const running = await runningCounts(db, app);
  const apks = await catalogCollections(db)
    .apks.find({
      accountId: app.accountId,
      appId: app._id,
      md5: { $in: running.map((r) => r.md5) },
    })
    .toArray();
  const byMd5 = new Map(apks.map((apk) => [apk.md5, apk]));
  return pickSources(running, new Set(byMd5.keys()), target.md5, max).map((md5) => byMd5.get(md5)!);
}
