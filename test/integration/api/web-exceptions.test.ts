/**
 * Issue 35 #3 over real HTTPS on a populated stack: real APKs uploaded, devices registered and
 * heard from through the device routes, crash reports sent through the JSON intake and stored by
 * the worker. The Exceptions tab's crash rates per version, its hourly chart's summary, the issues'
 * devices affected, an issue's page (trend, versions, devices, occurrences paged) and a report's
 * stack trace (the app's frames told apart) show the numbers the JSON routes give, and those equal
 * a table written by hand. Another account gets 404 for all of it.
 */
import { newAccount } from '../../helpers/accounts';
import { Browser } from '../../helpers/browser';
import { registerDevices } from '../../helpers/devices';
import { eventually } from '../../helpers/eventually';
import type { Reply } from '../../helpers/http';
import { ownerApi } from '../../helpers/owner-api';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixtureMd5, uploadFixture } from '../../helpers/uploads';
import { stackTrace } from '../exceptions/fixtures';

jest.setTimeout(180_000);

const PKG = 'dev.apkrelay.sample';
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-29T12:00:00.000Z');
let clockMs = T0 - 2 * HOUR;
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ now: () => new Date(clockMs), trustProxy: ['loopback'] });
});
afterAll(() => stack?.close());

/** The owner's JSON API: a GET, or a POST of `json` (device routes take the same key). */
function api(apiKey: string, path: string, json?: unknown): Promise<Reply> {
  return ownerApi(stack, apiKey)(json === undefined ? 'GET' : 'POST', path, json);
}

/** The `stackTrace` fixture: app frames of dev.apkrelay.sample between framework frames. */
const crashA = (i: number) => stackTrace(`checkout ${i}`);
const crashB = (i: number) => ['java.lang.OutOfMemoryError: image ' + i, ...crashA(i).slice(1)];

let owner: { apiKey: string; email: string };

/**
 * 2 hours before T0: d1, d2, d3 register on 1.0 and d4, d5 on 2.0. One hour before T0, 24
 * reports, one second apart: d1 sends A ×20 (unhandled), d4 A ×1 and B ×2 (unhandled), d5 B ×1
 * (handled). At T0 every device beats: each was seen for 2 hours.
 */
beforeAll(async () => {
  owner = await newAccount(stack, 15); // 15 installations → 30 reports per 24 h
  await uploadFixture(stack, owner.apiKey, 'version-1.apk');
  await uploadFixture(stack, owner.apiKey, 'version-2.apk');
  const [v1, v2] = [await fixtureMd5('version-1.apk'), await fixtureMd5('version-2.apk')];
  const target = { baseUrl: stack.urls.web, ca: stack.ca, apiKey: owner.apiKey, package: PKG };
  await registerDevices(target, ['d1', 'd2', 'd3'], v1);
  await registerDevices(target, ['d4', 'd5'], v2);
  const sends: Array<[string, string, string[], boolean]> = [
    ...Array.from({ length: 20 }, (_, i): [string, string, string[], boolean] => [
      'd1',
      v1,
      crashA(i),
      false,
    ]),
    ['d4', v2, crashA(100), false],
    ['d4', v2, crashB(1), false],
    ['d4', v2, crashB(2), false],
    ['d5', v2, crashB(3), true],
  ];
  for (const [i, [deviceId, hash, st, handled]] of sends.entries()) {
    clockMs = T0 - HOUR + i * 1000;
    const reply = await api(owner.apiKey, '/api/v2/exceptions', {
      package: PKG,
      hash,
      deviceId,
      stack: st,
      handled,
    });
    expect(reply.status).toBe(202);
  }
  clockMs = T0;
  for (const [deviceId, installedMd5] of [
    ['d1', v1],
    ['d2', v1],
    ['d3', v1],
    ['d4', v2],
    ['d5', v2],
  ]) {
    const beat = await api(owner.apiKey, '/api/v2/heartbeat', {
      package: PKG,
      deviceId,
      installedMd5,
    });
    expect(beat.status).toBe(200);
  }
  await eventually(
    '24 stored reports',
    async () =>
      (await stack.mongo.db.collection('exceptions').countDocuments({ package: PKG })) === 24,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
});

interface Stats {
  limit: number;
  hourly: number[];
  versions: Array<Record<string, unknown>>;
}

test('crash rate per version: the JSON route equals the hand-written table', async () => {
  const reply = await api(owner.apiKey, `/api/v2/apps/${PKG}/exception-stats`);
  expect(reply.status).toBe(200);
  const stats = reply.json<Stats & { from: string; to: string }>();
  expect(stats.from).toBe(new Date(T0 - 24 * HOUR).toISOString());
  expect(stats.to).toBe(new Date(T0).toISOString());
  expect(stats.limit).toBe(30);
  expect(stats.hourly).toEqual([...new Array<number>(23).fill(0), 24]);
  const pick = (v: Record<string, unknown>) => ({
    versionCode: v.versionCode,
    installations: v.installations,
    installationHours: v.installationHours,
    unhandled: v.unhandled,
    perInstallationHour: v.perInstallationHour,
    perInstallation: v.perInstallation,
    crashFreeInstallations: v.crashFreeInstallations,
    crashFreePercent: v.crashFreePercent,
  });
  expect(stats.versions.map(pick)).toEqual([
    {
      versionCode: 2,
      installations: 2,
      installationHours: 4,
      unhandled: 3,
      perInstallationHour: 0.75,
      perInstallation: 1.5,
      crashFreeInstallations: 1,
      crashFreePercent: 50,
    },
    {
      versionCode: 1,
      installations: 3,
      installationHours: 6,
      unhandled: 20,
      perInstallationHour: 20 / 6,
      perInstallation: 20 / 3,
      crashFreeInstallations: 2,
      crashFreePercent: 200 / 3,
    },
  ]);
});

/** The signed-in owner's browser. */
async function ownerBrowser(email: string): Promise<Browser> {
  const browser = new Browser(stack, '198.51.100.35');
  expect((await browser.logIn(email, 'password-123')).status).toBe(303);
  return browser;
}

const flat = (text: string) => text.replace(/\s+/g, ' ');
const cell = (page: string, row: string, col: string) =>
  new RegExp(`data-version-code="${row}">.*?data-col="${col}">([^<]*)<`).exec(page)?.[1]?.trim();

test('the Exceptions tab shows the same rates, the hourly summary and devices affected', async () => {
  const browser = await ownerBrowser(owner.email);
  const reply = await browser.get(`/ui/apps/${PKG}/exceptions`);
  expect(reply.status).toBe(200);
  const page = flat(reply.text);
  expect(page).toContain(
    '<figcaption class="chart-summary">24 reports in the last 24 h; limit 30 (80 % used); most in one hour: 24.</figcaption>',
  );
  // Axes: hour labels under the x axis, count ticks on the y axis (0..25 by 5).
  expect(page).toMatch(/>-24 h<\/text/);
  expect(page).toMatch(/>-6 h<\/text/);
  expect(page).toMatch(/text-anchor="end">25<\/text/);
  expect(page).toContain('>hours before now</text');
  const table = [
    ['2', 'installations', '2'],
    ['2', 'installationHours', '4'],
    ['2', 'unhandled', '3'],
    ['2', 'perInstallationHour', '0.75'],
    ['2', 'perInstallation', '1.5'],
    ['2', 'crashFree', '1 of 2 (50 %)'],
    ['1', 'installations', '3'],
    ['1', 'installationHours', '6'],
    ['1', 'unhandled', '20'],
    ['1', 'perInstallationHour', '3.33'],
    ['1', 'perInstallation', '6.67'],
    ['1', 'crashFree', '2 of 3 (66.7 %)'],
  ];
  for (const [row, col, text] of table)
    expect([row, col, cell(page, row!, col!)]).toEqual([row, col, text]);
  // Issues: A (21 reports from d1 and d4), B (3 from d4 and d5); devices affected as the API says.
  const groups = (await api(owner.apiKey, `/api/v2/apps/${PKG}/exceptions`)).json<{
    groups: Array<{ fingerprint: string; count: number; devicesAffected: number; title: string }>;
  }>().groups;
  expect(groups.map((g) => [g.count, g.devicesAffected]).sort()).toEqual([
    [21, 2],
    [3, 2],
  ]);
  for (const g of groups) {
    const row = new RegExp(
      `href="/ui/apps/${PKG}/exceptions/${g.fingerprint}">.*?data-col="count">(\\d+)</td> <td data-col="devices">(\\d+)<`,
    ).exec(page);
    expect([row?.[1], row?.[2]]).toEqual([String(g.count), String(g.devicesAffected)]);
  }
});

interface GroupJson {
  group: { fingerprint: string; count: number; devicesAffected: number };
  hourly: number[];
  daily: number[];
  versions: Array<{ name: string; reports: number }>;
  devices: Array<{ name: string; reports: number }>;
  occurrences: {
    page: number;
    total: number;
    reports: Array<{ id: string; deviceId: string; receivedAt: string }>;
  };
}

async function issueA(): Promise<string> {
  const groups = (await api(owner.apiKey, `/api/v2/apps/${PKG}/exceptions`)).json<{
    groups: Array<{ fingerprint: string; count: number }>;
  }>().groups;
  return groups.find((g) => g.count === 21)!.fingerprint;
}

test("an issue's page: trend, versions, devices and occurrences paged, as the JSON says", async () => {
  const fp = await issueA();
  const one = (
    await api(owner.apiKey, `/api/v2/apps/${PKG}/exception-groups/${fp}`)
  ).json<GroupJson>();
  expect(one.hourly).toEqual([...new Array<number>(23).fill(0), 21]);
  expect(one.daily).toEqual([...new Array<number>(29).fill(0), 21]);
  expect(one.versions).toEqual([
    { name: '1.0 (1)', reports: 20 },
    { name: '2.0 (2)', reports: 1 },
  ]);
  expect(one.devices).toEqual([
    { name: 'd1', reports: 20 },
    { name: 'd4', reports: 1 },
  ]);
  // Newest first, 20 a page: page 1 holds the 21st report (d4's) to the 2nd; page 2 the first.
  expect(one.occurrences.total).toBe(21);
  expect(one.occurrences.reports.map((r) => r.receivedAt)).toEqual(
    [20, ...Array.from({ length: 19 }, (_, i) => 19 - i)].map((s) =>
      new Date(T0 - HOUR + s * 1000).toISOString(),
    ),
  );
  const two = (
    await api(owner.apiKey, `/api/v2/apps/${PKG}/exception-groups/${fp}?page=2`)
  ).json<GroupJson>();
  expect(two.occurrences.reports.map((r) => r.receivedAt)).toEqual([
    new Date(T0 - HOUR).toISOString(),
  ]);

  const browser = await ownerBrowser(owner.email);
  const base = `/ui/apps/${PKG}/exceptions/${fp}`;
  const first = flat((await browser.get(base)).text);
  expect(first).toContain('<strong data-issue="count">21</strong>');
  expect(first).toContain('<strong data-issue="devices">2</strong>');
  expect(first).toContain('21 reports of this issue in the last 24 h; most in one hour: 21.');
  expect(first).toContain('21 reports of this issue in the last 30 days; most in one day: 21.');
  expect(first).toMatch(/<td>1\.0 \(1\)<\/td> <td>20<\/td>/);
  expect(first).toMatch(/installations\/d1">d1<\/a><\/td> <td>20<\/td>/);
  expect(first).toContain('21 occurrences · page 1 of 2');
  expect(first).toContain(`<a href="${base}?page=2" rel="next">Next</a>`);
  expect(first).not.toContain('rel="prev"');
  expect(first.match(/<a href="\/ui\/apps\/[^"]+\/exceptions\/[0-9a-f]{32}-\d+"/g)).toHaveLength(
    20,
  );
  const second = flat((await browser.get(`${base}?page=2`)).text);
  expect(second).toContain(`<a href="${base}?page=1" rel="prev">Previous</a>`);
  expect(second).not.toContain('rel="next"');
  expect(second).toContain(`/exceptions/${encodeURIComponent(two.occurrences.reports[0]!.id)}"`);
});

test("a report's stack trace tells the app's frames from the framework's", async () => {
  const fp = await issueA();
  const one = (
    await api(owner.apiKey, `/api/v2/apps/${PKG}/exception-groups/${fp}`)
  ).json<GroupJson>();
  const browser = await ownerBrowser(owner.email);
  const id = one.occurrences.reports[0]!.id;
  const page = flat(
    (await browser.get(`/ui/apps/${PKG}/exceptions/${encodeURIComponent(id)}`)).text,
  );
  expect(page).toContain(
    '<span class="frame frame-app"> at dev.apkrelay.sample.MainActivity.onClick(MainActivity.java:42)</span>',
  );
  expect(page).toMatch(
    /<details class="framework-frames"> <summary> show 1 framework frame <\/summary> <pre class="frames"><span class="frame frame-framework"> at android\.view\.View\.performClick/,
  );
  expect(page).toContain(
    `href="/ui/apps/${PKG}/exceptions/${fp}">all occurrences of this issue</a>`,
  );
});

test('another account gets 404 for the new pages and routes, even with the same package', async () => {
  const fp = await issueA();
  const other = await newAccount(stack, 15);
  await uploadFixture(stack, other.apiKey, 'version-1.apk');
  const browser = await ownerBrowser(other.email);
  expect((await browser.get(`/ui/apps/${PKG}/exceptions/${fp}`)).status).toBe(404);
  expect((await api(other.apiKey, `/api/v2/apps/${PKG}/exception-groups/${fp}`)).status).toBe(404);
  // Its own stats: nothing of the first account's.
  const stats = (await api(other.apiKey, `/api/v2/apps/${PKG}/exception-stats`)).json<Stats>();
  expect(stats.versions).toEqual([]);
  expect(stats.hourly.reduce((a, b) => a + b, 0)).toBe(0);
  const stranger = await newAccount(stack, 1);
  expect((await api(stranger.apiKey, `/api/v2/apps/${PKG}/exception-stats`)).status).toBe(404);
});
