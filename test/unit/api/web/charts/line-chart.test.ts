import { flat } from '../../../../helpers/markup';
import {
  lineChart,
  lineMax,
  lineSummary,
  lineX,
  lineY,
  stepSpan,
} from '../../../../../api/web/charts/line-chart';

const input = {
  kind: 'rollout-crash-rates',
  title: 'Crashes per installation-hour',
  measure: 'Crashes per installation-hour',
  point: 'evaluation',
  series: [
    { name: '1.2', values: [1, 4] },
    { name: '1.1', values: [0.5, null] },
    { name: 'halt threshold', values: [1, null], dashed: true, colour: '#c53030' },
  ],
};

test('x from 44 to 472 (one point: 258), y from 170 (0) up to 10 (the largest value)', () => {
  expect([lineX(0, 2), lineX(1, 2), lineX(0, 1)]).toEqual([44, 472, 258]);
  expect(lineMax(input.series)).toBe(4);
  expect(lineMax([{ name: 'none', values: [0, null] }])).toBe(1);
  expect([lineY(4, 4), lineY(1, 4), lineY(0.5, 4), lineY(0, 4)]).toEqual([10, 130, 150, 170]);
});

test('one point’s threshold spans the plot; several points’ steps meet half-way', () => {
  expect(stepSpan(0, 1)).toEqual([44, 472]);
  expect([stepSpan(0, 3), stepSpan(1, 3), stepSpan(2, 3)]).toEqual([
    [44, 151],
    [151, 365],
    [365, 472],
  ]);
});

test('each series is a line with markers; unknown values are left out; the threshold dashed', () => {
  const text = flat(lineChart(input).text);
  expect(text).toContain('points="44.00,130.00 472.00,10.00"');
  expect(text).toContain('points="44.00,150.00"');
  // The threshold: a dashed level step from the plot's left edge to half-way to the next point.
  expect(text).toContain(
    '<line x1="44.00" y1="130.00" x2="258.00" y2="130.00" stroke="#c53030" stroke-width="2" stroke-dasharray="6 4" />',
  );
  expect(text).toContain('<circle cx="472.00" cy="10.00" r="3" fill="#2b6cb0" />');
  expect(text).toMatch(/text-anchor="end">4<\/text>/);
});

test('the summary states every value of every series', () => {
  expect(lineSummary(input)).toBe(
    'Crashes per installation-hour at 2 evaluations: 1.2: 1, 4; 1.1: 0.5, —; halt threshold: 1, —.',
  );
  expect(lineSummary({ ...input, series: [{ name: '1.2', values: [3] }] })).toBe(
    'Crashes per installation-hour at 1 evaluation: 1.2: 3.',
  );
  expect(lineSummary({ ...input, series: [] })).toBe(
    'Crashes per installation-hour: no evaluations yet.',
  );
});
