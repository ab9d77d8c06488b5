import { flat } from '../../../../helpers/markup';
import { stackedBar, stackedBarSummary } from '../../../../../api/web/charts/stacked-bar';

const input = {
  kind: 'fleet-versions',
  title: 'Installations by version',
  unit: 'installations',
  parts: [
    { label: '1.1 (11)', count: 3 },
    { label: '1.2 (12), ahead', count: 1 },
    { label: 'gone', count: 0 },
  ],
  tail: '3 online, 1 offline.',
};

test('each part is as wide as its share of 320, in order, with a legend row per part', () => {
  const text = flat(stackedBar(input).text);
  expect(text).toMatch(/<rect x="0.00" y="0" width="240.00" height="18" fill="#2b6cb0"/);
  expect(text).toMatch(/<rect x="240.00" y="0" width="80.00" height="18" fill="#dd6b20"/);
  expect(text).toContain('viewBox="0 0 320 56"');
  expect(text).toContain('>1.1 (11): 3 (75 %)</text>');
  expect(text).toContain('>1.2 (12), ahead: 1 (25 %)</text>');
  expect(text).not.toContain('gone');
});

test('the summary states every part’s count and share, then the tail', () => {
  expect(stackedBarSummary(input)).toBe(
    '4 installations: 1.1 (11) on 3 (75 %), 1.2 (12), ahead on 1 (25 %). 3 online, 1 offline.',
  );
  expect(flat(stackedBar(input).text)).toContain(
    '<figcaption class="chart-summary">4 installations: 1.1 (11) on 3 (75 %), 1.2 (12), ahead on 1 (25 %). 3 online, 1 offline.</figcaption>',
  );
});

test('nothing to count: one grey bar and "No installations."', () => {
  const empty = { ...input, parts: [], tail: undefined };
  expect(stackedBarSummary(empty)).toBe('No installations.');
  expect(flat(stackedBar(empty).text)).toContain(
    '<rect x="0" y="0" width="320" height="18" fill="#e2e8f0" />',
  );
});
