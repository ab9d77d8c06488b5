import { fleetSummary } from '../../../../shared/devices/fleet-summary';

const apks = [
  { md5: 'm2', versionCode: 2, versionName: '1.1' },
  { md5: 'm1', versionCode: 1, versionName: '1.0' },
];
const row = (deviceId: string, installedMd5: string | null, seen: string, ahead = false) => ({
  deviceId,
  installedMd5,
  lastSeenAt: new Date(`2026-11-29T${seen}:00.000Z`),
  ahead,
});

test('online and offline by the threshold, counts per version, ahead devices named', () => {
  const summary = fleetSummary(
    [
      row('d1', 'm1', '12:00'),
      row('d2', 'm1', '11:59'),
      row('d3', 'm2', '12:05', true),
      row('d0', 'm2', '10:00', true),
      row('d4', null, '12:01'),
      row('d5', 'm9', '09:00'),
    ],
    apks,
    new Date('2026-11-29T12:00:00.000Z'),
  );
  expect(summary).toEqual({
    total: 6,
    online: 3, // d1 (at the threshold), d3, d4
    offline: 3,
    versions: [
      { md5: 'm2', versionCode: 2, versionName: '1.1', installations: 2 },
      { md5: 'm1', versionCode: 1, versionName: '1.0', installations: 2 },
      { md5: null, versionCode: null, versionName: null, installations: 2 },
    ],
    ahead: ['d0', 'd3'],
  });
});

test('an app without installations has an empty summary', () => {
  expect(fleetSummary([], apks, new Date(0))).toEqual({
    total: 0,
    online: 0,
    offline: 0,
    versions: [],
    ahead: [],
  });
});
