import { buckets, groupBreakdown } from '../../../../shared/exceptions/group-breakdown';

const NOW = Date.parse('2026-11-29T12:00:00.000Z');
const at = (iso: string) => new Date(`2026-11-${iso}:00.000Z`);

test('rolling buckets: the last one ends just before now; earlier and later times fall out', () => {
  const times = [at('29T11:59'), at('29T11:00'), at('29T10:59'), at('29T12:00'), at('29T08:00')];
  // 4 one-hour buckets from 08:00: [08,09) [09,10) [10,11) [11,12)
  expect(buckets(times, NOW, 4, 3_600_000)).toEqual([1, 0, 1, 2]);
});

test('a group: hourly over 24 h, daily over 30 days, versions and devices most first', () => {
  const report = (when: string, version: string, deviceId: string) => ({
    receivedAt: at(when),
    version,
    deviceId,
  });
  const b = groupBreakdown(
    [
      report('29T11:30', '1.1 (2)', 'd2'),
      report('29T11:10', '1.1 (2)', 'd1'),
      report('28T12:30', '1.0 (1)', 'd1'), // 23.5 h ago: the first hour
      report('28T11:30', '1.0 (1)', 'd3'), // 24.5 h ago: daily only
      report('10T12:00', '1.0 (1)', 'd1'), // 19 days ago
      report('20T09:00', '1.1 (2)', 'd1'), // 9 days 3 hours ago
    ],
    NOW,
  );
  expect(b.hourly).toEqual([1, ...new Array<number>(22).fill(0), 2]);
  const daily = new Array(30).fill(0);
  daily[29] = 3; // the last 24 h
  daily[28] = 1; // 24.5 h ago
  daily[20] = 1; // 9 d 3 h ago: in the bucket from 10 d to 9 d before now (30 - 10)
  daily[11] = 1; // 19 d ago exactly: the bucket that starts then (30 - 19)
  expect(b.daily).toEqual(daily);
  expect(b.versions).toEqual([
    { name: '1.0 (1)', reports: 3 },
    { name: '1.1 (2)', reports: 3 },
  ]);
  expect(b.devices).toEqual([
    { name: 'd1', reports: 4 },
    { name: 'd2', reports: 1 },
    { name: 'd3', reports: 1 },
  ]);
});
