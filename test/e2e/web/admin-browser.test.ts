/**
 * The web administration in a real browser (Debian's chromium via playwright-core) against a real
 * stack: a new user signs up, reads the API key, uploads an APK through the form, makes it
 * current, creates a download link whose QR code is shown and downloads through it. Screenshots of
 * every page go to test-output/screenshots/; no page may log a console error.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';

const ROOT = path.join(__dirname, '..', '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'apks', 'version-1.apk');
const SHOTS = path.join(ROOT, 'test-output', 'screenshots');
const PACKAGE = 'dev.apkrelay.sample';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let stack: TestStack;
let profile: string;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  stack = await startStack();
  await mkdir(SHOTS, { recursive: true });
  profile = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    ignoreHTTPSErrors: true,
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(`${page.url()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => consoleErrors.push(`${page.url()}: ${err.message}`));
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await stack?.close();
});

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** The API key from the header: masked (`••••` and its last 4) until Reveal is pressed. */
async function revealKey(): Promise<string> {
  const field = page.getByLabel('API key');
  expect(await field.isVisible()).toBe(false);
  const masked = await page.locator('header .key summary code').innerText();
  await page.locator('header .key summary').click();
  expect(await field.isVisible()).toBe(true);
  const key = await field.inputValue();
  expect(masked).toBe(`••••${key.slice(-4)}`);
  return key;
}

const email = `browser-${Date.now()}@example.com`;
let fixtureSha256 = '';
const password = 'correct horse battery';

test('a new user signs up, uploads, makes current, links, and downloads through the link', async () => {
  const admin = stack.urls.admin;
  await page.goto(`${admin}/ui/signup`);
  await shot('signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL(`${admin}/ui/apps`);

  const apiKey = await revealKey();
  const apps = await request(`${admin}/api/v2/apps`, {
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(apps.status).toBe(200);
  await shot('apps-empty');

  await page.getByLabel('APK file').setInputFiles(FIXTURE);
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.waitForURL(`${admin}/ui/apps/${PACKAGE}`);
  expect(await page.getByRole('cell', { name: '1.0', exact: true }).count()).toBe(1);
  await shot('app-apks');

  await page.getByLabel('Every installation is offered').check();
  await page.getByRole('button', { name: 'Make current' }).click();
  await page.waitForURL(`${admin}/ui/apps/${PACKAGE}`);
  expect(await page.locator('.badge').textContent()).toBe('current');
  expect(await page.getByRole('button', { name: 'Make current' }).count()).toBe(0);
  await shot('app-apks-current');

  await page.getByRole('button', { name: 'Download link' }).click();
  const qr = page.getByRole('img', { name: 'QR code of the download link' });
  await qr.waitFor();
  expect(
    await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
  ).toBeGreaterThan(0);
  await shot('download-link');
  const url = await page.getByLabel('Link').inputValue();
  expect(url.startsWith(`${stack.urls.web}/d/`)).toBe(true);
  const download = await request(url, { ca: stack.ca });
  expect(download.status).toBe(200);
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  fixtureSha256 = sha(await readFile(FIXTURE));
  expect(sha(download.body)).toBe(fixtureSha256);

  await page.getByRole('link', { name: 'Installations' }).click();
  await page.waitForURL(`${admin}/ui/apps/${PACKAGE}/installations`);
  await shot('app-installations');
  await page.getByRole('link', { name: 'Exceptions' }).click();
  await page.waitForURL(`${admin}/ui/apps/${PACKAGE}/exceptions`);
  await shot('app-exceptions');

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${admin}/ui/login`);
  await shot('login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${admin}/ui/apps`);
  expect(await page.getByRole('link', { name: PACKAGE }).count()).toBe(1);
  await shot('apps');

  await page.getByLabel('I understand that the current key stops working at once').check();
  await page.getByRole('button', { name: 'Regenerate key' }).click();
  await page.waitForURL(`${admin}/ui/apps`);
  const newKey = await revealKey();
  expect(newKey).not.toBe(apiKey);
  for (const [key, status] of [
    [apiKey, 401],
    [newKey, 200],
  ] as const) {
    const reply = await request(`${admin}/api/v2/apps`, {
      headers: { authorization: `Bearer ${key}` },
      ca: stack.ca,
    });
    expect(reply.status).toBe(status);
  }

  expect(consoleErrors).toEqual([]);
}, 180_000);

test('forms without the CSRF token are refused', async () => {
  const admin = stack.urls.admin;
  const current = await page.request.post(`${admin}/ui/apps/${PACKAGE}/current`, {
    form: { sha256: '0'.repeat(64) },
    maxRedirects: 0,
  });
  expect(current.status()).toBe(403);
  const link = await page.request.post(`${admin}/ui/apps/${PACKAGE}/download-links`, {
    form: { sha256: '0'.repeat(64), _csrf: 'forged' },
    maxRedirects: 0,
  });
  expect(link.status()).toBe(403);
  const login = await page.request.post(`${admin}/ui/login`, {
    form: { email, password },
    maxRedirects: 0,
  });
  expect(login.status()).toBe(403);
});

test("another account's app page answers 404 and shows none of its data", async () => {
  const admin = stack.urls.admin;
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${admin}/ui/login`);
  await page.goto(`${admin}/ui/signup`);
  await page.getByLabel('Email').fill(`other-${email}`);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL(`${admin}/ui/apps`);
  expect(await page.getByRole('link', { name: PACKAGE }).count()).toBe(0);
  for (const tab of ['', '/installations', '/exceptions']) {
    const reply = await page.request.get(`${admin}/ui/apps/${PACKAGE}${tab}`, { maxRedirects: 0 });
    expect(reply.status()).toBe(404);
  }
  // With this account's own valid CSRF token, the other account's forms still answer 404.
  const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
  for (const action of ['current', 'download-links']) {
    const reply = await page.request.post(`${admin}/ui/apps/${PACKAGE}/${action}`, {
      form: { sha256: fixtureSha256, _csrf: csrf },
      maxRedirects: 0,
    });
    expect(reply.status()).toBe(404);
  }
  expect(consoleErrors).toEqual([]);
});

test('the account page changes the password; the new one logs in, the old one not', async () => {
  const admin = stack.urls.admin;
  const newPassword = 'another horse battery';
  await page.getByRole('link', { name: `other-${email}` }).click();
  await page.waitForURL(`${admin}/ui/account`);
  await page.getByLabel('Current password', { exact: true }).fill(password);
  await page.getByLabel('New password (8 to 1024 characters)', { exact: true }).fill(newPassword);
  await page.getByLabel('New password again', { exact: true }).fill(newPassword);
  await page.getByRole('button', { name: 'Change the password' }).click();
  await page.waitForURL(`${admin}/ui/account?changed=password`);
  expect(await page.getByRole('status').textContent()).toContain('Password changed');
  await shot('account');

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${admin}/ui/login`);
  const logIn = async (tried: string) => {
    await page.getByLabel('Email').fill(`other-${email}`);
    await page.getByLabel('Password').fill(tried);
    await page.getByRole('button', { name: 'Log in' }).click();
  };
  const errorsBefore = consoleErrors.length;
  await logIn(password);
  expect(await page.getByRole('alert').textContent()).toBe('Wrong email or password.');
  // The refused login's 401 is the one console error here, and an expected one.
  expect(consoleErrors.splice(errorsBefore)).toEqual([
    expect.stringContaining('the server responded with a status of 401'),
  ]);
  await logIn(newPassword);
  await page.waitForURL(`${admin}/ui/apps`);
  expect(consoleErrors).toEqual([]);
});
