/**
 * The Rollouts tab in chromium (issues 19 and 35): a rollout started through the form, paused and
 * resumed with its buttons; the health gate, run by the stack's workers, halts it on a 5x crash
 * wave, and the page shows that decision as pictures (the stages, the crash rates at each
 * evaluation with the halt threshold, the halt reason; their summaries equal to the JSON API's
 * numbers, and scaled down in a 390 px window) and with its numbers, the installations left on the
 * new APK and its install funnel (with the OS's message of a failed install). A second app's
 * healthy rollout, targeted by metadata, is advanced by the gate; Halt is refused until its box is
 * ticked (by the browser, and by the server when the box is removed from the page), a refused
 * start form comes back with what was typed, and Complete, confirmed, completes it. The numbers
 * expected are those the test's fleet produces, written here.
 */
import type { Page } from 'playwright-core';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request } from '../../helpers/http';
import { ownerApi } from '../../helpers/owner-api';
import { evaluateRolloutsOnce, sendCrashes } from '../../helpers/rollouts';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { SAMPLE } from '../device-client/helpers';
import { logIn, openBrowser, type Browser } from './browser';

jest.setTimeout(180_000);
let stack: TestStack;
let browser: Browser;
beforeAll(async () => {
  stack = await startStack({
    rollouts: { evaluationMs: 60_000, soakMs: 0, factor: 2, minExceptions: 10, alpha: 0.01 },
  });
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const OLDS = ['o1', 'o2', 'o3', 'o4', 'o5'];
const NEWS = ['n1', 'n2', 'n3', 'n4', 'n5'];
type Apk = { md5: string; sha256: string; versionCode: number };

/** An account with version 1 current and version 2 uploaded, its fleet on both, signed in. */
async function fleet(plan: number) {
  const account = await newAccount(stack, plan);
  await uploadFixture(stack, account.apiKey, 'version-1.apk');
  await uploadFixture(stack, account.apiKey, 'version-2.apk', { current: false });
  const api = ownerApi(stack, account.apiKey);
  const { apks } = (await api('GET', `/api/v2/apps/${SAMPLE}`)).json<{ apks: Apk[] }>();
  const v1 = apks.find((a) => a.versionCode === 1)!;
  const v2 = apks.find((a) => a.versionCode === 2)!;
  const device = { baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, package: SAMPLE };
  await registerDevices(device, OLDS, v1.md5);
  await registerDevices(device, NEWS, v2.md5);
  await browser.page.context().clearCookies();
  await logIn(browser.page, stack.urls.admin, account.email);
  return { ...account, api, v1, v2 };
}

const tab = () => `${stack.urls.admin}/ui/apps/${SAMPLE}/rollouts`;
/** The text summary of the chart `kind`. */
const summary = (page: Page, kind: string) =>
  page.locator(`[data-chart="${kind}"] .chart-summary`).innerText();

interface RolloutJson {
  haltReason: string | null;
  history: Array<{
    action: string;
    health: { newCount: number; newHours: number; oldCount: number; oldHours: number } | null;
  }>;
}
const text = (page: Page, selector: string) => page.locator(selector).first().innerText();
const field = (page: Page, name: string) => text(page, `dl.rollout [data-field="${name}"]`);

async function press(page: Page, button: string): Promise<void> {
  await page.getByRole('button', { name: button, exact: true }).click();
  await page.waitForURL(tab());
}

/** The numbers of the history row of `action` by `by` (in the collapsed numbers, opened). */
async function decision(page: Page, action: string, by: string) {
  await page
    .locator('details.rollout-numbers')
    .evaluate((d) => ((d as unknown as { open: boolean }).open = true));
  const row = page.locator(`table.rollout-history tr[data-action="${action}"][data-by="${by}"]`);
  expect(await row.count()).toBe(1);
  const cell = (name: string) => row.locator(`[data-field="${name}"]`).innerText();
  return {
    verdict: await cell('verdict'),
    newCount: await cell('newCount'),
    oldCount: await cell('oldCount'),
    ratio: await cell('ratio'),
    pValue: Number(await cell('pValue')),
  };
}

test('start, pause, resume; the gate’s halt is shown with its numbers and the funnel', async () => {
  const { apiKey, api, v1, v2 } = await fleet(20);
  // n5 first failed to install version 2 (then a retry succeeded: it registered running it).
  const failed = await request(`${stack.urls.web}/api/v2/heartbeat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    json: {
      package: SAMPLE,
      deviceId: 'n5',
      lastInstall: {
        md5: v2.md5,
        versionCode: 2,
        status: 'failure',
        osStatus: 4,
        message: 'INSTALL_FAILED_INSUFFICIENT_STORAGE',
      },
    },
    ca: stack.ca,
  });
  expect(failed.status).toBe(200);
  const { page } = browser;
  await page.goto(tab());
  expect(await text(page, 'main')).toContain('No rollout yet.');
  await page.getByLabel('APK').selectOption(v2.sha256);
  await page.getByLabel('Stages').fill('5, 100');
  await page.getByLabel('And these device ids').fill(NEWS.join('\n'));
  await press(page, 'Start rollout');
  expect(await field(page, 'state')).toBe('running');
  expect(await field(page, 'percent')).toBe('5');
  expect(await field(page, 'targeting')).toBe('devices n1, n2, n3, n4, n5');
  // The JSON API reads the same rollout.
  expect((await api('GET', `/api/v2/apps/${SAMPLE}/rollout`)).json()).toMatchObject({
    state: 'running',
    percent: 5,
    targeting: { metadata: null, deviceIds: NEWS },
  });

  await press(page, 'Pause');
  expect(await field(page, 'state')).toBe('paused');
  expect(await page.getByRole('button', { name: 'Advance', exact: true }).count()).toBe(0);
  await press(page, 'Resume');
  expect(await field(page, 'state')).toBe('running');

  // The crash wave: 20 reports from each new installation, 4 from each old one (5x per hour).
  for (const d of OLDS) await sendCrashes(stack, apiKey, SAMPLE, { deviceId: d, md5: v1.md5 }, 4);
  for (const d of NEWS) await sendCrashes(stack, apiKey, SAMPLE, { deviceId: d, md5: v2.md5 }, 20);
  await evaluateRolloutsOnce(stack);

  await page.goto(tab());
  await browser.shot('rollouts-halted');
  expect(await field(page, 'state')).toBe('halted');
  expect(await field(page, 'percent')).toBe('0');
  expect(await field(page, 'installed')).toBe('5');
  const halt = await decision(page, 'halt', 'health-gate');
  expect(halt).toMatchObject({ verdict: 'halt', newCount: '100', oldCount: '20', ratio: '5.00' });
  expect(halt.pValue).toBeLessThan(0.01);
  for (const action of ['start', 'pause', 'resume']) {
    expect(await page.locator(`tr[data-action="${action}"][data-by="owner"]`).count()).toBe(1);
  }
  // The funnel of version 2: the five registered running it, n5's failure with the OS's message.
  const stage = (s: string) => text(page, `dl.rollout-funnel dd[data-stage="${s}"]`);
  expect([await stage('offered'), await stage('installed'), await stage('failed')]).toEqual([
    '0',
    '5',
    '1',
  ]);
  expect(await page.locator('table.rollout-installations tbody tr').count()).toBe(5);
  expect(await text(page, 'tr[data-device="n5"] [data-field="failure"]')).toBe(
    '4: INSTALL_FAILED_INSUFFICIENT_STORAGE',
  );
  // A halted rollout can be replaced: the start form is back.
  expect(await page.getByRole('button', { name: 'Start rollout' }).count()).toBe(1);

  // The pictures say in text what they draw, with the JSON API's numbers.
  const json = (await api('GET', `/api/v2/apps/${SAMPLE}/rollout`)).json<RolloutJson>();
  expect(await summary(page, 'rollout-stages')).toBe(
    'Halted at stage 1 of 2 (5 %); stages 5 %, 100 %.',
  );
  expect(json.haltReason).toBe('Halted by the health gate: 2.0 crashed 5× as often as 1.0.');
  expect(await text(page, '.halt-reason')).toBe(json.haltReason);
  const h = json.history.find((e) => e.action === 'halt')!.health!;
  const rates =
    /^Crashes per installation-hour at 1 evaluation: 2\.0 \(2\): (\S+); 1\.0 \(1\): (\S+); halt threshold \(2× 1\.0 \(1\)\): (\S+)\.$/.exec(
      await summary(page, 'rollout-crash-rates'),
    );
  const near = (drawn: string | undefined, exact: number) =>
    expect(Math.abs(Number(drawn) - exact) / exact).toBeLessThan(0.005);
  near(rates?.[1], h.newCount / h.newHours);
  near(rates?.[2], h.oldCount / h.oldHours);
  near(rates?.[3], (2 * h.oldCount) / h.oldHours);
  // In a 390 px window every chart scales down to fit.
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(tab());
  const charts = await page.locator('.chart svg').all();
  expect(charts.length).toBe(2);
  for (const svg of charts) {
    const box = await svg.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  }
  await browser.shot('rollouts-halted-390');

  // The apps list: the halted rollout's badge and reason; its APK's installations are "ahead".
  await page.goto(`${stack.urls.admin}/ui/apps`);
  const fleetCard = page.locator(`article.fleet-app[data-package="${SAMPLE}"]`);
  expect(await fleetCard.locator('.rollout-badge .badge').innerText()).toBe('halted');
  expect(await fleetCard.locator('.halt-reason').innerText()).toBe(json.haltReason);
  expect(await fleetCard.locator('[data-chart="fleet-versions"] .chart-summary').innerText()).toBe(
    '10 installations: 2.0 (2), ahead on 5 (50 %), 1.0 (1) on 5 (50 %). 10 online, 0 offline.',
  );
  for (const svg of await fleetCard.locator('.chart svg').all()) {
    const box = await svg.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  }
  await browser.shot('apps-fleet-390');
  await page.setViewportSize({ width: 1366, height: 800 });
  await page.reload();
  await browser.shot('apps-fleet');
  expect(browser.errors).toEqual([]);
});

test('a refused form shows why; the gate’s advance; Halt and Complete ask to be confirmed', async () => {
  const { apiKey, api, v1, v2 } = await fleet(20);
  const { page } = browser;
  await page.goto(tab());
  await page.getByLabel('APK').selectOption(v2.sha256);
  await page.getByLabel('Stages').fill('5, 50');
  const [refused] = await Promise.all([
    page.waitForResponse((r) => r.url() === tab() && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Start rollout' }).click(),
  ]);
  expect(refused.status()).toBe(400);
  // Shown on the tab, above the form, with what was typed kept.
  expect(await text(page, '#rollout-problem')).toBe('stages: the last one must be 100');
  expect(await page.getByLabel('Stages').inputValue()).toBe('5, 50');
  expect(await page.getByLabel('APK').inputValue()).toBe(v2.sha256);

  await page.getByLabel('Stages').fill('5, 50, 100');
  await page.getByLabel('Only installations whose metadata key').fill('store');
  await page.getByLabel('has one of the values').fill('north, south');
  await press(page, 'Start rollout');
  expect(await field(page, 'targeting')).toBe('metadata store in north, south');

  for (const d of OLDS) await sendCrashes(stack, apiKey, SAMPLE, { deviceId: d, md5: v1.md5 }, 2);
  for (const d of NEWS) await sendCrashes(stack, apiKey, SAMPLE, { deviceId: d, md5: v2.md5 }, 2);
  await evaluateRolloutsOnce(stack);
  await page.goto(tab());
  expect(await field(page, 'state')).toBe('running');
  expect(await field(page, 'percent')).toBe('50');
  expect(await decision(page, 'advance', 'health-gate')).toMatchObject({
    verdict: 'healthy',
    newCount: '10',
    oldCount: '10',
    ratio: '1.00',
  });

  // Halt needs its box ticked: the browser does not send the form without it...
  await page.getByRole('button', { name: 'Halt', exact: true }).click();
  const halt = page.locator(`form[action$="/rollouts/halt"] input[name="confirm"]`);
  type Box = { validity: { valueMissing: boolean }; removeAttribute(name: string): void };
  expect(await halt.evaluate((box) => (box as unknown as Box).validity.valueMissing)).toBe(true);
  expect(page.url()).toBe(tab());
  // ... and the server refuses it on the tab when the page's check is taken away.
  await halt.evaluate((box) => (box as unknown as Box).removeAttribute('required'));
  const [unconfirmed] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/rollouts/halt')),
    page.getByRole('button', { name: 'Halt', exact: true }).click(),
  ]);
  expect(unconfirmed.status()).toBe(400);
  expect(await text(page, '#rollout-problem')).toBe(
    'Tick the box to confirm first: nothing was done.',
  );
  expect((await api('GET', `/api/v2/apps/${SAMPLE}/rollout`)).json()).toMatchObject({
    state: 'running',
  });

  await page.goto(tab());
  await page.getByLabel('Complete: 2.0 (2) becomes the current APK').check();
  await press(page, 'Complete');
  await browser.shot('rollouts-completed');
  expect(await field(page, 'state')).toBe('completed');
  const app = (await api('GET', `/api/v2/apps/${SAMPLE}`)).json<{ current: Apk | null }>();
  expect(app.current?.md5).toBe(v2.md5);
  // The only errors chromium logs are the refused forms' 400s.
  expect(browser.errors).toEqual([
    expect.stringContaining('status of 400 (Bad Request)'),
    expect.stringContaining('status of 400 (Bad Request)'),
  ]);
});
