/** Literal rollout decisions for unit tests of what is drawn or said from a rollout's history. */
import type { HealthReport } from '../../shared/rollouts/health';
import type { HistoryEntry } from '../../shared/rollouts/types';

/** The health gate's halt with these numbers. */
export function gateHalt(
  health: HealthReport,
  at = new Date('2026-11-29T01:00:00Z'),
): HistoryEntry {
  return {
    at,
    action: 'halt',
    by: 'health-gate',
    from: 'running',
    to: 'halted',
    percent: 0,
    health,
  };
}

/** A halt report: `newCount` in `newHours` against `oldCount` in `oldHours`. */
export function haltReport(
  newCount: number,
  newHours: number,
  oldCount: number,
  oldHours: number,
): HealthReport {
  const ratio = oldCount > 0 ? newCount / newHours / (oldCount / oldHours) : null;
  return { verdict: 'halt', newCount, newHours, oldCount, oldHours, ratio, pValue: 1e-9 };
}
