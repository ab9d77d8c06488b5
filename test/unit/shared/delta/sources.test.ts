/** Which installed versions get patches: the order and the cut of pickSources, on literal counts. */
import { pickSources } from '../../../../shared/delta/sources';

const a = 'a'.repeat(32);
const b = 'b'.repeat(32);
const c = 'c'.repeat(32);
const t = 't'.repeat(32);

test('most installations first, ties by MD5, at most max', () => {
  const running = [
    { md5: c, installations: 5 },
    { md5: a, installations: 9 },
    { md5: b, installations: 5 },
  ];
  expect(pickSources(running, new Set([a, b, c]), t, 3)).toEqual([a, b, c]);
  expect(pickSources(running, new Set([a, b, c]), t, 2)).toEqual([a, b]);
  expect(pickSources(running, new Set([a, b, c]), t, 0)).toEqual([]);
});

test('the target itself and MD5s with no stored APK are skipped', () => {
  const running = [
    { md5: t, installations: 50 },
    { md5: a, installations: 9 },
    { md5: b, installations: 7 },
  ];
  expect(pickSources(running, new Set([t, b]), t, 3)).toEqual([b]);
});
