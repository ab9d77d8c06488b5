/**
 * The Installations and Exceptions tabs show what the device simulator produced: each device with
 * its status, running version, strategy and metadata; each exception group with its count. Issue 35
 * #3 and #4: the summary strip says the JSON summary; the GET form filters by version and metadata
 * and sorts; a device's page links its crash report; the report's framework frames are folded and
 * open with their toggle; the crash rates say the JSON rates.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFleet, type FleetEvent } from '../../../device-client/simulator/fleet';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { ownerApi } from '../../helpers/owner-api';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixtureMd5, uploadFixture } from '../../helpers/uploads';
import { stackTrace } from '../../integration/exceptions/fixtures';
import { md5Of, SAMPLE } from '../device-client/helpers';
import { logIn, openBrowser, type Browser } from './browser';

jest.setTimeout(180_000);
let stack: TestStack;
let browser: Browser;
let tmp: string;
beforeAll(async () => {
  stack = await startStack();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-web-fleet-'));
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await rm(tmp, { recursive: true, force: true });
});

const poll = (what: string, check: () => Promise<boolean>) =>
  eventually(what, check, { timeoutMs: 60_000, intervalMs: 100 });

test('devices and exceptions of the simulator appear in their tabs', async () => {
  const { apiKey, email } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const events: FleetEvent[] = [];
  const fleet = startFleet({
    pushUrl: stack.urls.push,
    baseUrl: stack.urls.admin,
    apiKey,
    packageName: SAMPLE,
    devices: 2,
    devicePrefix: 'kiosk',
    installedMd5: await md5Of('version-1.apk'),
    strategy: 'CUSTOM',
    exceptions: 1,
    storageDir: path.join(tmp, 'fleet'),
    ca: stack.ca,
    onEvent: (e) => events.push(e),
  });
  try {
    await poll('2 registrations', () =>
      Promise.resolve(events.filter((e) => e.event === 'registered').length === 2),
    );
  } finally {
    await fleet.close(10_000);
  }
  // Both reports stored and grouped (the worker writes them), so every count below is final.
  const groups = stack.mongo.db.collection<{ count: number }>('exception_groups');
  const reports = stack.mongo.db.collection('exceptions');
  await poll('2 grouped reports', async () => {
    const grouped = (await groups.find({}).toArray()).reduce((n, g) => n + g.count, 0);
    return grouped === 2 && (await reports.countDocuments({})) === 2;
  });

  const { page } = browser;
  const shot = (name: string) => browser.shot(name);
  const admin = stack.urls.admin;
  await logIn(page, admin, email);
  await shot('fleet-apps');

  await page.goto(`${admin}/ui/apps/${SAMPLE}/installations`);
  const table = page.locator('main table');
  for (const device of ['kiosk-1', 'kiosk-2']) {
    expect(await table.getByRole('cell', { name: device, exact: true }).count()).toBe(1);
  }
  const text = (await table.textContent()) ?? '';
  expect(text).toContain('enabled');
  expect(text).toContain('1.0 (1)');
  expect(text).toContain((await md5Of('version-1.apk')).slice(0, 8));
  expect(text).toContain('CUSTOM');
  expect(text).toContain('device-sim');
  await shot('fleet-installations');
  await page.getByRole('button', { name: 'Disable kiosk-1' }).click();
  await page.waitForURL(`${admin}/ui/apps/${SAMPLE}/installations`);
  expect(await page.getByRole('button', { name: 'Enable kiosk-1' }).count()).toBe(1);
  await page.getByLabel('Status').selectOption('disabled');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/status=disabled/);
  expect(await page.locator('main tbody tr').count()).toBe(1);
  expect((await page.locator('main tbody').textContent()) ?? '').toContain('kiosk-1');
  await page.getByRole('button', { name: 'Enable kiosk-1' }).click();
  await page.waitForURL(`${admin}/ui/apps/${SAMPLE}/installations`);
  expect(await page.getByRole('button', { name: 'Disable kiosk-1' }).count()).toBe(1);

  await page.getByRole('link', { name: 'Exceptions' }).click();
  await page.waitForURL(`${admin}/ui/apps/${SAMPLE}/exceptions`);
  const issues = (await page.locator('table.issues').textContent()) ?? '';
  expect(issues).toContain('simulated exception');
  await shot('fleet-exceptions');
  expect(
    await page.getByRole('img', { name: 'Reports per hour over the last 24 hours' }).count(),
  ).toBe(1);
  expect(await page.getByText(/2 reports in the last 24 h; limit 10/).count()).toBe(1);
  // The issue's page (by fingerprint), then its newest occurrence.
  await page.locator('table.issues tbody a').first().click();
  await page.waitForURL(new RegExp(`/ui/apps/${SAMPLE}/exceptions/[0-9a-f]{32}$`));
  expect((await page.locator('main').textContent()) ?? '').toMatch(
    /2 occurrences\s+·\s+page 1 of 1/,
  );
  await page.locator('table.occurrences tbody a').first().click();
  await page.waitForURL(new RegExp(`/ui/apps/${SAMPLE}/exceptions/[0-9a-f]{32}-\\d+$`));
  const report = (await page.locator('main').textContent()) ?? '';
  expect(report).toContain('Stack trace');
  expect(report).toContain('simulated exception');
  expect(report).toContain('simulator');
  await shot('fleet-exception-report');
  await page.getByRole('link', { name: 'Exceptions' }).click();
  await page.getByLabel('Kind').selectOption('unhandled');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/kind=unhandled/);
  expect(await page.locator('table.issues tbody tr').count()).toBe(0);
  await page.getByLabel('Kind').selectOption('handled');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/kind=handled/);
  expect(await page.locator('table.issues tbody tr').count()).toBe(1);
  expect(browser.errors).toEqual([]);
});

/** 3 tills on 1.0 in store north (one handled exception each), 2 on 2.0 in store south. */
async function fleetOf(apiKey: string): Promise<void> {
  const events: FleetEvent[] = [];
  const fleet = (prefix: string, md5: string, store: string, exceptions: number) =>
    startFleet({
      pushUrl: stack.urls.push,
      baseUrl: stack.urls.admin,
      apiKey,
      packageName: SAMPLE,
      devices: prefix === 'north' ? 3 : 2,
      devicePrefix: prefix,
      installedMd5: md5,
      metadata: () => ({ store }),
      exceptions,
      storageDir: path.join(tmp, prefix),
      ca: stack.ca,
      onEvent: (e) => events.push(e),
    });
  const fleets = [
    fleet('north', await fixtureMd5('version-1.apk'), 'north', 1),
    fleet('south', await fixtureMd5('version-2.apk'), 'south', 0),
  ];
  try {
    await poll('5 registrations', () =>
      Promise.resolve(events.filter((e) => e.event === 'registered').length === 5),
    );
  } finally {
    await Promise.all(fleets.map((f) => f.close(10_000)));
  }
}

test('installations and exceptions pages say what the JSON routes say', async () => {
  const { apiKey, email, id } = await newAccount(stack, 20);
  const api = ownerApi(stack, apiKey);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk');
  await fleetOf(apiKey);
  // One unhandled crash on 2.0 with Android frames, as the Android library sends it.
  const crash = await api('POST', '/api/v2/exceptions', {
    package: SAMPLE,
    hash: await fixtureMd5('version-2.apk'),
    deviceId: 'south-1',
    stack: stackTrace('till crash'),
  });
  expect(crash.status).toBe(202);
  await poll('4 stored reports', async () => {
    const n = await stack.mongo.db.collection('exceptions').countDocuments({ accountId: id });
    return n === 4;
  });

  const { page } = browser;
  const admin = stack.urls.admin;
  await logIn(page, admin, email);
  await page.goto(`${admin}/ui/apps/${SAMPLE}/installations`);
  const { summary } = (await api('GET', `/api/v2/apps/${SAMPLE}/installations`)).json<{
    summary: { total: number; online: number; offline: number; ahead: string[] };
  }>();
  expect([summary.total, summary.online, summary.offline, summary.ahead]).toEqual([5, 5, 0, []]);
  for (const key of ['total', 'online', 'offline'] as const) {
    expect(await page.locator(`[data-summary="${key}"]`).textContent()).toBe(String(summary[key]));
  }
  expect(await page.locator('li[data-version="2"]').textContent()).toMatch(
    /2\.0 \(2\):\s+2\s+\(40 %\)/,
  );
  expect(await page.locator('li[data-version="1"]').textContent()).toMatch(
    /1\.0 \(1\):\s+3\s+\(60 %\)/,
  );
  await browser.shot('installations-tab');

  await page.getByLabel('Version').selectOption('1');
  await page.getByLabel('Metadata (key=value)').fill('store=north');
  await page.getByLabel('Sort by').selectOption('deviceId');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/version=1&.*meta=store%3Dnorth.*sort=deviceId/);
  expect(await page.locator('main tbody tr td:first-child').allTextContents()).toEqual([
    'north-1',
    'north-2',
    'north-3',
  ]);

  await page.goto(`${admin}/ui/apps/${SAMPLE}/installations`);
  await page.getByRole('link', { name: 'south-1', exact: true }).click();
  await page.waitForURL(`${admin}/ui/apps/${SAMPLE}/installations/south-1`);
  await browser.shot('installation-page');
  await page.getByRole('link', { name: 'java.lang.IllegalStateException: till crash' }).click();
  await page.waitForURL(/\/exceptions\/[0-9a-f]{32}-\d+$/);
  const framework = page.getByText('at android.view.View.performClick');
  expect(await framework.isVisible()).toBe(false);
  expect(await page.getByText('at dev.apkrelay.sample.MainActivity.onClick').isVisible()).toBe(
    true,
  );
  await page.getByText('show 1 framework frame').click();
  expect(await framework.isVisible()).toBe(true);
  await browser.shot('exception-report-frames');

  await page.goto(`${admin}/ui/apps/${SAMPLE}/exceptions`);
  const stats = (await api('GET', `/api/v2/apps/${SAMPLE}/exception-stats`)).json<{
    versions: Array<{ versionCode: number; installations: number; unhandled: number }>;
  }>();
  expect(stats.versions.map((v) => [v.versionCode, v.installations, v.unhandled])).toEqual([
    [2, 2, 1],
    [1, 3, 0],
  ]);
  const cell = (code: number, col: string) =>
    page.locator(`tr[data-version-code="${code}"] td[data-col="${col}"]`).textContent();
  for (const v of stats.versions) {
    expect(await cell(v.versionCode, 'installations')).toBe(String(v.installations));
    expect(await cell(v.versionCode, 'unhandled')).toBe(String(v.unhandled));
  }
  const words = async (code: number, col: string) =>
    ((await cell(code, col)) ?? '').replace(/\s+/g, ' ').trim();
  expect(await words(2, 'crashFree')).toBe('1 of 2 (50 %)');
  expect(await words(1, 'crashFree')).toBe('3 of 3 (100 %)');
  await browser.shot('exceptions-tab');
  expect(browser.errors).toEqual([]);
});
