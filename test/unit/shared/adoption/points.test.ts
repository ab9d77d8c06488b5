import { adoptionPoint, sampleTime } from '../../../../shared/adoption/points';

const V1 = '11111111111111111111111111111111';
const V2 = '22222222222222222222222222222222';
const ODD = '99999999999999999999999999999999';
const apks = [
  { md5: V1, versionCode: 1, versionName: '1.0' },
  { md5: V2, versionCode: 2, versionName: '2.0' },
];
const at = new Date('2026-11-25T10:17:42.123Z');

test('sample times are the start of the hour, UTC', () => {
  expect(sampleTime(at).toISOString()).toBe('2026-11-25T10:00:00.000Z');
  expect(sampleTime(new Date('2026-11-25T23:59:59.999Z')).toISOString()).toBe(
    '2026-11-25T23:00:00.000Z',
  );
});

test('a point: versions by versionCode, newest first, then unknown hashes, then none', () => {
  const counts = new Map<string | null, number>([
    [null, 1],
    [V1, 3],
    [ODD, 2],
    [V2, 5],
  ]);
  expect(adoptionPoint(at, counts, apks)).toEqual({
    at,
    total: 11,
    versions: [
      { md5: V2, versionCode: 2, versionName: '2.0', count: 5 },
      { md5: V1, versionCode: 1, versionName: '1.0', count: 3 },
      { md5: ODD, versionCode: null, versionName: null, count: 2 },
      { md5: null, versionCode: null, versionName: null, count: 1 },
    ],
  });
});

test('no installation seen: an empty point', () => {
  expect(adoptionPoint(at, new Map(), apks)).toEqual({ at, total: 0, versions: [] });
});
