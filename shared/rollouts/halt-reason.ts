/**
 * Why a halted rollout was halted, in one plain sentence, from its decision history: the health
 * gate's numbers ("1.2 crashed 5× as often as 1.1"), the owner's button, or another APK made
 * current. Pure; the apps list and the Rollouts tab (and their JSON) show the same sentence.
 */
import type { HealthReport } from './health';
import type { HistoryEntry } from './types';

/** What the sentence names a version by: its versionName, else its versionCode. */
export interface NamedApk {
  readonly versionCode: number;
  readonly versionName: string | null;
}

export const apkName = (apk: NamedApk | null): string =>
  apk ? (apk.versionName ?? String(apk.versionCode)) : 'the previous version';

/** "22", "2.4": a ratio as the sentence says it (whole from 10 up, else one decimal). */
export function timesText(ratio: number): string {
  return ratio >= 10 ? String(Math.round(ratio)) : String(Math.round(ratio * 10) / 10);
}

function gateSentence(h: HealthReport, apk: string, previous: string): string {
  if (h.ratio !== null) return `${apk} crashed ${timesText(h.ratio)}× as often as ${previous}.`;
  const times = h.newCount === 1 ? 'once' : `${h.newCount} times`;
  return h.oldCount === 0 && h.oldHours > 0
    ? `${apk} crashed ${times}; ${previous} did not crash.`
    : `${apk} crashed ${times}.`;
}

/** The sentence of the decision that halted the rollout, or null when it is not halted. */
export function haltReason(
  rollout: { readonly state: string; readonly history: readonly HistoryEntry[] },
  apk: NamedApk | null,
  previous: NamedApk | null,
): string | null {
  if (rollout.state !== 'halted') return null;
  const halt = [...rollout.history].reverse().find((e) => e.to === 'halted');
  if (!halt) return 'Halted.';
  if (halt.action === 'superseded') return 'Halted: another APK was made current.';
  if (halt.by === 'owner' || !halt.health) return 'Halted by the owner.';
  return `Halted by the health gate: ${gateSentence(halt.health, apkName(apk), apkName(previous))}`;
}
