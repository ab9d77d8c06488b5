/**
 * `apkrelay device-sim --protocol pushlink`: PushLink SDK 5.x devices as operators simulate them,
 * the BUILT CLI in its own process against a real stack with the legacy push listener (TLS). The
 * devices subscribe, report an exception through the SDK's form, are sent a new current APK's MD5,
 * download it from `/download` and check its MD5, install it (`--apply`) and come back announcing
 * it; the installations API lists them on the PushLink channel. A device of an unknown package is
 * told so in the SDK's text and its socket stays open.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EXCEPTION_TEXT } from '../../../shared/exceptions/verdicts';
import { newAccount } from '../../helpers/accounts';
import { eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { md5Of, SAMPLE, until } from './helpers';
import { sim, type SimLine } from './sim-cli';

jest.setTimeout(120_000);
let stack: TestStack;
let tmp: string;
let caFile: string;
beforeAll(async () => {
  stack = await startStack({ legacyPush: {} });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-device-sim-pl-'));
  caFile = path.join(tmp, 'ca.pem');
  await writeFile(caFile, stack.ca);
});
afterAll(async () => {
  await stack.close();
  await rm(tmp, { recursive: true, force: true });
});

const of = (lines: SimLine[], event: string) => lines.filter((l) => l.event === event);

test('SDK devices subscribe, report, download and verify the new APK, install it and come back', async () => {
  const { apiKey } = await newAccount(stack, 10);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const [v1, v2] = [await md5Of('version-1.apk'), await md5Of('version-2.apk')];
  const legacy = `127.0.0.1:${stack.legacyPushPort}`;
  const common = ['--protocol', 'pushlink', '--legacy-push', legacy, '--base-url', stack.urls.web];
  const run = sim(caFile, [
    ...common,
    ...['--api-key', apiKey, '--package', SAMPLE, '--devices', '3', '--device-prefix', 'pl'],
    ...['--installed-md5', v1, '--exceptions', '1', '--apply', '--heartbeat-s', '1'],
  ]);
  const stranger = sim(caFile, [
    ...common,
    ...['--api-key', apiKey, '--package', 'dev.apkrelay.never.uploaded', '--devices', '1'],
  ]);
  try {
    await until(
      '3 subscribes and 3 exception replies',
      () => {
        return of(run.lines, 'subscribed').length === 3 && of(run.lines, 'exception').length === 3;
      },
      30_000,
      () => run.lines,
    );
    expect(of(run.lines, 'exception').map((l) => l.reply)).toEqual(
      Array(3).fill(EXCEPTION_TEXT.REGISTERED),
    );
    // Up to date: nothing is pushed to them (no download, no give-up).
    expect(run.lines.filter((l) => !['subscribed', 'exception'].includes(l.event))).toEqual([]);

    await uploadFixture(stack, apiKey, 'version-2.apk'); // made current
    await until(
      '3 devices back on v2',
      () => {
        return of(run.lines, 'subscribed').filter((l) => l.hash === v2).length === 3;
      },
      30_000,
      () => run.lines,
    );
    const downloads = of(run.lines, 'downloaded').map((l) => [l.device, l.md5, l.verified]);
    expect(downloads.sort()).toEqual([
      ['pl-1', v2, true],
      ['pl-2', v2, true],
      ['pl-3', v2, true],
    ]);
    expect(of(run.lines, 'apply').map((l) => l.md5)).toEqual([v2, v2, v2]);
    expect(of(run.lines, 'giveup')).toEqual([]);
    expect(of(run.lines, 'error')).toEqual([]);

    // The server sees them on the PushLink channel, running v2.
    const rows = await eventuallyValue(
      'three installations running v2',
      async () => {
        const reply = await request(`${stack.urls.admin}/api/v2/apps/${SAMPLE}/installations`, {
          headers: { authorization: `Bearer ${apiKey}` },
          ca: stack.ca,
        });
        return reply.json<{
          installations: Array<{ deviceId: string; channel: string; installedMd5: string }>;
        }>().installations;
      },
      (list) => list.length === 3 && list.every((r) => r.installedMd5 === v2),
    );
    expect(rows.map((r) => [r.deviceId, r.channel]).sort()).toEqual([
      ['pl-1', 'pushlink'],
      ['pl-2', 'pushlink'],
      ['pl-3', 'pushlink'],
    ]);

    await until('the stranger is told', () => of(stranger.lines, 'message').length === 1);
    expect(of(stranger.lines, 'message')[0]!.text).toBe(
      'Device register failed: Invalid Package. Probably you never uploaded this app.',
    );
    expect(of(stranger.lines, 'disconnected')).toEqual([]); // the refused socket stays open
  } finally {
    run.stop();
    stranger.stop();
  }
  const [ran, refused] = [await run.done, await stranger.done];
  expect([ran.code, refused.code]).toEqual([0, 0]);
  expect(ran.stderr).toContain('device-sim: 3 devices;');
});
