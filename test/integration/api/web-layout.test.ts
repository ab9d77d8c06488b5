/**
 * Issue 35 #5 over real HTTPS: every unknown `/ui` path answers a page in the layout with status
 * 404 (the signed-in header when a session rides, a link home, the pages' CSP), the JSON API keeps
 * its JSON 404; every page opens with the skip link to `<main id="content">`, names the audit log
 * and webhooks in its header, and shows the owner's API key as `••••` and its last four
 * characters, the whole key only inside the closed `<details>`, never in a link.
 */
import { Browser } from '../../helpers/browser';
import { newAccount } from '../../helpers/accounts';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';

jest.setTimeout(120_000);

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ workers: false, trustProxy: ['loopback'] });
});
afterAll(() => stack.close());

const SKIP = '<a class="skip" href="#content">Skip to content</a>';

/** The body's first focusable element (a link, button, input, select or textarea). */
const firstFocusable = (page: string) =>
  /<body>\s*(<(?:a|button|input|select|textarea)\b[^>]*>[^<]*(?:<\/a>)?)/.exec(page)?.[1];

test('an unknown /ui path, signed out: the anonymous layout, status 404, a link home', async () => {
  for (const path of ['/ui/nope', '/ui/apps/x/y/z', '/ui/webhooks/x/y']) {
    const reply = await request(`${stack.urls.admin}${path}`, { ca: stack.ca });
    expect(reply.status).toBe(404);
    expect(reply.headers['content-type']).toMatch(/^text\/html/);
    expect(reply.headers['content-security-policy']).toContain("default-src 'self'");
    expect(reply.text).toContain('<h1>Page not found</h1>');
    expect(reply.text).toContain(`<code>${path}</code>`);
    expect(reply.text).toContain('<a href="/ui/login">Log in</a>');
    expect(firstFocusable(reply.text)).toBe(SKIP);
    expect(reply.text).toMatch(/<main id="content"/);
  }
  const api = await request(`${stack.urls.admin}/api/v2/nope`, { ca: stack.ca });
  expect(api.status).toBe(404);
  expect(api.json<{ error: { code: string } }>().error.code).toBe('NOT_FOUND');
});

test('signed in: the header names every section, the key is masked until revealed', async () => {
  const { apiKey, email } = await newAccount(stack);
  const jar = new Browser(stack, '10.9.0.1');
  expect((await jar.logIn(email, 'password-123')).status).toBe(303);
  for (const path of ['/ui/apps', '/ui/audit', '/ui/webhooks', '/ui/account', '/ui/no-such']) {
    const page = await jar.get(path);
    expect(page.status).toBe(path === '/ui/no-such' ? 404 : 200);
    expect(firstFocusable(page.text)).toBe(SKIP);
    expect(page.text).toMatch(/<main id="content"/);
    for (const link of ['/ui/apps', '/ui/audit', '/ui/webhooks', '/ui/members']) {
      expect(page.text).toContain(`<a href="${link}">`);
    }
    expect(page.text).toContain(`<code>••••${apiKey.slice(-4)}</code>`);
    // The whole key: once, inside the <details> (closed), in no href or action.
    const at = page.text.indexOf(apiKey);
    expect(page.text.indexOf(apiKey, at + 1)).toBe(-1);
    const details = page.text.slice(page.text.indexOf('<details class="key">'), at);
    expect(details).not.toContain('</details>');
    expect(details).not.toMatch(/<details class="key"[^>]*open/);
    expect(page.text).not.toMatch(new RegExp(`(href|action)="[^"]*${apiKey}`));
  }
});
