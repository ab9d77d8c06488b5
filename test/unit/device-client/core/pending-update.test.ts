/**
 * Spec section 3 "Pending update (client side)" and "Idle flag", row by row, and the strategy
 * behaviours of section 4.4, on fake ports and a fake clock.
 */
import type { Strategy } from '../../../../device-client/core/strategies';
import {
  apkBytes,
  giveupEvent,
  Harness,
  memoryStorage,
  settle,
  sse,
  versionEvent,
} from '../../../helpers/device-client-fakes';

const FILE = (md5: string) => `file:///data/update-${md5}.apk`;

async function downloaded(h: Harness, strategy?: keyof typeof Strategy) {
  if (strategy) h.client.setCurrentStrategy(strategy);
  await h.online();
  const v = versionEvent(h.apk, 'apk-2');
  h.stream.write(sse('version', v, '1-0'));
  await settle();
  return v;
}

describe('no update → downloaded, not applied (admin sets a new current APK, device registered)', () => {
  test('downloads, verifies, then STATUS_BAR (default) notifies with the default texts', async () => {
    const h = new Harness();
    const v = await downloaded(h);
    expect(h.of('version')).toEqual([
      { event: 'version', md5: v.md5, apkId: 'apk-2', versionCode: 2 },
    ]);
    expect(h.of('downloaded')).toEqual([{ event: 'downloaded', md5: v.md5, verified: true }]);
    expect(h.storage.files.get(`update-${v.md5}.apk`)).toEqual(h.apk);
    expect(h.ui).toEqual(['notify New version of Sample | Click to Update']);
    expect(h.client.hasPendingUpdate()).toBe(true);
    expect(h.installs).toEqual([]); // nothing installed before the user accepts
  });

  test('a version event while the installation is disabled downloads nothing', async () => {
    const h = new Harness();
    h.registerStatus = 'disabled';
    await downloaded(h);
    expect(h.of('version')).toEqual([]);
    expect(h.storage.files.size).toBe(0);
    expect(h.logs.join('\n')).toContain('not enabled');
  });

  test('the installed APK offered again is ignored', async () => {
    const h = new Harness();
    await h.online({ installedMd5: versionEvent(h.apk, 'x').md5 });
    h.stream.write(sse('version', versionEvent(h.apk, 'apk-2')));
    await settle();
    expect(h.of('version')).toEqual([]);
  });

  test('CUSTOM broadcasts <package>.svc.APPLY with the file uri now and about every 30 s', async () => {
    const h = new Harness();
    const v = await downloaded(h, 'CUSTOM');
    expect(h.ui).toEqual([]); // nothing displayed
    expect(h.broadcasts).toEqual([
      { action: 'dev.apkrelay.sample.svc.APPLY', extras: { uri: FILE(v.md5) } },
    ]);
    await h.clock.advance(29_999);
    expect(h.broadcasts).toHaveLength(1);
    await h.clock.advance(1);
    expect(h.broadcasts).toHaveLength(2);
    await h.clock.advance(60_000);
    expect(h.broadcasts).toHaveLength(4);
    expect(h.of('apply')).toHaveLength(4);
  });

  test('FRIENDLY_POPUP asks with Not Now / Update (the spec’s buttons); Not Now reminds after 3 hours', async () => {
    const h = new Harness();
    h.client.setCurrentActivity({ name: 'MainActivity' });
    await downloaded(h, 'FRIENDLY_POPUP');
    expect(h.ui).toEqual([
      'popup friendly A new version of Sample is available. Do you want to update now? [Not Now|Update]',
    ]);
    h.popup!('not_now');
    expect(h.ui.at(-1)).toBe('hide popup');
    await h.clock.advance(3 * 3600_000 - 1);
    expect(h.ui.filter((l) => l.startsWith('popup'))).toHaveLength(1);
    await h.clock.advance(1);
    expect(h.ui.filter((l) => l.startsWith('popup'))).toHaveLength(2);
  });

  test('ANNOYING_POPUP says it is about security, with a single Update button', async () => {
    const h = new Harness();
    h.client.setCurrentActivity({});
    await downloaded(h, 'ANNOYING_POPUP');
    expect(h.ui).toEqual([
      'popup annoying Sample needs to be updated for security reasons. Please update now. [Update]',
    ]);
  });

  test('a popup strategy without setCurrentActivity logs a BadTokenException, then shows once set', async () => {
    const h = new Harness();
    await downloaded(h, 'ANNOYING_POPUP');
    expect(h.ui).toEqual([]);
    expect(h.logs.join('\n')).toContain('BadTokenException');
    h.client.setCurrentActivity({});
    expect(h.ui).toHaveLength(1);
  });
});

describe('downloaded, not applied → no update (admin sets an earlier version current again)', () => {
  test('STATUS_BAR: the status bar message is cleared and the file deleted', async () => {
    const h = new Harness();
    const v = await downloaded(h);
    h.stream.write(sse('giveup', giveupEvent('apk-2', v.md5), '2-0'));
    await settle();
    expect(h.ui).toEqual(['notify New version of Sample | Click to Update', 'cancel notification']);
    expect(h.client.hasPendingUpdate()).toBe(false);
    expect(h.storage.files.size).toBe(0);
    expect(h.broadcasts).toEqual([]); // GIVEUP is CUSTOM's only
    expect(h.of('giveup')).toEqual([{ event: 'giveup', apkId: 'apk-2', md5: v.md5 }]);
  });

  test('popups are hidden', async () => {
    const h = new Harness();
    h.client.setCurrentActivity({});
    const v = await downloaded(h, 'FRIENDLY_POPUP');
    h.stream.write(sse('giveup', giveupEvent('apk-2', v.md5), '2-0'));
    await settle();
    expect(h.ui.at(-1)).toBe('hide popup');
  });

  test('CUSTOM: GIVEUP is broadcast once, APPLY stops; a repeated give-up changes nothing', async () => {
    const h = new Harness();
    const v = await downloaded(h, 'CUSTOM');
    h.stream.write(sse('giveup', giveupEvent('apk-2', v.md5), '2-0'));
    h.stream.write(sse('giveup', giveupEvent('apk-2', v.md5), '3-0'));
    await settle();
    await h.clock.advance(120_000);
    expect(h.broadcasts.map((b) => b.action)).toEqual([
      'dev.apkrelay.sample.svc.APPLY',
      'dev.apkrelay.sample.svc.GIVEUP',
    ]);
    expect(h.of('giveup')).toHaveLength(1);
  });

  test('the give-up is remembered across a restart: still broadcast once', async () => {
    const h = new Harness();
    const v = await downloaded(h, 'CUSTOM');
    h.stream.write(sse('giveup', giveupEvent('apk-2', v.md5), '2-0'));
    await settle();
    await h.client.close(0);
    const again = new Harness({}, h.storage);
    again.client.setCurrentStrategy('CUSTOM');
    await again.online();
    again.stream.write(sse('giveup', giveupEvent('apk-2', v.md5), '2-0'));
    await settle();
    expect(again.broadcasts).toEqual([]);
  });

  test('a give-up for another APK than the pending one is ignored', async () => {
    const h = new Harness();
    await downloaded(h, 'CUSTOM');
    h.stream.write(sse('giveup', giveupEvent('apk-9', null), '2-0'));
    await settle();
    expect(h.client.hasPendingUpdate()).toBe(true);
    expect(h.broadcasts.map((b) => b.action)).not.toContain('dev.apkrelay.sample.svc.GIVEUP');
  });
});

describe('downloaded, not applied → installation handed to the OS (user accepts, idle true)', () => {
  test('status bar click hands the verified file to the installer', async () => {
    const h = new Harness();
    const v = await downloaded(h);
    h.notificationClick!();
    await settle();
    expect(h.installs).toEqual([FILE(v.md5)]);
    expect(h.ui.at(-1)).toBe('cancel notification');
    expect(h.of('install')).toEqual([{ event: 'install', md5: v.md5, ok: true }]);
  });

  test('the Update button hands it over', async () => {
    const h = new Harness();
    h.client.setCurrentActivity({});
    await downloaded(h, 'ANNOYING_POPUP');
    h.popup!('update');
    await settle();
    expect(h.installs).toHaveLength(1);
  });

  test('CUSTOM code applies with applyUpdate()', async () => {
    const h = new Harness();
    await downloaded(h, 'CUSTOM');
    await expect(h.client.applyUpdate()).resolves.toBe(true);
    expect(h.installs).toHaveLength(1);
  });

  test('installation may still fail in the OS: the update stays downloaded, not applied', async () => {
    const h = new Harness();
    h.installFails = true;
    await downloaded(h, 'CUSTOM');
    await expect(h.client.applyUpdate()).resolves.toBe(false);
    expect(h.of('install')).toEqual([expect.objectContaining({ ok: false })]);
    expect(h.client.hasPendingUpdate()).toBe(true);
  });

  test('a restart on the new APK clears the pending update', async () => {
    const h = new Harness();
    const v = await downloaded(h, 'CUSTOM');
    await h.client.applyUpdate();
    await h.client.close(0);
    const after = new Harness({}, h.storage);
    await after.online({ installedMd5: v.md5 });
    expect(after.client.hasPendingUpdate()).toBe(false);
    expect(after.storage.files.size).toBe(0);
  });
});

describe('Idle flag', () => {
  test('default true: the strategy acts right after the download completes', async () => {
    const h = new Harness();
    expect(h.client.isIdle()).toBe(true);
    await downloaded(h, 'CUSTOM');
    expect(h.broadcasts).toHaveLength(1);
  });

  test('idle(false): nothing shown or broadcast and the installation is never started', async () => {
    const h = new Harness();
    h.client.idle(false);
    await downloaded(h, 'CUSTOM');
    await h.clock.advance(120_000);
    expect(h.broadcasts).toEqual([]);
    await expect(h.client.applyUpdate()).resolves.toBe(false);
    expect(h.installs).toEqual([]);
    // hasPendingUpdate tells the truth but respects idle: no notification.
    expect(h.client.hasPendingUpdate()).toBe(true);
    expect(h.broadcasts).toEqual([]);
    h.client.idle(true);
    expect(h.broadcasts).toHaveLength(1);
    await expect(h.client.applyUpdate()).resolves.toBe(true);
  });

  test('idle(false) after the notification withdraws it', async () => {
    const h = new Harness();
    await downloaded(h);
    h.client.idle(false);
    expect(h.ui.at(-1)).toBe('cancel notification');
    h.notificationClick!();
    await settle();
    expect(h.installs).toEqual([]);
  });
});

describe('hasPendingUpdate', () => {
  test('false with no update; true and notifies again when one is downloaded', async () => {
    const h = new Harness();
    await h.online();
    expect(h.client.hasPendingUpdate()).toBe(false);
    h.stream.write(sse('version', versionEvent(h.apk, 'apk-2')));
    await settle();
    expect(h.client.hasPendingUpdate()).toBe(true);
    expect(h.ui.filter((l) => l.startsWith('notify'))).toHaveLength(2);
  });

  test('a newer version replaces the pending one (old file deleted)', async () => {
    const h = new Harness();
    const v2 = await downloaded(h);
    h.apk = apkBytes('v3');
    const v3 = versionEvent(h.apk, 'apk-3', { versionCode: 3 });
    h.stream.write(sse('version', v3, '2-0'));
    await settle();
    expect([...h.storage.files.keys()]).toEqual([`update-${v3.md5}.apk`]);
    expect(h.of('downloaded').map((d) => d.md5)).toEqual([v2.md5, v3.md5]);
  });
});

describe('close', () => {
  test('a version event still being saved when the client closes downloads nothing afterwards', async () => {
    const storage = memoryStorage();
    const write = storage.write.bind(storage);
    // From here on, writes wait until the gate opens.
    const gate: { held?: Promise<void>; open?: () => void } = {};
    storage.write = (k, v) => (gate.held ? gate.held.then(() => write(k, v)) : write(k, v));
    const h = new Harness({}, storage);
    await h.online();
    gate.held = new Promise((r) => (gate.open = r));
    h.stream.write(sse('version', versionEvent(h.apk, 'apk-2'), '1-0'));
    await settle(); // the event is being handled: its pending update waits to be saved
    const closed = h.client.close(0);
    await settle();
    gate.open!();
    await closed;
    await settle();
    await h.clock.advance(3_600_000); // any retry timer would have fired by now
    expect(h.requests.filter((r) => r.url.includes('/download'))).toEqual([]);
  });
});
