import { haltReason, timesText } from '../../../../shared/rollouts/halt-reason';
import { gateHalt, haltReport } from '../../../helpers/rollout-history';
import type { HistoryEntry } from '../../../../shared/rollouts/types';

const v12 = { versionCode: 12, versionName: '1.2' };
const v11 = { versionCode: 11, versionName: '1.1' };
const at = new Date('2026-11-29T01:00:00Z');
const start: HistoryEntry = {
  at,
  action: 'start',
  by: 'owner',
  from: null,
  to: 'running',
  percent: 5,
  health: null,
};
const report = haltReport(110, 5, 30, 30);

test('the health gate’s halt: the rate ratio in words', () => {
  const r = { state: 'halted', history: [start, gateHalt(report)] };
  expect(haltReason(r, v12, v11)).toBe(
    'Halted by the health gate: 1.2 crashed 22× as often as 1.1.',
  );
});

test('no ratio when the previous version did not crash', () => {
  const health = { ...report, oldCount: 0, ratio: null };
  expect(haltReason({ state: 'halted', history: [start, gateHalt(health)] }, v12, v11)).toBe(
    'Halted by the health gate: 1.2 crashed 110 times; 1.1 did not crash.',
  );
  const noName = { versionCode: 12, versionName: null };
  expect(
    haltReason({ state: 'halted', history: [gateHalt({ ...health, newCount: 1 })] }, noName, null),
  ).toBe('Halted by the health gate: 12 crashed once; the previous version did not crash.');
});

test('the owner’s halt, a superseded rollout, and a rollout that is not halted', () => {
  const owner: HistoryEntry = { ...gateHalt(report), by: 'owner', health: null };
  expect(haltReason({ state: 'halted', history: [start, owner] }, v12, v11)).toBe(
    'Halted by the owner.',
  );
  const superseded: HistoryEntry = { ...owner, action: 'superseded' };
  expect(haltReason({ state: 'halted', history: [start, superseded] }, v12, v11)).toBe(
    'Halted: another APK was made current.',
  );
  expect(haltReason({ state: 'running', history: [start] }, v12, v11)).toBeNull();
});

test.each([
  [22.04, '22'],
  [10.5, '11'],
  [2.44, '2.4'],
  [5, '5'],
])('a ratio of %p reads %p×', (ratio, text) => expect(timesText(ratio)).toBe(text));
