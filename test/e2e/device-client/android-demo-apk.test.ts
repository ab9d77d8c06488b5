/**
 * Issue 17, Must-hold 4: the demo app that embeds the Android library (built by
 * device-client/android/build.sh) is a real upload. `aapt` shows the manifest the library's
 * users get (minSdk 26, target 34, the library's permissions, its provider with the app's
 * package as authority); the server accepts both versions through PushLink's upload route; a
 * fleet of simulated devices on version 1 receives version 2, downloads and verifies it, applies
 * it, comes back on it (a process restart with the new APK, as Android does after an update)
 * and the server's installation list then shows each of them on versionCode 2.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFleet, type Fleet, type FleetEvent } from '../../../device-client/simulator/fleet';
import { newAccount } from '../../helpers/accounts';
import { FakeClock } from '../../helpers/device-client-fakes';
import { DEMO_PACKAGE, demoApk, describeWithDemoApks } from '../../helpers/demo-apks';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';
import { eventsOf, streamEndedByOwner, until } from './helpers';

jest.setTimeout(180_000);
const DEVICES = 5;

function aapt(...args: string[]): string {
  return execFileSync('aapt', args, { encoding: 'utf8', maxBuffer: 16 << 20 });
}

/** `key:'value'` and `key: name='value'` lines of `aapt dump badging`. */
function badging(apk: string): { lines: string[]; values: (key: string) => string[] } {
  const lines = aapt('dump', 'badging', apk).split('\n');
  return {
    lines,
    values: (key) =>
      lines
        .filter((l) => l.startsWith(`${key}:`))
        .map((l) => /'([^']*)'/.exec(l)?.[1] ?? `(no value: ${l})`),
  };
}

describeWithDemoApks(__filename, 'the demo APK carrying the Android library', () => {
  describe.each([1, 2] as const)('apkrelay-demo-%i.apk', (code) => {
    test('aapt dump badging: package, SDK levels, the library’s permissions', () => {
      const b = badging(demoApk(code));
      expect(b.lines[0]).toMatch(
        new RegExp(
          `^package: name='dev\\.apkrelay\\.demo' versionCode='${code}' versionName='1\\.${code}'`,
        ),
      );
      expect(b.values('sdkVersion')).toEqual(['26']);
      expect(b.values('targetSdkVersion')).toEqual(['34']);
      expect(b.values('uses-permission')).toEqual(
        expect.arrayContaining([
          'android.permission.INTERNET',
          'android.permission.REQUEST_INSTALL_PACKAGES',
          'android.permission.POST_NOTIFICATIONS',
        ]),
      );
      expect(b.values('uses-library-not-required')).toEqual(['org.apache.http.legacy']);
    });

    test('aapt dump xmltree: the library’s provider, authority = the app’s package', () => {
      const tree = aapt('dump', 'xmltree', demoApk(code), 'AndroidManifest.xml');
      const provider = tree.split(/\n(?= *E: )/).find((e) => /^ *E: provider/.test(e)) ?? '';
      expect(provider).toMatch(
        /A: android:name\([^)]*\)="dev\.apkrelay\.client\.android\.ApkProvider"/,
      );
      expect(provider).toMatch(/A: android:authorities\([^)]*\)="dev\.apkrelay\.demo"/);
    });
  });

  describe('against a real stack', () => {
    let stack: TestStack;
    let tmp: string;
    const fleets: Fleet[] = [];
    beforeAll(async () => {
      stack = await startStack();
      tmp = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-demo-e2e-'));
    });
    afterAll(async () => {
      for (const f of fleets) await f.close(0);
      await stack.close();
      await rm(tmp, { recursive: true, force: true });
    });

    async function upload(apiKey: string, code: 1 | 2): Promise<string> {
      const bytes = await readFile(demoApk(code));
      const reply = await postMultipart(
        `${stack.urls.admin}/apps/api_upload`,
        [
          { name: 'apiKey', value: apiKey },
          { name: 'current', value: 'true' },
          { name: 'apk', filename: path.basename(demoApk(code)), data: bytes },
        ],
        { ca: stack.ca },
      );
      expect([reply.status, reply.text]).toEqual([200, 'deploy successful']);
      return createHash('md5').update(bytes).digest('hex');
    }

    async function get<T>(apiKey: string, route: string): Promise<T> {
      const reply = await request(`${stack.urls.admin}${route}`, {
        headers: { authorization: `Bearer ${apiKey}` },
        ca: stack.ca,
      });
      expect(reply.status).toBe(200);
      return JSON.parse(reply.text) as T;
    }

    /** Each installation's versionCode, through the server's APK records of its installedMd5. */
    async function installedVersions(apiKey: string): Promise<Record<string, number | null>> {
      const app = await get<{ apks: { md5: string; versionCode: number }[] }>(
        apiKey,
        `/api/v2/apps/${DEMO_PACKAGE}`,
      );
      const list = await get<{
        installations: { deviceId: string; installedMd5: string | null }[];
      }>(apiKey, `/api/v2/apps/${DEMO_PACKAGE}/installations?pageSize=200`);
      const byMd5 = new Map(app.apks.map((a) => [a.md5, a.versionCode]));
      return Object.fromEntries(
        list.installations.map((i) => [i.deviceId, byMd5.get(i.installedMd5 ?? '') ?? null]),
      );
    }

    function fleetOn(
      apiKey: string,
      installedMd5: string,
      events: FleetEvent[],
      clock?: FakeClock,
    ): Fleet {
      const fleet = startFleet({
        pushUrl: stack.urls.push,
        baseUrl: stack.urls.web,
        apiKey,
        packageName: DEMO_PACKAGE,
        devices: DEVICES,
        devicePrefix: 'demo',
        installedMd5,
        strategy: 'CUSTOM',
        applyIntervalMs: 500,
        storageDir: path.join(tmp, 'fleet'),
        ca: stack.ca,
        ...(clock ? { clock } : {}),
        onEvent: (e) => events.push(e),
      });
      fleets.push(fleet);
      return fleet;
    }

    test(`the server takes both uploads; ${DEVICES} devices update from versionCode 1 to 2`, async () => {
      const { apiKey } = await newAccount(stack);
      const v1 = await upload(apiKey, 1);
      const events: FleetEvent[] = [];
      const fleet = fleetOn(apiKey, v1, events);
      const devices = fleet.clients.map((c) => c.deviceId);
      await until(
        `${DEVICES} registrations`,
        () => events.filter((e) => e.event === 'registered').length === DEVICES,
      );
      const expectAll = (v: number) => Object.fromEntries(devices.map((d) => [d, v]));
      expect(await installedVersions(apiKey)).toEqual(expectAll(1));

      const v2 = await upload(apiKey, 2);
      for (const d of devices) {
        await until(
          `${d} verified v2`,
          () => eventsOf(events, d, 'apply').length > 0,
          30_000,
          () => events.filter((e) => e.device === d),
        );
        expect(eventsOf(events, d, 'version')).toEqual([
          expect.objectContaining({ md5: v2, versionCode: 2 }),
        ]);
        expect(eventsOf(events, d, 'downloaded')).toEqual([
          { device: d, event: 'downloaded', md5: v2, verified: true },
        ]);
      }
      for (const { client } of fleet.clients)
        await expect(client.applyUpdate()).resolves.toBe(true);
      expect(events.filter((e) => e.event === 'error' || e.event === 'refused')).toEqual([]);

      // Android replaces the app and starts it again: the same devices, now running version 2.
      await fleet.close(1_000);
      fleets.pop();
      const after: FleetEvent[] = [];
      // The restarted devices' timers (APPLY every 500 ms) fire when the test advances this clock.
      const clock = new FakeClock(Date.now());
      fleetOn(apiKey, v2, after, clock);
      await until(
        `${DEVICES} registrations on v2`,
        () => after.filter((e) => e.event === 'registered').length === DEVICES,
      );
      expect(await installedVersions(apiKey)).toEqual(expectAll(2));
      // Two APPLY periods: an APPLY left armed for the applied download would fire in them.
      // Then each stream's end, after all the server sent before it: a repeated offer would be
      // in it.
      await clock.advance(2 * 500);
      for (const d of devices) {
        const mine = () => after.filter((e) => e.device === d);
        await streamEndedByOwner(stack, apiKey, d, mine, DEMO_PACKAGE);
      }
      // Nothing more to offer, and the download that was applied is not applied again.
      expect(
        after.filter((e) => ['version', 'apply', 'error', 'refused'].includes(e.event)),
      ).toEqual([]);
    });
  });
});
