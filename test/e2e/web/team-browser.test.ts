/**
 * Teams in chromium (issue 20, docs/teams.md), one happy path: the owner invites a developer on
 * the members page and reads the link shown once; the invitee opens it, sees the account and the
 * role, chooses a password and lands signed in; the members page lists them with their role,
 * without the forms a developer may not use; the owner's API key is not in the member's pages. Screenshots go to test-output/screenshots/.
 */
import { newAccount } from '../../helpers/accounts';
import { startStack, type TestStack } from '../../helpers/stack';
import { logIn, openBrowser, type Browser } from './browser';

jest.setTimeout(120_000);
let stack: TestStack;
let browser: Browser;
beforeAll(async () => {
  stack = await startStack({ workers: false });
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

test('invite by link, join, and the members page', async () => {
  const { page } = browser;
  const admin = stack.urls.admin;
  const owner = await newAccount(stack);
  const member = `dev-${Date.now()}@example.com`;
  await logIn(page, admin, owner.email);

  await page.getByRole('link', { name: 'Members' }).click();
  await page.waitForURL(`${admin}/ui/members`);
  await page.getByLabel('Email').fill(member);
  await page.getByLabel('Role').selectOption('developer');
  await page.getByRole('button', { name: 'Invite' }).click();
  const link = (await page.locator('#invite-link').textContent()) ?? '';
  expect(link).toMatch(new RegExp(`^${admin}/ui/join/[A-Za-z0-9_-]{43}$`));
  await browser.shot('members-invited');
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${admin}/ui/login`);

  await page.goto(link);
  expect(await page.locator('main').textContent()).toContain(`invited as developer`);
  await page.getByLabel('Password (8 to 1024 characters)').fill('member horse battery');
  await page.getByLabel('Password again').fill('member horse battery');
  await browser.shot('join');
  await page.getByRole('button', { name: 'Join' }).click();
  await page.waitForURL(`${admin}/ui/apps`);
  expect(await page.content()).not.toContain(owner.apiKey);

  await page.getByRole('link', { name: 'Members' }).click();
  await page.waitForURL(`${admin}/ui/members`);
  const rows = await page.locator('tbody tr').allTextContents();
  expect(rows.some((r) => r.includes(owner.email) && r.includes('owner'))).toBe(true);
  expect(rows.some((r) => r.includes(member) && r.includes('developer'))).toBe(true);
  // A developer reads the team; the forms that change it are the owners' and admins'.
  expect(await page.getByRole('button', { name: 'Invite' }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Remove' }).count()).toBe(0);
  await browser.shot('members');
  expect(browser.errors).toEqual([]);
});
