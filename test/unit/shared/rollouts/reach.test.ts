import { offeredCount } from '../../../../shared/rollouts/reach';

const inst = (deviceId: string, store: string) => ({
  deviceId,
  installedMd5: null,
  metadata: [{ key: 'store', value: store }],
});
const fleet = [inst('d1', 'north'), inst('d2', 'south'), inst('d3', 'north'), inst('d4', 'east')];
const rollout = (state: 'running' | 'paused' | 'halted' | 'completed', stageIndex = 1) => ({
  state,
  stages: [0.01, 100],
  stageIndex,
  targeting: { metadata: { key: 'store', values: ['north'] }, deviceIds: ['d4'] },
});

test('at 100 %, the installations of the targeted metadata and the named devices', () => {
  expect(offeredCount(rollout('running'), 'app', fleet)).toBe(3);
  expect(offeredCount(rollout('paused'), 'app', fleet)).toBe(3);
});

test('a named device is in whatever the percentage; a completed rollout offers every one, a halted none', () => {
  // At 0.01 % the buckets below 1 are in: one chance in 10,000 per device; d4 is named.
  expect(offeredCount(rollout('running', 0), 'app', [inst('d4', 'east')])).toBe(1);
  expect(offeredCount(rollout('completed'), 'app', fleet)).toBe(4);
  expect(offeredCount(rollout('halted'), 'app', fleet)).toBe(0);
});
