/** The public JSON shape of a rollout (the JSON API and the web administration read it). */
import { presentApk } from '../catalog/present';
import type { ApkDoc } from '../catalog/types';
import type { HealthReport } from './health';
import { percentOf } from './rollout';
import type { HistoryEntry, RolloutDoc } from './types';

function presentReport(r: HealthReport | null) {
  return r ? { ...r } : null;
}

function presentEntry(e: HistoryEntry) {
  return { ...e, at: e.at.toISOString(), health: presentReport(e.health) };
}

export function presentRollout(
  doc: RolloutDoc,
  apk: ApkDoc | null,
  previous: ApkDoc | null,
  installed: number,
) {
  return {
    state: doc.state,
    percent: percentOf(doc),
    stages: doc.stages,
    stageIndex: doc.stageIndex,
    apk: apk ? presentApk(apk) : null,
    previous: previous ? presentApk(previous) : null,
    targeting: doc.targeting,
    /** Installations reporting the rollout's APK installed (a halt leaves them as they are). */
    installed,
    startedAt: doc.startedAt.toISOString(),
    stageStartedAt: doc.stageStartedAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    health: {
      since: doc.health.since.toISOString(),
      lastEvaluatedAt: doc.health.lastEvaluatedAt?.toISOString() ?? null,
      newHours: doc.health.newHours,
      oldHours: doc.health.oldHours,
      last: presentReport(doc.health.last),
    },
    history: doc.history.map(presentEntry),
  };
}

export type PresentedRollout = ReturnType<typeof presentRollout>;
