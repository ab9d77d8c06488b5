/**
 * The Installations and Exceptions tabs show what the device simulator produced: each device with
 * its status, running version, strategy and metadata; each exception group with its count.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFleet, type FleetEvent } from '../../../device-client/simulator/fleet';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { md5Of, SAMPLE } from '../device-client/helpers';
import { logIn, openBrowser, type Browser } from './browser';

jest.setTimeout(120_000);
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
  eventually(what, check, { timeoutMs: 30_000, intervalMs: 100 });

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
