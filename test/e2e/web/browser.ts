/** Debian's chromium through playwright-core, for the web administration tests. */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const SHOTS = path.join(__dirname, '..', '..', '..', 'test-output', 'screenshots');
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly page: Page;
  /** Console errors and uncaught page errors seen so far, with the page's URL. */
  readonly errors: string[];
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Headless, no sandbox, a new empty profile; the test stack's self-signed certificate accepted.
 * `javaScript: false`: pages as a browser without scripts sees them.
 */
export async function openBrowser(options: { javaScript?: boolean } = {}): Promise<Browser> {
  await mkdir(SHOTS, { recursive: true });
  const profile = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    ignoreHTTPSErrors: true,
    javaScriptEnabled: options.javaScript ?? true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`${page.url()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`${page.url()}: ${err.message}`));
  return {
    page,
    errors,
    async shot(name) {
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Logs in through the login form (accounts made by test/helpers/accounts.ts's newAccount). */
export async function logIn(page: Page, admin: string, email: string): Promise<void> {
  await page.goto(`${admin}/ui/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('password-123');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${admin}/ui/apps`);
}
