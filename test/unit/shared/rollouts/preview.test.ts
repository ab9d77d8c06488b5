/**
 * The rollout preview (issue 31). Buckets written out by hand from `sha256sum`:
 * `printf %s 65a1b2c3d4e5f60718293a4b:dev-a | sha256sum`, first 8 hex digits, modulo 10,000.
 */
import { previewPercent, previewRollout } from '../../../../shared/rollouts/preview';

const APP = '65a1b2c3d4e5f60718293a4b';
const DEVICES = ['dev-a', 'dev-b', 'dev-c', 'dev-d'];

test('each installation with its bucket, lowest first, and who is in at the percentage', () => {
  expect(previewRollout(APP, DEVICES, 50)).toEqual({
    appId: APP,
    percent: 50,
    threshold: 5000,
    buckets: 10000,
    installations: 4,
    included: 2,
    devices: [
      { deviceId: 'dev-d', bucket: 1555, included: true },
      { deviceId: 'dev-b', bucket: 4571, included: true },
      { deviceId: 'dev-c', bucket: 5467, included: false },
      { deviceId: 'dev-a', bucket: 5632, included: false },
    ],
  });
  expect(previewRollout(APP, DEVICES, 15.56).included).toBe(1); // threshold 1556 > 1555
  expect(previewRollout(APP, DEVICES, 15.55).included).toBe(0); // threshold 1555
  expect(previewRollout(APP, DEVICES, 100).included).toBe(4);
  expect(previewRollout(APP, [], 10)).toMatchObject({ installations: 0, included: 0 });
});

test.each([
  ['10', 10],
  ['0', 0],
  ['100', 100],
  ['12.5', 12.5],
  ['0.01', 0.01],
  ['100.01', null],
  ['-1', null],
  ['0.001', null],
  ['ten', null],
  ['', null],
  [undefined, null],
])('previewPercent(%j) is %j', (value, expected) => {
  expect(previewPercent(value)).toBe(expected);
});
