import { exactText, relativeText, when } from '../../../../api/web/time';

const NOW = new Date('2026-11-29T12:00:00.000Z');

test.each([
  ['2026-11-29T12:00:00.400Z', 'just now'],
  ['2026-11-29T11:59:18.000Z', '42 s ago'],
  ['2026-11-29T11:57:00.000Z', '3 min ago'],
  ['2026-11-29T14:30:00.000Z', 'in 2 h'],
  ['2026-11-24T11:00:00.000Z', '5 d ago'],
  ['2026-09-29T12:00:00.000Z', '2 mo ago'],
  ['2024-11-29T12:00:00.000Z', '2 y ago'],
])('%s is "%s" at noon on 2026-11-29', (at, text) => {
  expect(relativeText(new Date(at), NOW)).toBe(text);
});

test('the exact time is UTC to the second', () => {
  expect(exactText(new Date('2026-11-29T01:23:44.987Z'))).toBe('2026-11-29 01:23:44 UTC');
});

test('the element carries datetime and the exact time on hover', () => {
  const text = when('2026-11-29T11:57:00.000Z', NOW).text.replace(/\s+/g, ' ');
  expect(text).toBe(
    '<time datetime="2026-11-29T11:57:00.000Z" title="2026-11-29 11:57:00 UTC" >3 min ago</time >',
  );
});

test('a value that is no date is shown as it is, escaped', () => {
  expect(when('<soon>', NOW).text).toBe('<time>&lt;soon&gt;</time>');
});
