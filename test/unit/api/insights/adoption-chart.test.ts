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
  // Plot: x from 40 to 640 (two bars of 300 px, 90 % drawn); y from 180 (0) up to 10 (max 4),
  // so 42.5 px an installation.
  expect(text).toContain('<g class="point" data-at="2026-11-25T09:00:00.000Z" data-total="4">');
  expect(text).toMatch(rect(40, 10, 270, 170));
  // The latest bar: 3 of version 2 at the bottom (127.5 px), 1 of version 1 above it (42.5 px).
  expect(text).toMatch(rect(340, 52.5, 270, 127.5));
  expect(text).toMatch(rect(340, 10, 270, 42.5));
  expect(text).toContain('<title>2.0 (2): 3</title>');
  expect(text).toMatch(/Now: 4 installations/);
  const rows = [...text.matchAll(/<tr data-md5="(\w+)">[\s\S]*?<td>(\d+)<\/td>/g)];
  expect(rows.map((r) => [r[1], r[2]])).toEqual([
    [V2, '3'],
    [V1, '1'],
  ]);
});

test('no points: nothing drawn', () => {
  expect(adoptionChart([]).text).toBe('');
});
