/**
 * The Cordova plugin's JavaScript (device-client/cordova/www/apkrelay.js): each function of
 * PushLink's Cordova 6.x API is one cordova.exec to the bridge's service with the action and
 * arguments of the table below (what src/android/ApkRelayPlugin.java reads), and the caller's
 * callbacks. cordova/exec is the platform's module, replaced here by a recorder.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import plugin from '../../../../../device-client/cordova/www/apkrelay.js';

jest.mock('cordova/exec', () => jest.fn(), { virtual: true });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const exec = require('cordova/exec') as jest.Mock;

const dir = path.join(__dirname, '../../../../../device-client/cordova');
const ok = (): void => undefined;
const fail = (): void => undefined;
type Api = typeof plugin;

function thrown(): TypeError {
  const e = new TypeError('x is undefined');
  e.stack = 'TypeError: x is undefined\n    at render (https://localhost/js/app.js:12:7)';
  return e;
}

/** [what, the call, action, args, success given to exec, error given to exec] */
const table: [string, (p: Api) => void, string, unknown[], unknown, unknown][] = [
  [
    'start with an object (6.0.1)',
    (p) => p.start({ apiKey: 'k', deviceId: 'd', successCallback: ok, errorCallback: fail }),
    'start',
    [{ apiKey: 'k', deviceId: 'd' }],
    ok,
    fail,
  ],
  [
    'start with the hosts and the push key',
    (p) =>
      p.start({
        apiKey: 'k',
        deviceId: 'd',
        pushUrl: 'https://push.test',
        baseUrl: 'https://web.test',
        pushKey: 'MCow',
      }),
    'start',
    [
      {
        apiKey: 'k',
        deviceId: 'd',
        pushUrl: 'https://push.test',
        baseUrl: 'https://web.test',
        pushKey: 'MCow',
      },
    ],
    undefined,
    undefined,
  ],
  [
    'start, the form before 6.0.1',
    (p) => p.start('com.example.app', 'k', 'd', ok, fail),
    'start',
    [{ apiKey: 'k', deviceId: 'd' }],
    ok,
    fail,
  ],
  [
    'setCurrentStrategy with properties',
    (p) =>
      p.setCurrentStrategy(
        p.FRIENDLY_POPUP,
        { notNowButton: 'Later', reminderTimeInSeconds: 120 },
        ok,
        fail,
      ),
    'setCurrentStrategy',
    ['FRIENDLY_POPUP', { notNowButton: 'Later', reminderTimeInSeconds: 120 }],
    ok,
    fail,
  ],
  [
    'setCurrentStrategy without properties',
    (p) => p.setCurrentStrategy(p.CUSTOM, ok, fail),
    'setCurrentStrategy',
    ['CUSTOM', null],
    ok,
    fail,
  ],
  ['getCurrentStrategy', (p) => p.getCurrentStrategy(ok, fail), 'getCurrentStrategy', [], ok, fail],
  ['hasPendingUpdate', (p) => p.hasPendingUpdate(ok, fail), 'hasPendingUpdate', [], ok, fail],
  ['applyUpdate', (p) => p.applyUpdate(ok, fail), 'applyUpdate', [], ok, fail],
  ['idle', (p) => p.idle(false, ok, fail), 'idle', [false], ok, fail],
  [
    'addMetadata',
    (p) => p.addMetadata('shop', 'Lisbon 3', ok, fail),
    'addMetadata',
    ['shop', 'Lisbon 3'],
    ok,
    fail,
  ],
  [
    'addExceptionMetadata',
    (p) => p.addExceptionMetadata('till', '7', ok, fail),
    'addExceptionMetadata',
    ['till', '7'],
    ok,
    fail,
  ],
  [
    'sendAsyncException with extra',
    (p) => p.sendAsyncException(thrown(), { screen: 'home' }, ok, fail),
    'sendAsyncException',
    [
      {
        name: 'TypeError',
        message: 'x is undefined',
        stack: 'TypeError: x is undefined\n    at render (https://localhost/js/app.js:12:7)',
      },
      { screen: 'home' },
    ],
    ok,
    fail,
  ],
  [
    'sendAsyncException of a thrown string, callbacks only',
    (p) => p.sendAsyncException('boom', ok, fail),
    'sendAsyncException',
    [{ name: 'Error', message: 'boom', stack: '' }, null],
    ok,
    fail,
  ],
  [
    'enableExceptionNotification',
    (p) => p.enableExceptionNotification(ok, fail),
    'enableExceptionNotification',
    [],
    ok,
    fail,
  ],
  [
    'disableExceptionNotification',
    (p) => p.disableExceptionNotification(ok, fail),
    'disableExceptionNotification',
    [],
    ok,
    fail,
  ],
  [
    'setMaxExceptionQueueSize',
    (p) => p.setMaxExceptionQueueSize(20, ok, fail),
    'setMaxExceptionQueueSize',
    [20],
    ok,
    fail,
  ],
];

describe('Cordova plugin www/apkrelay.js', () => {
  beforeEach(() => exec.mockClear());

  test.each(table)('%s', (_what, invoke, action, args, success, error) => {
    invoke(plugin);
    expect(exec.mock.calls).toEqual([[success, error, 'ApkRelay', action, args]]);
  });

  test('the strategy names are the spec values; NINJA is PushLink’s earlier CUSTOM', () => {
    expect([
      plugin.STATUS_BAR,
      plugin.FRIENDLY_POPUP,
      plugin.ANNOYING_POPUP,
      plugin.CUSTOM,
      plugin.NINJA,
    ]).toEqual(['STATUS_BAR', 'FRIENDLY_POPUP', 'ANNOYING_POPUP', 'CUSTOM', 'NINJA']);
  });

  test('plugin.xml names the service, the bridge class and the files the plugin ships', () => {
    const xml = readFileSync(path.join(dir, 'plugin.xml'), 'utf8');
    expect(xml).toMatch(
      /<feature name="ApkRelay">\s*<param name="android-package" value="dev\.apkrelay\.cordova\.ApkRelayPlugin" \/>/,
    );
    expect(xml).toContain('<clobbers target="PushLink" />');
    const bridge = readFileSync(path.join(dir, 'src/android/ApkRelayPlugin.java'), 'utf8');
    expect(bridge).toContain('package dev.apkrelay.cordova;');
    expect(bridge).toContain('public class ApkRelayPlugin extends CordovaPlugin');
    const shipped = [...xml.matchAll(/<(?:js-module|source-file|framework) src="([^"]+)"/g)].map(
      (m) => m[1] ?? '',
    );
    expect(shipped).toEqual([
      'www/apkrelay.js',
      'src/android/ApkRelayPlugin.java',
      'src/android/JavaScriptError.java',
      'src/android/apkrelay.gradle',
    ]);
    for (const file of shipped)
      expect(readFileSync(path.join(dir, file), 'utf8').length).toBeGreaterThan(0);
  });
});
