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

/** WCAG 2 contrast ratio of two #rrggbb / #rgb colours, written from the definition. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string): number => {
    const h = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join('') : hex.slice(1);
    const [r, g, bl] = [0, 2, 4].map((i) => {
      const c = parseInt(h.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

test.each(['running', 'halted'] as const)(
  'every stage label of a %s rollout reads at 4.5:1 or more on its fill',
  (state) => {
    const text = flat(stageProgress({ stages, stageIndex: 1, state }).text);
    const pairs = [
      ...text.matchAll(/fill="(#[0-9a-f]+)"[^<]*\/>\s*<text[^>]*fill="(#[0-9a-f]+)"/g),
    ];
    expect(pairs).toHaveLength(4);
    for (const [, fill, ink] of pairs) expect(contrast(fill!, ink!)).toBeGreaterThanOrEqual(4.5);
  },
);
