import { ObjectId } from 'mongodb';
import { appFleet, hourlyCounts, type FleetInput } from '../../../../api/apps/fleet';
import type { ApkDoc, AppDoc } from '../../../../shared/catalog/types';
import type { RolloutDoc } from '../../../../shared/rollouts/types';
import { gateHalt, haltReport } from '../../../helpers/rollout-history';

const apk = (versionCode: number) =>
  ({
    _id: new ObjectId(),
    versionCode,
    versionName: `1.${versionCode - 10}`,
    md5: String(versionCode % 10).repeat(32),
  }) as ApkDoc;
const [v11, v12] = [apk(11), apk(12)];
const app = { _id: new ObjectId(), package: 'p', currentApkId: v11._id } as AppDoc;
const now = new Date('2026-11-29T12:00:00Z');
const at = (iso: string) => new Date(iso);
const rollout = (state: RolloutDoc['state']) =>
  ({
    _id: app._id,
    apkId: v12._id,
    previousApkId: v11._id,
    state,
    stages: [5, 100],
    stageIndex: 0,
    history: state === 'halted' ? [gateHalt(haltReport(110, 5, 30, 30), now)] : [],
  }) as unknown as RolloutDoc;

const input: FleetInput = {
  app,
  apks: [v12, v11],
  installations: {
    byMd5: new Map<string | null, number>([
      [v11.md5, 30],
      [v12.md5, 11],
    ]),
    total: 41,
    enabled: 40,
    online: 38,
  },
  rollout: rollout('halted'),
  reports: [],
  now,
};

test('a halted rollout’s APK above the current one is “ahead”; the badge says why it halted', () => {
  const fleet = appFleet(input);
  expect(fleet).toMatchObject({ installations: 41, online: 38, offline: 3, enabled: 40 });
  expect(fleet.versions).toEqual([
    { md5: v12.md5, versionCode: 12, versionName: '1.2', count: 11, ahead: true },
    { md5: v11.md5, versionCode: 11, versionName: '1.1', count: 30, ahead: false },
  ]);
  expect(fleet.rollout).toEqual({
    state: 'halted',
    percent: 0,
    version: '1.2 (12)',
    haltReason: 'Halted by the health gate: 1.2 crashed 22× as often as 1.1.',
  });
});

test('a running rollout’s APK is not ahead; its badge has its percentage', () => {
  const fleet = appFleet({ ...input, rollout: rollout('running') });
  expect(fleet.versions.map((v) => v.ahead)).toEqual([false, false]);
  expect(fleet.rollout).toEqual({
    state: 'running',
    percent: 5,
    version: '1.2 (12)',
    haltReason: null,
  });
});

test('no badge for a completed rollout, nor a halted one the app has moved past', () => {
  expect(appFleet({ ...input, rollout: rollout('completed') }).rollout).toBeNull();
  const moved = { ...app, currentApkId: v12._id } as AppDoc;
  expect(appFleet({ ...input, app: moved }).rollout).toBeNull();
  expect(appFleet({ ...input, rollout: null, installations: undefined })).toMatchObject({
    installations: 0,
    online: 0,
    offline: 0,
    versions: [],
    rollout: null,
  });
});

test('unhandled reports per hour over the 24 hours before now, oldest first', () => {
  const hourly = hourlyCounts(
    [
      at('2026-11-28T12:00:00Z'),
      at('2026-11-29T10:59:59Z'),
      at('2026-11-29T11:00:00Z'),
      at('2026-11-29T11:59:59Z'),
      at('2026-11-28T11:59:59Z'),
      at('2026-11-29T12:00:00Z'),
    ],
    now,
  );
  expect(hourly).toEqual([1, ...new Array<number>(21).fill(0), 1, 2]);
  const fleet = appFleet({
    ...input,
    reports: [
      { receivedAt: at('2026-11-29T11:30:00Z'), handled: false },
      { receivedAt: at('2026-11-29T11:40:00Z'), handled: true },
    ],
  });
  expect(fleet.unhandledHourly).toEqual([...new Array<number>(23).fill(0), 1]);
  expect(fleet.exceptions24h).toBe(2);
});
