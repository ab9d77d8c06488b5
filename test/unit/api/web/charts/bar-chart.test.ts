import { barChart, niceTicks } from '../../../../../api/web/charts/bar-chart';

test.each([
  [0, [0, 1]],
  [1, [0, 1]],
  [3, [0, 1, 2, 3]],
  [7, [0, 2, 4, 6, 8]],
  [24, [0, 5, 10, 15, 20, 25]],
  [120, [0, 50, 100, 150]],
])('the y ticks of a maximum of %p are %p', (max, ticks) => expect(niceTicks(max)).toEqual(ticks));

/** The attributes of every `<rect>` of the SVG, in order. */
function rects(svg: string): Array<Record<string, string>> {
  return [...svg.matchAll(/<rect\s([^>]*)>/g)].map((m) =>
    Object.fromEntries([...m[1]!.matchAll(/([a-z-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!])),
  );
}

test('bars stand on the x axis, scaled to the top tick; axes, ticks and titles are drawn', () => {
  const text = barChart({
    kind: 'demo-bars',
    title: 'Reports per hour',
    summary: '6 reports in 4 hours; most in one hour: 3 (01:00).',
    bars: [
      { label: '00:00', value: 0 },
      { label: '01:00', value: 3 },
      { label: '02:00', value: 1 },
      { label: '03:00', value: 2 },
    ],
    xTitle: 'hour (UTC)',
    yTitle: 'reports',
    labelEvery: 2,
  }).text.replace(/\s+/g, ' ');
  // Plot 44..472 × 10..164: 4 slots of 107, bars 105 wide; ticks 0..3 → 154 px per 3.
  expect(rects(text).map(({ x, y, width, height }) => [x, y, width, height])).toEqual([
    ['45', '164', '105', '0'],
    ['152', '10', '105', '154'],
    ['259', '112.7', '105', '51.3'],
    ['366', '61.3', '105', '102.7'],
  ]);
  for (const [value, y] of [
    [0, 164],
    [1, 112.7],
    [2, 61.3],
    [3, 10],
  ] as const) {
    expect(text).toContain(`y1="${y}" x2="472" y2="${y}"`);
    expect(text).toMatch(new RegExp(`y="${y + 4}"[^>]*[^<]*>${value}</text`));
  }
  // Labels under every second bar (centred: x + 52.5), none under the others.
  expect(text).toMatch(/x="97.5" y="178"[^>]*>00:00<\/text/);
  expect(text).toMatch(/x="311.5" y="178"[^>]*>02:00<\/text/);
  expect(text).not.toMatch(/>01:00<\/text/);
  expect(text).toContain('<title>01:00: 3</title>');
  expect(text).toMatch(/>hour \(UTC\)<\/text/);
  expect(text).toMatch(/rotate\(-90[^>]*>reports<\/text/);
  expect(text).toContain('aria-label="Reports per hour"');
  expect(text).toContain('6 reports in 4 hours; most in one hour: 3 (01:00).</figcaption>');
});
