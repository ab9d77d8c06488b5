import { adoptionChart, versionLabel } from '../../../../api/insights/adoption-chart';

const V1 = '11111111111111111111111111111111';
const V2 = '22222222222222222222222222222222';
const v = (md5: string, versionCode: number, count: number) => ({
  md5,
  versionCode,
  versionName: `${versionCode}.0`,
  count,
});
const points = [
  { at: new Date('2026-11-25T09:00:00.000Z'), total: 4, versions: [v(V1, 1, 4)] },
  { at: new Date('2026-11-25T10:12:00.000Z'), total: 4, versions: [v(V2, 2, 3), v(V1, 1, 1)] },
];

/** A rect with these attributes, whatever whitespace separates them. */
const rect = (x: number, y: number, w: number, h: number) =>
  new RegExp(
    `<rect\\s+x="${x.toFixed(2)}"\\s+y="${y.toFixed(2)}"\\s+width="${w.toFixed(2)}"\\s+height="${h.toFixed(2)}"`,
  );

test('labels', () => {
  expect(versionLabel(v(V2, 2, 1))).toBe('2.0 (2)');
  expect(versionLabel({ md5: V2, versionCode: null, versionName: null })).toBe('unknown 22222222');
  expect(versionLabel({ md5: null, versionCode: null, versionName: null })).toBe(
    'no hash reported',
  );
});

test('one bar per point, stacked to scale; the latest point also as a table', () => {
  const text = adoptionChart(points).text;
  // Plot: x from 40 to 640; a point's slot is at most 60 px (54 px drawn), the latest at the
  // right edge: slots at 520 and 580. y from 180 (0) up to 10 (max 4), so 42.5 px an installation.
  expect(text).toContain('<g class="point" data-at="2026-11-25T09:00:00.000Z" data-total="4">');
  expect(text).toMatch(rect(520, 10, 54, 170));
  // The latest bar: 3 of version 2 at the bottom (127.5 px), 1 of version 1 above it (42.5 px).
  expect(text).toMatch(rect(580, 52.5, 54, 127.5));
  expect(text).toMatch(rect(580, 10, 54, 42.5));
  expect(text).toContain('<title>2.0 (2): 3</title>');
  expect(text).toMatch(/Now: 4 installations/);
  const rows = [...text.matchAll(/<tr data-md5="(\w+)">[\s\S]*?<td>(\d+)<\/td>/g)];
  expect(rows.map((r) => [r[1], r[2]])).toEqual([
    [V2, '3'],
    [V1, '1'],
  ]);
});

test('one point is one bar of normal width at the right edge, labelled with its total and "now"', () => {
  const text = adoptionChart([points[1]!]).text;
  // One slot of 60 px at the right edge (580 to 640), 54 px drawn; the scale as above (max 4).
  expect(text).toMatch(rect(580, 52.5, 54, 127.5));
  expect(text).toMatch(rect(580, 10, 54, 42.5));
  expect(text).not.toMatch(/width="(?!54\.00|640|10")[\d.]+"/);
  // Its label, centred under the bar (x 607), in the bottom margin: the total and "now".
  expect(text).toMatch(
    /<text\s+class="point-label"\s+x="607\.00"\s+y="195"[^>]*>\s*4 now\s*<\/text>/,
  );
});

test('no points: nothing drawn', () => {
  expect(adoptionChart([]).text).toBe('');
});
