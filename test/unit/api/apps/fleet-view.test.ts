import { badgeText, fleetCard } from '../../../../api/apps/fleet-view';
import type { AppFleet } from '../../../../api/apps/fleet';
import { flat } from '../../../helpers/markup';

const fleet: AppFleet = {
  installations: 41,
  online: 38,
  offline: 3,
  enabled: 41,
  versions: [
    { md5: 'b'.repeat(32), versionCode: 12, versionName: '1.2', count: 11, ahead: true },
    { md5: 'a'.repeat(32), versionCode: 11, versionName: '1.1', count: 30, ahead: false },
  ],
  rollout: {
    state: 'halted',
    percent: 0,
    version: '1.2 (12)',
    haltReason: 'Halted by the health gate: 1.2 crashed 22× as often as 1.1.',
  },
  unhandledHourly: [...new Array<number>(22).fill(0), 4, 1],
  exceptions24h: 7,
};

test.each([
  [{ state: 'running', percent: 25 }, 'running at 25 %'],
  [{ state: 'paused', percent: 0.5 }, 'paused at 0.5 %'],
  [{ state: 'halted', percent: 0 }, 'halted'],
] as const)('the badge of %p reads %p', (r, text) => {
  expect(badgeText({ ...r, version: '1.2 (12)', haltReason: null })).toBe(text);
});

test('an app’s card: the badge with its reason, the versions bar and the crash sparkline', () => {
  const card = flat(fleetCard({ package: 'p.q', currentVersion: '1.1 (11)', fleet }, 50, 100).text);
  expect(card).toContain('<span class="badge badge-halted">halted</span> rollout of 1.2 (12)');
  expect(card).toContain(
    '<p class="halt-reason">Halted by the health gate: 1.2 crashed 22× as often as 1.1.</p>',
  );
  expect(card).toContain(
    '<figcaption class="chart-summary">41 installations: 1.2 (12), ahead on 11 (27 %), 1.1 (11) on 30 (73 %). 38 online, 3 offline.</figcaption>',
  );
  expect(card).toContain(
    '5 unhandled crash reports in the last 24 h, at most 4 in one hour; by hour, oldest first: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1.',
  );
  expect(card).toContain('<span data-field="enabled">41</span> enabled of a plan of 50');
  expect(card).toContain('<span data-field="exceptions24h">7</span> of a limit of 100');
});
