/**
 * Loads what target selection needs for one app: its current APK and its rollout, as ApkRefs,
 * with their APK documents. The SSE hub, `/download` and the PushLink gateway load through here
 * and pick with `targetFor` (target.ts), so every path offers the same APK to the same device.
 * Reads by `_id` only (the rollout, at most two APKs through the caller's cache).
 */
import type { Db } from 'mongodb';
import type { ApkDoc, AppDoc } from '../catalog/types';
import type { ApkRef } from '../devices/decide';
import { findRollout, isActive } from './store';
import { targetFor, type AppTargets, type TargetedInstallation } from './target';

export interface LoadedTargets {
  readonly targets: AppTargets;
  /** The documents of the APKs `targets` names, by id. */
  readonly docs: ReadonlyMap<string, ApkDoc>;
}

export const refOf = (apk: ApkDoc): ApkRef => ({
  id: apk._id.toHexString(),
  md5: apk.md5,
  versionCode: apk.versionCode,
});

export async function loadTargets(
  db: Db,
  app: AppDoc,
  apkById: (id: string) => Promise<ApkDoc | null>,
): Promise<LoadedTargets> {
  const [current, rollout] = await Promise.all([
    app.currentApkId ? apkById(app.currentApkId.toHexString()) : null,
    findRollout(db, app),
  ]);
  const docs = new Map<string, ApkDoc>();
  if (current) docs.set(current._id.toHexString(), current);
  // A halted rollout matters while the app is back on the APK it started from (target.ts).
  const halted =
    rollout?.state === 'halted' &&
    (rollout.previousApkId?.equals(app.currentApkId ?? '') ?? app.currentApkId === null);
  const rolled =
    rollout && (isActive(rollout) || halted) ? await apkById(rollout.apkId.toHexString()) : null;
  if (rolled) docs.set(rolled._id.toHexString(), rolled);
  return {
    targets: {
      current: current ? refOf(current) : null,
      rollout:
        rollout && rolled
          ? {
              appId: app._id.toHexString(),
              apk: refOf(rolled),
              state: rollout.state,
              stages: rollout.stages,
              stageIndex: rollout.stageIndex,
              targeting: {
                ...(rollout.targeting.metadata ? { metadata: rollout.targeting.metadata } : {}),
                deviceIds: rollout.targeting.deviceIds,
              },
            }
          : null,
    },
    docs,
  };
}

/** The APK document `inst` should run, or null (no current APK). */
export function targetApk(loaded: LoadedTargets, inst: TargetedInstallation): ApkDoc | null {
  const ref = targetFor(loaded.targets, inst);
  return ref ? (loaded.docs.get(ref.id) ?? null) : null;
}
