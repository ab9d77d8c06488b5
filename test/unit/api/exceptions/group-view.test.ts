import { trendSummary } from '../../../../api/exceptions/group-view';

test('an issue trend summary states its total and its busiest bucket', () => {
  expect(trendSummary([0, 3, 1, 0], 'h')).toBe(
    '4 reports of this issue in the last 24 h; most in one hour: 3.',
  );
  expect(trendSummary([2, 0, 5], 'd')).toBe(
    '7 reports of this issue in the last 30 days; most in one day: 5.',
  );
});
