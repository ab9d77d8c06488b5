import { flat } from '../../../../helpers/markup';
import {
  stageProgress,
  stageSegments,
  stageSummary,
} from '../../../../../api/web/charts/stage-progress';

const stages = [1, 5, 25, 100];

test('four equal segments of 117 with 4 between; passed, current, then those to come', () => {
  expect(stageSegments({ stages, stageIndex: 1, state: 'running' })).toEqual([
    { percent: 1, x: 0, width: 117, phase: 'passed' },
    { percent: 5, x: 121, width: 117, phase: 'current' },
    { percent: 25, x: 242, width: 117, phase: 'ahead' },
    { percent: 100, x: 363, width: 117, phase: 'ahead' },
  ]);
  const text = flat(stageProgress({ stages, stageIndex: 1, state: 'running' }).text);
  expect(text).toMatch(/data-phase="current" aria-current="step"/);
  expect(text).toContain('>now</text>');
});

test('a halted rollout marks its stage halted; a completed one has every stage passed', () => {
  const halted = stageSegments({ stages, stageIndex: 1, state: 'halted' }).map((s) => s.phase);
  expect(halted).toEqual(['passed', 'halted', 'ahead', 'ahead']);
  const done = stageSegments({ stages: [5, 100], stageIndex: 1, state: 'completed' });
  expect(done.map((s) => [s.x, s.width, s.phase])).toEqual([
    [0, 238, 'passed'],
    [242, 238, 'passed'],
  ]);
});

test.each([
  ['running', 1, 'Stage 2 of 4 (5 %), running; stages 1 %, 5 %, 25 %, 100 %.'],
  ['paused', 0, 'Stage 1 of 4 (1 %), paused; stages 1 %, 5 %, 25 %, 100 %.'],
  ['halted', 1, 'Halted at stage 2 of 4 (5 %); stages 1 %, 5 %, 25 %, 100 %.'],
  ['completed', 3, 'Completed: all 4 stages passed; stages 1 %, 5 %, 25 %, 100 %.'],
] as const)('a %s rollout at stage %p: %p', (state, stageIndex, summary) => {
  expect(stageSummary({ stages, stageIndex, state })).toBe(summary);
});
