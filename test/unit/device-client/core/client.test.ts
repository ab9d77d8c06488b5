/** Spec 4.4: Client.start's rules, strategies with their setters and defaults, metadata keys. */
import { StartParamsError } from '../../../../device-client/core/client';
import {
  AnnoyingPopUpStrategy,
  DEFAULT_TEXTS,
  FriendlyPopUpStrategy,
  StatusBarStrategy,
} from '../../../../device-client/core/strategies';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, noErrorCapture } from '../../../../device-client/node/index';
import { Harness, settle } from '../../../helpers/device-client-fakes';

describe('Client.start', () => {
  test('missing or empty parameters are an error naming them', () => {
    const h = new Harness();
    expect(() =>
      h.client.start({ apiKey: '', deviceId: undefined as unknown as string } as never),
    ).toThrow(new StartParamsError(['apiKey', 'deviceId', 'packageName', 'pushUrl', 'baseUrl']));
    expect(() => h.start({ deviceId: '' })).toThrow(
      'Client.start: missing or empty parameters: deviceId',
    );
    expect(h.requests).toEqual([]); // nothing started
  });

  test('a second call is ignored with a log line', async () => {
    const h = new Harness();
    await h.online();
    h.start({ deviceId: 'another-device' });
    await settle();
    expect(h.logs).toContain(
      'warn: Client.start was already called in this process: this call is ignored',
    );
    expect(h.requests.filter((r) => r.url.endsWith('/installations'))).toHaveLength(1);
  });

  test('registers with package, device id, installed hash, strategy, device and location', async () => {
    const h = new Harness();
    h.client.setCurrentStrategy('CUSTOM'); // independent of start: before it
    await h.online({
      device: { brand: 'Acme', model: 'K1', osVersion: '14', sdkInt: 34 },
      location: { lat: 1, lon: 2 },
    });
    const reg = h.requests.find((r) => r.url === 'https://push.test/api/v2/installations')!;
    expect(JSON.parse(reg.body!)).toEqual({
      package: 'dev.apkrelay.sample',
      deviceId: 'device-1',
      installedMd5: 'a'.repeat(32),
      lastDownloadedMd5: null,
      strategy: 'CUSTOM',
      device: { brand: 'Acme', model: 'K1', osVersion: '14', sdkInt: 34 },
      location: { lat: 1, lon: 2 },
      metadata: [],
    });
    expect(h.of('registered')).toEqual([{ event: 'registered', status: 'enabled' }]);
    expect(h.client.getStatus()).toBe('enabled');
  });

  test('the process Client (Node) ignores a second start with a log line', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-client-'));
    const lines: string[] = [];
    const params = {
      apiKey: 'k',
      deviceId: 'd',
      packageName: 'dev.apkrelay.sample',
      pushUrl: 'https://127.0.0.1:1',
      baseUrl: 'https://127.0.0.1:1',
      storageDir: dir,
      logger: { log: (_l: string, m: string) => void lines.push(m) },
      errorCapture: noErrorCapture,
    };
    Client.start(params);
    Client.start({ ...params, deviceId: 'other' });
    expect(lines).toContain(
      'Client.start was already called in this process: this call is ignored',
    );
    await Client.close(0);
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  });
});

describe('strategies', () => {
  test('STATUS_BAR is the default; getCurrentStrategy returns the object to customise', () => {
    const h = new Harness();
    expect(h.client.getCurrentStrategy()).toBeInstanceOf(StatusBarStrategy);
    h.client.setCurrentStrategy('FRIENDLY_POPUP');
    expect(h.client.getCurrentStrategy()).toBeInstanceOf(FriendlyPopUpStrategy);
    h.client.setCurrentStrategy('ANNOYING_POPUP');
    expect(h.client.getCurrentStrategy()).toBeInstanceOf(AnnoyingPopUpStrategy);
    h.client.setCurrentStrategy('CUSTOM');
    expect(h.client.getCurrentStrategy().name).toBe('CUSTOM');
    expect(() => h.client.setCurrentStrategy('NINJA' as never)).toThrow(/one of STATUS_BAR/);
  });

  test('defaults: title, description, buttons, friendly reminder of 3 hours', () => {
    const s = new StatusBarStrategy();
    expect(s.getStatusBarTitle('Kiosk')).toBe('New version of Kiosk');
    expect(s.getStatusBarDescription()).toBe('Click to Update');
    const f = new FriendlyPopUpStrategy();
    expect([f.getNotNowButton(), f.getUpdateButton()]).toEqual(['Not Now', 'Update']);
    expect(f.getReminderTimeInSeconds()).toBe(10_800);
    expect(DEFAULT_TEXTS.friendlyReminderSeconds).toBe(3 * 3600);
    expect(new AnnoyingPopUpStrategy().getPopUpMessage('Kiosk')).toMatch(/security reasons/);
  });

  test('setters change what is shown', () => {
    const h = new Harness();
    const s = h.client.getCurrentStrategy() as StatusBarStrategy;
    s.setStatusBarTitle('Update ready');
    s.setStatusBarDescription('Tap to install');
    h.client.setCurrentStrategy('FRIENDLY_POPUP');
    const f = h.client.getCurrentStrategy() as FriendlyPopUpStrategy;
    f.setPopUpMessage('Update?');
    f.setNotNowButton('Later');
    f.setUpdateButton('Go');
    f.setReminderTimeInSeconds(60);
    expect(() => f.setReminderTimeInSeconds(0)).toThrow();
    expect([f.getPopUpMessage('x'), f.getNotNowButton(), f.getUpdateButton()]).toEqual([
      'Update?',
      'Later',
      'Go',
    ]);
    expect(f.getReminderTimeInSeconds()).toBe(60);
    h.client.setCurrentStrategy('STATUS_BAR');
    expect(s.getStatusBarTitle('x')).toBe('Update ready'); // customisations survive switches
    const a = new AnnoyingPopUpStrategy();
    a.setPopUpMessage('Now.');
    a.setUpdateButton('OK');
    expect([a.getPopUpMessage('x'), a.getUpdateButton()]).toEqual(['Now.', 'OK']);
  });
});

describe('metadata', () => {
  test('a null or empty key is rejected', () => {
    const h = new Harness();
    expect(() => h.client.addMetadata(null as unknown as string, 'v')).toThrow(
      'metadata key must not be null',
    );
    expect(() => h.client.addExceptionMetadata('', 'v')).toThrow('metadata key must not be null');
    h.client.addMetadata('k', 'v');
  });
});
