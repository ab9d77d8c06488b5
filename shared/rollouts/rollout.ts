/**
 * A rollout of one APK to an app's fleet, and its state machine. Pure: the store
 * (shared/rollouts/store.ts) applies a transition as one conditional single-document update.
 *
 * States: `running` (the percentage applies and the health gate may advance or halt it),
 * `paused` (the percentage stays, nothing automatic happens), `halted` (withdrawn: every device is
 * offered the previous APK again) and `completed` (the APK is the app's current one). Halted and
 * completed are final; a new rollout replaces them.
 */
import { AppError } from '../errors';

export type RolloutState = 'running' | 'paused' | 'halted' | 'completed';
export type RolloutAction = 'pause' | 'resume' | 'advance' | 'complete' | 'halt';
export const ROLLOUT_ACTIONS: readonly RolloutAction[] = [
  'pause',
  'resume',
  'advance',
  'complete',
  'halt',
];

export function isRolloutAction(value: unknown): value is RolloutAction {
  return (ROLLOUT_ACTIONS as readonly unknown[]).includes(value);
}

export interface Targeting {
  /** Only installations whose metadata `key` has one of `values` (a percentage applies to them). */
  readonly metadata?: { readonly key: string; readonly values: readonly string[] };
  /** These devices are in whatever the percentage. */
  readonly deviceIds?: readonly string[];
}

export interface RolloutCore {
  readonly state: RolloutState;
  /** Percentages, increasing, the last one 100. */
  readonly stages: readonly number[];
  readonly stageIndex: number;
}

/** The default stages (the example). */
export const DEFAULT_STAGES: readonly number[] = [1, 5, 25, 100];

/** Validates stages: 1 to 10 increasing percentages in (0, 100], 0.01 steps, the last 100. */
export function parseStages(value: unknown): number[] {
  if (value === undefined) return [...DEFAULT_STAGES];
  const bad = (why: string) =>
    new AppError('VALIDATION_FAILED', { message: `stages: ${why}`, details: { stages: value } });
  if (!Array.isArray(value) || value.length < 1 || value.length > 10) {
    throw bad('a list of 1 to 10 percentages');
  }
  const stages = value as unknown[];
  stages.forEach((s, i) => {
    if (typeof s !== 'number' || !(s > 0 && s <= 100) || Math.round(s * 100) !== s * 100) {
      throw bad('each a number above 0 and at most 100, in steps of 0.01');
    }
    if (i > 0 && s <= (stages[i - 1] as number)) throw bad('each larger than the one before');
  });
  if (stages[stages.length - 1] !== 100) throw bad('the last one must be 100');
  return stages as number[];
}

export function percentOf(r: RolloutCore): number {
  if (r.state === 'completed') return 100;
  if (r.state === 'halted') return 0;
  return r.stages[r.stageIndex] ?? 100;
}

/** The state after `action`, or a CONFLICT error naming why it does not apply. */
export function transition(r: RolloutCore, action: RolloutAction): RolloutCore {
  const refuse = () =>
    new AppError('ROLLOUT_STATE_CONFLICT', {
      message: `cannot ${action} a ${r.state} rollout`,
      details: { state: r.state, action },
    });
  if (r.state === 'halted' || r.state === 'completed') throw refuse();
  switch (action) {
    case 'pause':
      if (r.state !== 'running') throw refuse();
      return { ...r, state: 'paused' };
    case 'resume':
      if (r.state !== 'paused') throw refuse();
      return { ...r, state: 'running' };
    case 'advance': {
      if (r.state !== 'running') throw refuse();
      const next = r.stageIndex + 1;
      if (next >= r.stages.length - 1)
        return { ...r, state: 'completed', stageIndex: r.stages.length - 1 };
      return { ...r, stageIndex: next };
    }
    case 'complete':
      return { ...r, state: 'completed', stageIndex: r.stages.length - 1 };
    case 'halt':
      return { ...r, state: 'halted' };
  }
}

/** The actions `transition` accepts in `r`'s state (the web administration offers only these). */
export function allowedActions(r: RolloutCore): RolloutAction[] {
  return ROLLOUT_ACTIONS.filter((action) => {
    try {
      transition(r, action);
      return true;
    } catch {
      return false;
    }
  });
}
