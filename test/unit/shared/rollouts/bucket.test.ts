import { bucketOf, thresholdOf } from '../../../../shared/rollouts/bucket';

// Expected buckets computed outside the code: `printf '%s' 'app1:dev-1' | sha256sum`, first 8 hex
// digits as an integer, modulo 10000.
test.each([
  ['app1', 'dev-1', 7848], // 0x658ab008
  ['app1', 'dev-2', 6568], // 0x40f4abb8
  ['6745aa', 'kiosk-001', 2493], // 0x96cb66ad
  ['app1', 'dev-1x', 1143], // 0xb690ece7
])('bucket of %s / %s is %d', (app, device, bucket) => {
  expect(bucketOf(app, device)).toBe(bucket);
});

test.each([
  [1, 100],
  [5, 500],
  [25, 2500],
  [100, 10000],
  [0.01, 1],
  [12.34, 1234],
])('threshold of %d %% is %d buckets', (percent, threshold) => {
  expect(thresholdOf(percent)).toBe(threshold);
});
