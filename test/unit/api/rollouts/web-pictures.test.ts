import { crashRateChart, ratePoints } from '../../../../api/rollouts/web-pictures';
import type { PresentedRollout } from '../../../../shared/rollouts/present';
import { flat } from '../../../helpers/markup';

const T1 = '2026-11-29T01:00:00.000Z';
const T2 = '2026-11-29T01:05:00.000Z';
const T3 = '2026-11-29T01:10:00.000Z';
const report = (newCount: number, newHours: number, oldCount: number, oldHours: number) => ({
  verdict: 'healthy' as const,
  newCount,
  newHours,
  oldCount,
  oldHours,
  ratio: null,
  pValue: null,
});
const entry = (at: string, action: string, health: ReturnType<typeof report> | null) => ({
  at,
  action,
  by: health ? ('health-gate' as const) : ('owner' as const),
  from: 'running' as const,
  to: 'running' as const,
  percent: 5,
  health,
});

function rollout(
  history: Array<ReturnType<typeof entry>>,
  last: { at: string; report: ReturnType<typeof report> } | null,
) {
  return {
    apk: { versionName: '2.0', versionCode: 2 },
    previous: { versionName: '1.0', versionCode: 1 },
    gate: { factor: 2, minExceptions: 10, soakMs: 0 },
    health: { lastEvaluatedAt: last?.at ?? null, last: last?.report ?? null },
    history,
  } as unknown as PresentedRollout;
}

const decided = [
  entry(T1, 'start', null),
  entry(T1, 'advance', report(10, 2, 5, 1)),
  entry(T2, 'halt', report(100, 0.5, 20, 0.5)),
];

test('a point per automatic decision, then the last evaluation when nothing was decided on it', () => {
  expect(ratePoints(rollout(decided, { at: T2, report: report(100, 0.5, 20, 0.5) }))).toEqual([
    { at: T1, what: 'advance, verdict healthy', newRate: 5, oldRate: 5 },
    { at: T2, what: 'halt, verdict healthy', newRate: 200, oldRate: 40 },
  ]);
  const later = ratePoints(rollout(decided.slice(0, 2), { at: T3, report: report(3, 1, 0, 0) }));
  expect(later.map((p) => [p.at, p.what, p.newRate, p.oldRate])).toEqual([
    [T1, 'advance, verdict healthy', 5, 5],
    [T3, 'evaluated, verdict healthy', 3, null],
  ]);
});

test('the chart states both versions’ rates and the halt threshold (2 × the previous rate)', () => {
  const now = new Date('2026-11-29T01:15:00Z');
  const out = flat(crashRateChart(rollout(decided, null), now).text);
  expect(out).toContain(
    'Crashes per installation-hour at 2 evaluations: 2.0 (2): 5, 200; 1.0 (1): 5, 40; halt threshold (2× 1.0 (1)): 10, 80.',
  );
  expect(out).toContain(
    'title="2026-11-29 01:05:00 UTC">10 min ago</time>: halt, verdict healthy</li>',
  );
  expect(flat(crashRateChart(rollout([], null), now).text)).toBe(
    '<p>The health gate has not evaluated this rollout yet.</p>',
  );
});
