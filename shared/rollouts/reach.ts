/**
 * How many of an app's installations a rollout offers its APK now ("N of M installations
 * offered"): those inside it at its percentage and targeting while it runs or is paused (target.ts
 * decides, as for every push path), every one once it completed (its APK is the current one), none
 * once halted. Pure.
 */
import type { RolloutDoc } from './types';
import { inRollout, type TargetedInstallation } from './target';

export function offeredCount(
  doc: Pick<RolloutDoc, 'state' | 'stages' | 'stageIndex' | 'targeting'>,
  appId: string,
  installations: readonly TargetedInstallation[],
): number {
  if (doc.state === 'completed') return installations.length;
  if (doc.state === 'halted') return 0;
  const view = {
    appId,
    apk: { id: '', md5: '', versionCode: 0 },
    state: doc.state,
    stages: doc.stages,
    stageIndex: doc.stageIndex,
    targeting: {
      ...(doc.targeting.metadata ? { metadata: doc.targeting.metadata } : {}),
      deviceIds: doc.targeting.deviceIds,
    },
  };
  return installations.filter((i) => inRollout(view, i)).length;
}
