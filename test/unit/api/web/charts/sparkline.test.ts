import { flat } from '../../../../helpers/markup';
import {
  sparkline,
  sparklinePoints,
  sparklineSummary,
} from '../../../../../api/web/charts/sparkline';

const input = {
  kind: 'crash-sparkline',
  title: 'Unhandled crash reports per hour',
  values: [0, 2, 4],
  unit: 'unhandled crash reports',
  period: 'hour',
  span: 'in the last 24 h',
};

test('points spread over 120 × 28 with a 3 px margin, the maximum at the top', () => {
  expect(sparklinePoints([0, 2, 4])).toEqual([
    [3, 25],
    [60, 14],
    [117, 3],
  ]);
  expect(sparklinePoints([0, 0])).toEqual([
    [3, 25],
    [117, 25],
  ]);
  const text = flat(sparkline(input).text);
  expect(text).toContain('points="3.00,25.00 60.00,14.00 117.00,3.00"');
  expect(text).toContain('<circle cx="117.00" cy="3.00" r="2"');
});

test('the summary states the total, the maximum and every value in order', () => {
  expect(sparklineSummary(input)).toBe(
    '6 unhandled crash reports in the last 24 h, at most 4 in one hour; by hour, oldest first: 0, 2, 4.',
  );
  expect(sparklineSummary({ ...input, values: [0, 0] })).toBe(
    '0 unhandled crash reports in the last 24 h, at most 0 in one hour; by hour, oldest first: 0, 0.',
  );
});
