/**
 * The patches one app's fleet will ask for: for each APK devices are told to run (the current
 * one, and a running or paused rollout's), from each of the installed versions sources.ts picks.
 * A pair tried before is left as it is, so a retried or repeated job only does what is missing.
 * Every pair is chosen before any is made, and handed to `onPlan` (the job stores them, so the
 * endpoint can tell a device its patch is on its way: shared/delta/pending.ts).
 */
import { ObjectId } from 'mongodb';
import { catalogCollections } from '../catalog/collections';
import type { ApkDoc, AppDoc } from '../catalog/types';
import { findRollout, isActive } from '../rollouts/store';
import { deltaTried, generateDelta, type GenerateDeltaDeps } from './generate-delta';
import { pendingPair } from './pending';
import { deltaSources } from './sources';

export interface AppDeltaCounts {
  ready: number;
  tooLarge: number;
  unproven: number;
  known: number;
}

/** The APKs devices of `app` are told to run. */
async function targetsOf(deps: GenerateDeltaDeps, app: AppDoc): Promise<ApkDoc[]> {
  const rollout = await findRollout(deps.db, app);
  const ids = [app.currentApkId, isActive(rollout) ? rollout!.apkId : null].filter(
    (id): id is ObjectId => id !== null,
  );
  return catalogCollections(deps.db)
    .apks.find({ _id: { $in: ids }, accountId: app.accountId })
    .toArray();
}

/** Every (source, target) pair the app's fleet will ask for, targets in order. */
async function pairsOf(deps: GenerateDeltaDeps, app: AppDoc): Promise<[ApkDoc, ApkDoc][]> {
  const pairs: [ApkDoc, ApkDoc][] = [];
  for (const target of await targetsOf(deps, app)) {
    for (const source of await deltaSources(deps.db, app, target, deps.settings.maxSources)) {
      pairs.push([source, target]);
    }
  }
  return pairs;
}

export async function generateForApp(
  deps: GenerateDeltaDeps,
  accountId: string,
  appId: string,
  signal: AbortSignal,
  onPlan: (pairs: string[]) => Promise<void> = () => Promise.resolve(),
): Promise<AppDeltaCounts> {
  const counts: AppDeltaCounts = { ready: 0, tooLarge: 0, unproven: 0, known: 0 };
  const app = await catalogCollections(deps.db).apps.findOne({
    _id: new ObjectId(appId),
    accountId,
  });
  if (!app) return counts;
  const pairs = await pairsOf(deps, app);
  await onPlan(pairs.map(([source, target]) => pendingPair(source.md5, target.sha256)));
  for (const [source, target] of pairs) {
    if (signal.aborted) return counts;
    if (await deltaTried(deps.db, source, target)) {
      counts.known++;
      continue;
    }
    const outcome = await generateDelta(deps, source, target, signal);
    if (outcome === 'ready') counts.ready++;
    else if (outcome === 'too-large') counts.tooLarge++;
    else if (outcome === 'unproven') counts.unproven++;
    else counts.known++;
  }
  return counts;
}
