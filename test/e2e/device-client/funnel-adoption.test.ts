/**
 * Issue 19, must-hold 4, against a real stack (API + workers, HTTPS, the real push stream): a
 * simulated fleet on version 1 is offered version 2; some download it (device-sim clients), some
 * are offered and never download (plain streams), some are offline and never offered. Then the
 * downloaders report as the Android client does on its next heartbeat: running the new APK, the
 * installer's success, or its failure with the OS's message. The funnel's counts and rows match
 * what each device did (a table written here), repeats and reconnects count once, and the
 * adoption series' latest point (and the hourly sample the worker's job stores) matches the
 * versions the installations run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFleet, type FleetEvent } from '../../../device-client/simulator/fleet';
import { liveState } from '../../../shared/devices/store';
import { createWorkerRedis, closeRedis } from '../../../shared/storage/redis';
import { adoptionSampleProcessor } from '../../../workers/insights/adoption-sample-processor';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { jobContext } from '../../helpers/job-context';
import { connectSse, type SseClient } from '../../helpers/sse';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { eventsOf, md5Of, openStreams as openStreamsOf, SAMPLE, until } from './helpers';

jest.setTimeout(180_000);
const METRICS_TOKEN = 'funnel-metrics-token';
let stack: TestStack;
let tmp: string;
beforeAll(async () => {
  stack = await startStack({ metricsToken: METRICS_TOKEN });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-funnel-e2e-'));
});
afterAll(async () => {
  await stack.close();
  await rm(tmp, { recursive: true, force: true });
});

const openStreams = () => openStreamsOf(stack, METRICS_TOKEN);

async function owner<T>(apiKey: string, pathAndQuery: string): Promise<T> {
  const reply = await request(`${stack.urls.admin}${pathAndQuery}`, {
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(reply.status).toBe(200);
  return reply.json<T>();
}

interface Funnel {
  counts: Record<'offered' | 'downloaded' | 'installed' | 'failed', number>;
  installations: Array<{
    deviceId: string;
    offeredAt: string | null;
    downloadedAt: string | null;
    installedAt: string | null;
    failedAt: string | null;
    failure: { osStatus: number | null; message: string | null } | null;
  }>;
  next: string | null;
}
type Point = {
  total: number;
  versions: Array<{ md5: string; versionCode: number; count: number }>;
};

const STORAGE = 'INSTALL_FAILED_INSUFFICIENT_STORAGE: not enough space';

test('funnel counts and rows match what the fleet did; adoption’s latest point matches', async () => {
  const { apiKey } = await newAccount(stack, 20);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const [v1, v2] = [await md5Of('version-1.apk'), await md5Of('version-2.apk')];
  const device = { baseUrl: stack.urls.push, ca: stack.ca, apiKey, package: SAMPLE };
  const events: FleetEvent[] = [];
  // Downloaders: full device clients (they download and verify every offer).
  const fleet = startFleet({
    pushUrl: stack.urls.push,
    baseUrl: stack.urls.web,
    apiKey,
    packageName: SAMPLE,
    devices: 6,
    devicePrefix: 'dl',
    installedMd5: v1,
    strategy: 'CUSTOM',
    applyIntervalMs: 60_000,
    storageDir: path.join(tmp, 'fleet'),
    ca: stack.ca,
    onEvent: (e) => events.push(e),
  });
  // Offered only: registered, streaming, never downloading. Offline: registered, no stream.
  const watchers = ['watch-1', 'watch-2', 'watch-3'];
  await registerDevices(device, [...watchers, 'off-1', 'off-2'], v1);
  const streamOf = (id: string) =>
    connectSse(`${stack.urls.push}/api/v2/stream?package=${SAMPLE}&deviceId=${id}`, {
      ca: stack.ca,
      apiKey,
    });
  const streams: SseClient[] = watchers.map(streamOf);
  try {
    await until(
      '6 registrations',
      () => events.filter((e) => e.event === 'registered').length === 6,
    );
    await eventuallyValue('9 open push streams', openStreams, (n) => n === 9);
    await uploadFixture(stack, apiKey, 'version-2.apk');
    for (const d of fleet.clients.map((c) => c.deviceId))
      await until(
        `${d} downloaded version 2`,
        () => eventsOf(events, d, 'downloaded').length > 0,
        60_000,
        () => events.filter((e) => e.device === d),
      );
    for (const s of streams) await s.next('version', 20_000);
    // A watcher reconnects (no Last-Event-ID): offered again, counted once.
    await streams[0]!.close();
    streams[0] = streamOf('watch-1');
    await streams[0].next('version', 20_000);
  } finally {
    await fleet.close(1_000);
    for (const s of streams) await s.close();
  }
  const beat = (deviceId: string, extra: Record<string, unknown>) =>
    request(`${stack.urls.push}/api/v2/heartbeat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      json: { package: SAMPLE, deviceId, ...extra },
      ca: stack.ca,
    }).then((r) => expect(r.status).toBe(200));
  const success = { md5: v2, versionCode: 2, status: 'success', osStatus: 0 };
  const failure = { md5: v2, versionCode: 2, status: 'failure', osStatus: 6, message: STORAGE };
  // Twice each: a device that resends (its reply was lost) is counted once.
  for (let round = 0; round < 2; round++) {
    await beat('dl-1', { installedMd5: v2 });
    await beat('dl-2', { installedMd5: v2 });
    await beat('dl-3', { installedMd5: v2, lastInstall: success });
    await beat('dl-4', { installedMd5: v1, lastInstall: failure });
    await beat('dl-5', { installedMd5: v2, lastInstall: success });
  }
  // What each device did, by hand: offered, downloaded, installed, failed.
  const did: Record<string, [boolean, boolean, boolean, boolean]> = {
    'dl-1': [true, true, true, false],
    'dl-2': [true, true, true, false],
    'dl-3': [true, true, true, false],
    'dl-4': [true, true, false, true],
    'dl-5': [true, true, true, false],
    'dl-6': [true, true, false, false],
    'watch-1': [true, false, false, false],
    'watch-2': [true, false, false, false],
    'watch-3': [true, false, false, false],
  };
  const funnel = await owner<Funnel>(apiKey, `/api/v2/apps/${SAMPLE}/funnel?versionCode=2`);
  expect(funnel.counts).toEqual({ offered: 9, downloaded: 6, installed: 4, failed: 1 });
  const rows = Object.fromEntries(
    funnel.installations.map((r) => [
      r.deviceId,
      [r.offeredAt, r.downloadedAt, r.installedAt, r.failedAt].map((t) => t !== null),
    ]),
  );
  expect(rows).toEqual(did);
  expect(funnel.installations.find((r) => r.deviceId === 'dl-4')?.failure).toEqual({
    osStatus: 6,
    message: STORAGE,
  });
  expect(funnel.next).toBeNull();
  // Paged: 4 a page, every installation once.
  const paged: string[] = [];
  let after: string | null = null;
  do {
    const page: Funnel = await owner<Funnel>(
      apiKey,
      `/api/v2/apps/${SAMPLE}/funnel?md5=${v2}&limit=4${after ? `&after=${after}` : ''}`,
    );
    paged.push(...page.installations.map((r) => r.deviceId));
    after = page.next;
  } while (after);
  expect(paged.sort()).toEqual(Object.keys(did).sort());

  // Adoption, by hand: dl-1, dl-2, dl-3 and dl-5 run version 2; the 7 others version 1.
  const expected = {
    total: 11,
    versions: [
      { md5: v2, versionCode: 2, versionName: '2.0', count: 4 },
      { md5: v1, versionCode: 1, versionName: '1.0', count: 7 },
    ],
  };
  const before = await owner<{ points: Point[] }>(apiKey, `/api/v2/apps/${SAMPLE}/adoption`);
  expect(before.points).toEqual([expect.objectContaining(expected)]);
  // The worker's hourly job stores the same point (the live one still comes last).
  const redis = createWorkerRedis(stack.redisUrl);
  try {
    const sample = adoptionSampleProcessor({
      db: stack.mongo.db,
      live: liveState(redis, stack.prefix),
      now: () => new Date(),
    });
    const done = await sample({ task: 'sample-adoption' }, jobContext());
    expect(done.written).toBeGreaterThanOrEqual(1);
  } finally {
    await closeRedis(redis);
  }
  const after2 = await owner<{ points: Point[] }>(apiKey, `/api/v2/apps/${SAMPLE}/adoption`);
  expect(after2.points).toEqual([
    expect.objectContaining(expected),
    expect.objectContaining(expected),
  ]);
});
