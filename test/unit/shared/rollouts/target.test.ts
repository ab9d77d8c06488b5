import { inRollout, targetFor, type RolloutView } from '../../../../shared/rollouts/target';

// Buckets of app `app1` (hand-computed in bucket.test.ts): dev-1 → 7848, dev-2 → 6568,
// dev-1x → 1143.
const OLD = { id: 'old', md5: 'o'.repeat(32), versionCode: 1 };
const NEW = { id: 'new', md5: 'n'.repeat(32), versionCode: 2 };

function rollout(over: Partial<RolloutView>): RolloutView {
  return {
    appId: 'app1',
    apk: NEW,
    state: 'running',
    stages: [10, 70, 80, 100],
    stageIndex: 0,
    targeting: {},
    ...over,
  };
}
const dev = (
  deviceId: string,
  metadata: Array<{ key: string; value: string }> = [],
  installedMd5: string | null = OLD.md5,
) => ({ deviceId, metadata, installedMd5 });

test.each([
  // [stageIndex (10, 70, 80, 100 %), device, in?]
  [0, 'dev-1x', false], // 1143 ≥ 1000
  [1, 'dev-1x', true], // 1143 < 7000
  [0, 'dev-1', false],
  [1, 'dev-2', true], // 6568 < 7000
  [1, 'dev-1', false], // 7848 ≥ 7000
  [2, 'dev-1', true], // 7848 < 8000
])('stage %d: %s in = %s', (stageIndex, deviceId, expected) => {
  const r = rollout({ stageIndex });
  expect(inRollout(r, dev(deviceId))).toBe(expected);
  expect(targetFor({ current: OLD, rollout: r }, dev(deviceId))).toEqual(expected ? NEW : OLD);
});

test('halted and completed rollouts: everyone gets the current APK', () => {
  for (const state of ['halted', 'completed'] as const) {
    expect(
      targetFor({ current: OLD, rollout: rollout({ state, stageIndex: 3 }) }, dev('dev-2')),
    ).toEqual(OLD);
  }
  expect(
    targetFor({ current: OLD, rollout: rollout({ state: 'paused', stageIndex: 1 }) }, dev('dev-2')),
  ).toEqual(NEW);
  expect(targetFor({ current: null, rollout: null }, dev('dev-2'))).toBeNull();
});

test('targeting: metadata restricts the population, listed devices are always in', () => {
  const store = rollout({
    stageIndex: 2,
    targeting: { metadata: { key: 'store', values: ['lisbon', 'porto'] } },
  });
  expect(inRollout(store, dev('dev-2', [{ key: 'store', value: 'porto' }]))).toBe(true);
  expect(inRollout(store, dev('dev-2', [{ key: 'store', value: 'faro' }]))).toBe(false);
  expect(inRollout(store, dev('dev-2'))).toBe(false);
  // In the population and below the threshold (7848 < 8000).
  expect(inRollout(store, dev('dev-1', [{ key: 'store', value: 'porto' }]))).toBe(true);
  const listed = rollout({ stageIndex: 0, targeting: { deviceIds: ['dev-1'] } });
  expect(inRollout(listed, dev('dev-1'))).toBe(true);
  // Only the listed devices, whatever their bucket.
  expect(inRollout(listed, dev('dev-2'))).toBe(false);
  expect(
    inRollout(rollout({ state: 'halted', targeting: { deviceIds: ['dev-1'] } }), dev('dev-1')),
  ).toBe(false);
});

test('a halt leaves devices that installed the halted APK on it; the rest go back', () => {
  const halted = rollout({ state: 'halted', stageIndex: 1 });
  // dev-2 (6568) was in at 70 %: installed the new APK → keeps it; not installed → the old one.
  expect(targetFor({ current: OLD, rollout: halted }, dev('dev-2', [], NEW.md5))).toEqual(NEW);
  expect(targetFor({ current: OLD, rollout: halted }, dev('dev-2', [], OLD.md5))).toEqual(OLD);
  expect(targetFor({ current: OLD, rollout: halted }, dev('dev-2', [], null))).toEqual(OLD);
});
