/**
 * Issue 35 #7: every page of the web administration in chromium, on a populated stack (two apps,
 * 46 installations with store and region metadata, crash reports in six groups, a rollout the
 * health gate halted). The walker follows every same-origin `/ui` link from the apps list (the
 * header's sections, each app's tabs, what they link to), so a page added later is checked as soon
 * as a link leads to it. At 1,366 and at 390 px each page must: fit the window (the widest
 * offender is named), log no console error, give every `figure.chart` a text summary, open with
 * the skip link to `<main id="content">`. An unknown path gets the layout's 404; without
 * JavaScript the API key is revealed by its `<details>` and the forms still post.
 *
 * The pages walked are listed in test-output/screenshots/every-page.txt, a picture of each at
 * each width beside it. With SCREENSHOTS_DIR set (`npm run screenshots`), a PNG of each page's
 * first visit at 1,366 px goes there, and docs/web-admin.md's list of them is rewritten
 * (test/e2e/web/screenshots.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { logIn, openBrowser, SHOTS, type Browser } from './browser';
import { populate, startPopulatedStack, type Populated } from './populated';
import { fileNameOf, saveScreenshots } from './screenshots';
import { problemsOf, walk } from './walker';
import type { TestStack } from '../../helpers/stack';

jest.setTimeout(600_000);
const WIDTHS = [1366, 390];
const HEIGHT = 900;
let stack: TestStack;
let world: Populated;
let browser: Browser;
beforeAll(async () => {
  stack = await startPopulatedStack();
  world = await populate(stack);
  browser = await openBrowser();
  await logIn(browser.page, stack.urls.admin, world.email);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

test('every /ui page fits 1,366 and 390 px, has its skip link, summaries, no console error', async () => {
  const { page } = browser;
  await page.setViewportSize({ width: WIDTHS[0]!, height: HEIGHT });
  const pages = await walk(page, `${stack.urls.admin}/ui/apps`, { pages: 80, perShape: 2 });
  const paths = pages.map((u) => new URL(u).pathname);
  await mkdir(SHOTS, { recursive: true });
  await writeFile(path.join(SHOTS, 'every-page.txt'), `${pages.join('\n')}\n`);
  // The header's sections and both apps' tabs were reached by links, not listed here.
  for (const p of ['/ui/apps', '/ui/audit', '/ui/webhooks', '/ui/members', '/ui/account']) {
    expect(paths).toContain(p);
  }
  expect(paths.filter((p) => p.startsWith('/ui/apps/dev.apkrelay.other')).length).toBeGreaterThan(
    1,
  );
  expect(paths.some((p) => /^\/ui\/webhooks\/[0-9a-f]{24}$/.test(p))).toBe(true);

  const problems: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    for (const url of pages) {
      const before = browser.errors.length;
      const reply = await page.goto(url);
      const at = `${width} px ${new URL(url).pathname}${new URL(url).search}`;
      if (!reply || reply.status() >= 400) problems.push(`${at}: status ${reply?.status()}`);
      const found = await problemsOf(page);
      if (found.overflow) problems.push(`${at}: ${found.overflow}`);
      if (found.skipLink) problems.push(`${at}: ${found.skipLink}`);
      problems.push(...found.charts.map((c) => `${at}: ${c}`));
      problems.push(...browser.errors.slice(before).map((e) => `${at}: console: ${e}`));
      await browser.shot(`every-page-${width}-${fileNameOf(new URL(url))}`);
    }
  }
  if (process.env.SCREENSHOTS_DIR) await saveScreenshots(page, pages, process.env.SCREENSHOTS_DIR);
  expect(problems).toEqual([]);
});

test('an unknown /ui path: the layout, a link home, status 404, fits 390 px', async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 390, height: HEIGHT });
  const reply = await page.goto(`${stack.urls.admin}/ui/apps/nothing/here`);
  expect(reply?.status()).toBe(404);
  expect(await page.locator('main#content h1').innerText()).toBe('Page not found');
  expect(await page.getByRole('link', { name: 'Back to the apps' }).getAttribute('href')).toBe(
    '/ui/apps',
  );
  expect(await problemsOf(page)).toEqual({ overflow: null, charts: [], skipLink: null });
});

test('without JavaScript: the key is revealed by its <details>, a form still posts', async () => {
  const plain = await openBrowser({ javaScript: false });
  try {
    const { page } = plain;
    await logIn(page, stack.urls.admin, world.email);
    const field = page.getByLabel('API key');
    expect(await field.isVisible()).toBe(false);
    expect(await page.locator('header .key summary code').innerText()).toBe(
      `••••${world.apiKey.slice(-4)}`,
    );
    await page.locator('header .key summary').click();
    expect(await field.inputValue()).toBe(world.apiKey);
    await page.goto(`${stack.urls.admin}/ui/webhooks`);
    await page.getByLabel('URL (https://)').fill('https://hooks.example.invalid/no-js');
    await page.getByLabel('backup.failed').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await page.locator('main p.notice').innerText()).toContain(
      'https://hooks.example.invalid/no-js',
    );
  } finally {
    await plain.close();
  }
});
