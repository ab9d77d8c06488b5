/**
 * The app page in chromium: the version adoption chart (server-rendered SVG) is drawn, its latest
 * bar and the table under it give the versions the installations run, and each APK's row shows
 * its install funnel. The installations register and report through the real device routes.
 */
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { md5Of, SAMPLE } from '../device-client/helpers';
import { logIn, openBrowser, type Browser } from './browser';

jest.setTimeout(120_000);
let stack: TestStack;
let browser: Browser;
beforeAll(async () => {
  stack = await startStack();
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

test('the adoption chart renders; its latest point and the funnels are the fleet’s', async () => {
  const { apiKey, email } = await newAccount(stack, 10);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk');
  const [v1, v2] = [await md5Of('version-1.apk'), await md5Of('version-2.apk')];
  const device = { baseUrl: stack.urls.web, ca: stack.ca, apiKey, package: SAMPLE };
  await registerDevices(device, ['till-1', 'till-2', 'till-3'], v1);
  await registerDevices(device, ['till-4', 'till-5'], v2);
  const failed = await request(`${stack.urls.web}/api/v2/heartbeat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    json: {
      package: SAMPLE,
      deviceId: 'till-3',
      lastInstall: { md5: v2, versionCode: 2, status: 'failure', osStatus: 6, message: 'no space' },
    },
    ca: stack.ca,
  });
  expect(failed.status).toBe(200);

  const { page } = browser;
  const admin = stack.urls.admin;
  await logIn(page, admin, email);
  await page.goto(`${admin}/ui/apps/${SAMPLE}`);
  await browser.shot('adoption-chart');

  const chart = page.locator('figure.adoption svg[role="img"]');
  const box = await chart.boundingBox();
  expect(box?.width).toBeGreaterThan(100);
  expect(box?.height).toBeGreaterThan(50);
  // The latest bar: 2 installations on version 2, 3 on version 1, drawn with a height.
  const latest = chart.locator('g.point').last();
  expect(await latest.getAttribute('data-total')).toBe('5');
  for (const [md5, count] of [
    [v2, '2'],
    [v1, '3'],
  ] as const) {
    const bar = latest.locator(`rect[data-md5="${md5}"]`);
    expect(await bar.getAttribute('data-count')).toBe(count);
    expect((await bar.boundingBox())?.height).toBeGreaterThan(0);
  }
  const now = page.locator('table.adoption-now');
  expect(await now.locator('caption').innerText()).toBe('Now: 5 installations');
  expect(await now.locator('tbody tr').allInnerTexts()).toEqual(['2.0 (2)\t2', '1.0 (1)\t3']);

  // Funnels: registrations count as installed; till-3's failure counts for version 2.
  const funnel = async (md5: string): Promise<Record<string, string>> =>
    Object.fromEntries(
      await Promise.all(
        ['offered', 'downloaded', 'installed', 'failed'].map(
          async (stage): Promise<[string, string]> => [
            stage,
            await page.locator(`tr[data-md5="${md5}"] dd[data-stage="${stage}"]`).innerText(),
          ],
        ),
      ),
    );
  expect(await funnel(v2)).toEqual({ offered: '0', downloaded: '0', installed: '2', failed: '1' });
  expect(await funnel(v1)).toEqual({ offered: '0', downloaded: '0', installed: '3', failed: '0' });
  expect(browser.errors).toEqual([]);
});
