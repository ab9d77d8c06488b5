/** The public JSON shape of a rollout (the JSON API and the web administration read it). */
import { presentApk } from '../catalog/present';
import type { ApkDoc } from '../catalog/types';
import { haltReason } from './halt-reason';
import type { HealthReport, RolloutSettings } from './health';
import { percentOf } from './rollout';
import type { HistoryEntry, RolloutDoc } from './types';

function presentReport(r: HealthReport | null) {
  return r ? { ...r } : null;
}

function presentEntry(e: HistoryEntry) {
  return { ...e, at: e.at.toISOString(), health: presentReport(e.health) };
}

/** What the rollout's APKs and the fleet add to the document. */
export interface RolloutFigures {
  readonly apk: ApkDoc | null;
  readonly previous: ApkDoc | null;
  /** Installations reporting the rollout's APK installed. */
  readonly installed: number;
  /** Installations the rollout offers its APK now (reach.ts). */
  readonly offered: number;
  /** The app's installations. */
  readonly installations: number;
  readonly gate: Pick<RolloutSettings, 'factor' | 'minExceptions' | 'soakMs'>;
}

/** When a running rollout's stage has soaked long enough to advance (if the gate finds it healthy). */
function nextStageAt(doc: RolloutDoc, soakMs: number): string | null {
  if (doc.state !== 'running' || doc.stageIndex >= doc.stages.length - 1) return null;
  return new Date(doc.stageStartedAt.getTime() + soakMs).toISOString();
}

export function presentRollout(doc: RolloutDoc, f: RolloutFigures) {
  return {
    state: doc.state,
    percent: percentOf(doc),
    stages: doc.stages,
    stageIndex: doc.stageIndex,
    apk: f.apk ? presentApk(f.apk) : null,
    previous: f.previous ? presentApk(f.previous) : null,
    targeting: doc.targeting,
    /** Installations reporting the rollout's APK installed (a halt leaves them as they are). */
    installed: f.installed,
    offered: f.offered,
    installations: f.installations,
    startedAt: doc.startedAt.toISOString(),
    stageStartedAt: doc.stageStartedAt.toISOString(),
    nextStageAt: nextStageAt(doc, f.gate.soakMs),
    updatedAt: doc.updatedAt.toISOString(),
    haltReason: haltReason(doc, f.apk, f.previous),
    gate: { factor: f.gate.factor, minExceptions: f.gate.minExceptions, soakMs: f.gate.soakMs },
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
