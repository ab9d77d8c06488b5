/**
 * The installer's outcome on the heartbeat (docs/push.md "Heartbeat", docs/funnel.md), as the
 * Android library sends it: `lastInstall` {md5, versionCode, status, osStatus, message, at} rides
 * on every heartbeat until one is accepted, and a newer outcome replaces an unsent one. Fake
 * ports and a fake clock.
 */
import { osStatusOf } from '../../../../device-client/core/install-outcome';
import { Harness, settle, sse, versionEvent } from '../../../helpers/device-client-fakes';

const BEAT_MS = 30_000;

async function downloaded(h: Harness) {
  h.client.setCurrentStrategy('CUSTOM');
  await h.online();
  const v = versionEvent(h.apk, 'apk-2');
  h.stream.write(sse('version', v, '1-0'));
  await settle();
  return v;
}

/**
 * A `lastInstall` of version 2 (the fakes' APK), as the server takes it. The fakes give the
 * client no installed APK file, so no patch is tried: the 10 000 bytes come whole.
 */
const outcome = (
  md5: string,
  status: string,
  osStatus: number,
  message: string | null,
  at: string,
) => ({
  md5,
  versionCode: 2,
  status,
  osStatus,
  message,
  at,
  download: { via: 'full', bytes: 10_000, fallback: null },
});

/** The `lastInstall` of each heartbeat sent so far (undefined: none carried). */
const carried = (h: Harness) =>
  h.requests
    .filter((r) => r.url.endsWith('/heartbeat'))
    .map((r) => (JSON.parse(r.body!) as { lastInstall?: unknown }).lastInstall);

test('a failure: its OS status and message go on the next heartbeat, once', async () => {
  const h = new Harness();
  h.installFails = true;
  const v = await downloaded(h);
  const at = new Date(h.clock.now()).toISOString();
  await h.client.applyUpdate();
  await h.clock.advance(BEAT_MS);
  await h.clock.advance(BEAT_MS);
  expect(carried(h)).toEqual([
    outcome(v.md5, 'failure', 4, 'INSTALL_FAILED_VERSION_DOWNGRADE', at),
    undefined,
  ]);
});

test('a success handed back by the installer: status 0', async () => {
  const h = new Harness();
  const v = await downloaded(h);
  await h.client.applyUpdate();
  await h.clock.advance(BEAT_MS);
  expect(carried(h)).toEqual([outcome(v.md5, 'success', 0, null, '2026-01-01T00:00:00.000Z')]);
});

test('a heartbeat not accepted leaves the outcome to the next one', async () => {
  const h = new Harness();
  h.installFails = true;
  await downloaded(h);
  await h.client.applyUpdate();
  h.heartbeatStatus = 503;
  await h.clock.advance(BEAT_MS);
  h.offline = true;
  await h.clock.advance(BEAT_MS);
  h.offline = false;
  h.heartbeatStatus = 200;
  await h.clock.advance(BEAT_MS);
  await h.clock.advance(BEAT_MS);
  const sent = carried(h);
  // The transport records each beat before failing it: 503, network error, accepted, none.
  expect(sent.map((o) => (o as { status?: string } | undefined)?.status)).toEqual([
    'failure',
    'failure',
    'failure',
    undefined,
  ]);
});

test('a newer outcome replaces one not sent yet', async () => {
  const h = new Harness();
  h.installFails = true;
  const v = await downloaded(h);
  await h.client.applyUpdate();
  h.installFails = false;
  await h.client.applyUpdate();
  await h.clock.advance(BEAT_MS);
  expect(carried(h)).toEqual([expect.objectContaining({ md5: v.md5, status: 'success' })]);
});

test('replaced before the installer answered: running the new APK reports the success', async () => {
  const h = new Harness();
  h.installHangs = true;
  const v = await downloaded(h);
  void h.client.applyUpdate();
  await settle();
  expect(h.installs).toHaveLength(1);
  await h.client.close(0);
  const after = new Harness({}, h.storage);
  await after.online({ installedMd5: v.md5 });
  await after.clock.advance(BEAT_MS);
  expect(carried(after)).toEqual([
    outcome(v.md5, 'success', 0, 'installed', '2026-01-01T00:00:00.000Z'),
  ]);
});

test('the OS status of an installer’s rejection: its integer osStatus, else -1', () => {
  expect(osStatusOf(Object.assign(new Error('x'), { osStatus: 3 }))).toBe(3);
  expect(osStatusOf({ osStatus: -110 })).toBe(-110);
  expect(osStatusOf(Object.assign(new Error('x'), { osStatus: '3' }))).toBe(-1);
  expect(osStatusOf(Object.assign(new Error('x'), { osStatus: 1.5 }))).toBe(-1);
  expect(osStatusOf(new Error('x'))).toBe(-1);
  expect(osStatusOf(null)).toBe(-1);
  expect(osStatusOf('refused')).toBe(-1);
});
