/**
 * The rollout document: one per app in `rollouts` (`_id` = the app's id), changed only by
 * single-document conditional updates on `revision` (no transactions). Metadata as `{key, value}`
 * lists, no map keys (the embedded server refuses some); the history is capped in code, not by `$slice`.
 */
import type { ObjectId } from 'mongodb';
import type { AppDoc } from '../catalog/types';
import type { HealthReport } from './health';
import type { RolloutAction, RolloutState } from './rollout';

export const ROLLOUTS = 'rollouts';
/** Decisions kept in a rollout's history, newest last. */
export const HISTORY_KEPT = 50;

export interface HistoryEntry {
  readonly at: Date;
  /** `start`, an action (`advance`, `halt`, …), or `superseded` (another APK made current). */
  readonly action: string;
  /** `owner` (a request) or `health-gate` (a worker's evaluation). */
  readonly by: 'owner' | 'health-gate';
  readonly from: RolloutState | null;
  readonly to: RolloutState;
  readonly percent: number;
  /** The health gate's numbers behind an automatic decision. */
  readonly health: HealthReport | null;
}

/** The health gate's running window (docs/rollouts.md). */
export interface HealthWindow {
  readonly since: Date;
  readonly lastEvaluatedAt: Date | null;
  /** Installation-hours online, sampled at each evaluation. */
  readonly newHours: number;
  readonly oldHours: number;
  /** The crash counters' values when the window opened. */
  readonly newBase: number;
  readonly oldBase: number;
  readonly last: HealthReport | null;
}

export interface RolloutDoc {
  _id: ObjectId;
  accountId: string;
  package: string;
  apkId: ObjectId;
  /** The app's current APK when the rollout started (what devices outside are offered). */
  previousApkId: ObjectId | null;
  state: RolloutState;
  stages: number[];
  stageIndex: number;
  targeting: { metadata: { key: string; values: string[] } | null; deviceIds: string[] };
  /** Bumped by every change: the condition of every update. */
  revision: number;
  startedAt: Date;
  stageStartedAt: Date;
  updatedAt: Date;
  health: HealthWindow;
  history: HistoryEntry[];
}

/** A change made to an app's rollout, as the audit log and webhooks are told of it (changes.ts). */
export interface RolloutChange {
  readonly app: AppDoc;
  readonly action: 'start' | RolloutAction;
  /** The rollout after the change. */
  readonly doc: RolloutDoc;
  /** Why, when the action alone does not say: `superseded` (another APK was made current). */
  readonly reason?: 'superseded';
}
