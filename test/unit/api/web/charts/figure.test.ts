import { html } from '../../../../../api/web/html';
import { chartFigure, figureText, percentText } from '../../../../../api/web/charts/figure';

test('a chart is an SVG named for screen readers, followed by its summary in text', () => {
  const text = chartFigure({
    kind: 'demo',
    title: 'Crashes <per> hour',
    summary: '3 crashes in 24 h & none since 10:00.',
    width: 200,
    height: 40,
    body: html`<rect width="10" height="10" />`,
  }).text;
  expect(text).toContain('data-chart="demo"');
  expect(text).toContain('aria-label="Crashes &lt;per&gt; hour"');
  expect(text).toContain('viewBox="0 0 200 40"');
  expect(text).toContain('<rect width="10" height="10" />');
  expect(text).toContain(
    '<figcaption class="chart-summary">3 crashes in 24 h &amp; none since 10:00.</figcaption>',
  );
});

test.each([
  [1234, '1,234'],
  [0.012345, '0.0123'],
  [22.04, '22'],
])('figureText(%p) is %p', (n, text) => expect(figureText(n)).toBe(text));

test.each([
  [1, 3, '33 %'],
  [1, 250, '0.4 %'],
  [5, 0, '0 %'],
])('percentText(%p, %p) is %p', (part, whole, text) => expect(percentText(part, whole)).toBe(text));
