/**
 * The web administration's session rules over plain HTTPS: cookie attributes, the CSP header,
 * CSRF on the pre-session forms, login throttling, and a session that ends at logout.
 */
import { request, type Reply } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';

let stack: TestStack;
beforeAll(async () => {
  // Behind a (loopback) proxy: tests name client addresses with X-Forwarded-For.
  stack = await startStack({ workers: false, trustProxy: ['loopback'] });
});
afterAll(() => stack.close());

const cookiesOf = (reply: Reply): string[] => {
  const raw = reply.headers['set-cookie'] ?? [];
  return Array.isArray(raw) ? raw : [raw];
};
const pair = (setCookie: string) => setCookie.split(';')[0] ?? '';
const csrfIn = (reply: Reply) => /name="_csrf" value="([^"]+)"/.exec(reply.text)?.[1] ?? '';

async function form(
  path: string,
  fields: Record<string, string>,
  cookie: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return request(`${stack.urls.admin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    body: new URLSearchParams(fields).toString(),
    ca: stack.ca,
  });
}

async function loginForm(): Promise<{ csrf: string; cookie: string; reply: Reply }> {
  const reply = await request(`${stack.urls.admin}/ui/login`, { ca: stack.ca });
  const cookie = pair(cookiesOf(reply)[0] ?? '');
  return { csrf: csrfIn(reply), cookie, reply };
}

/** Signs `email` up (password `password-123`); the login form's token and cookie. */
async function signedUp(email: string): Promise<{ csrf: string; cookie: string }> {
  const { csrf, cookie } = await loginForm();
  const reply = await form('/ui/signup', { email, password: 'password-123', _csrf: csrf }, cookie);
  expect(reply.status).toBe(303);
  return { csrf, cookie };
}

test('pages carry a strict CSP; cookies are __Host-, Secure, HttpOnly, SameSite=Lax', async () => {
  const { reply, csrf, cookie } = await loginForm();
  expect(reply.status).toBe(200);
  expect(reply.headers['content-security-policy']).toContain("default-src 'self'");
  expect(reply.headers['content-security-policy']).toContain("script-src 'self'");
  expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const signUp = await form(
    '/ui/signup',
    { email: 'cookie@example.com', password: 'password-123', _csrf: csrf },
    cookie,
  );
  expect(signUp.status).toBe(303);
  const session = cookiesOf(signUp).find((c) => c.startsWith('__Host-apkrelay_session='));
  expect(session).toBeDefined();
  expect(session).toMatch(/; Secure/);
  expect(session).toMatch(/; HttpOnly/);
  expect(session).toMatch(/; SameSite=Lax/);
  expect(session).toMatch(/; Path=\//);

  const apps = await request(`${stack.urls.admin}/ui/apps`, {
    headers: { cookie: pair(session ?? '') },
    ca: stack.ca,
  });
  expect(apps.status).toBe(200);
  expect(apps.text).toContain('cookie@example.com');
  const logout = await form('/ui/logout', { _csrf: csrfIn(apps) }, pair(session ?? ''));
  expect(logout.status).toBe(303);
  const after = await request(`${stack.urls.admin}/ui/apps`, {
    headers: { cookie: pair(session ?? '') },
    ca: stack.ca,
  });
  expect(after.status).toBe(303);
  expect(after.headers.location).toBe('/ui/login');
});

test('sign-up and login forms need the double-submit token', async () => {
  const { csrf, cookie } = await loginForm();
  const fields = { email: 'nocsrf@example.com', password: 'password-123' };
  expect((await form('/ui/signup', fields, cookie)).status).toBe(403);
  expect((await form('/ui/signup', { ...fields, _csrf: csrf }, '')).status).toBe(403);
  expect((await form('/ui/login', { ...fields, _csrf: 'x'.repeat(43) }, cookie)).status).toBe(403);
});

test('logins are throttled after 5 failures for an email, even with the right password', async () => {
  const email = 'throttle@example.com';
  const { csrf, cookie } = await signedUp(email);
  for (let i = 0; i < 5; i++) {
    const wrong = await form(
      '/ui/login',
      { email, password: 'wrong-password', _csrf: csrf },
      cookie,
    );
    expect(wrong.status).toBe(401);
  }
  const right = await form('/ui/login', { email, password: 'password-123', _csrf: csrf }, cookie);
  expect(right.status).toBe(429);
  const other = await form(
    '/ui/login',
    { email: 'cookie@example.com', password: 'password-123', _csrf: csrf },
    cookie,
  );
  expect(other.status).toBe(303);
});

test('the per-address login throttle counts an IPv6 client by its /64, as the other throttles do', async () => {
  const { csrf, cookie } = await loginForm();
  const from = (address: string, i: number) =>
    form(
      '/ui/login',
      { email: `nobody-${i}@example.com`, password: 'wrong-password', _csrf: csrf },
      cookie,
      { 'x-forwarded-for': address },
    );
  // 50 failures (the address limit), each from another address of one /64.
  for (let i = 0; i < 50; i++)
    expect((await from(`2001:db8:1:2::${(i + 1).toString(16)}`, i)).status).toBe(401);
  expect((await from('2001:db8:1:2:ffff:ffff:ffff:fffe', 50)).status).toBe(429);
  expect((await from('2001:db8:1:3::1', 51)).status).toBe(401);
  // 51 scrypt hashes at N=2^17 (about 0.5 s each alone, more on a loaded 2-core machine).
}, 240_000);

test('30 parallel wrong logins for one email: at most 5 get 401, the rest 429 (issue 24 #3)', async () => {
  const email = 'race@example.com';
  const { csrf, cookie } = await signedUp(email);
  const from = (address: string, password: string) =>
    form('/ui/login', { email, password, _csrf: csrf }, cookie, { 'x-forwarded-for': address });
  const replies = await Promise.all(
    Array.from({ length: 30 }, () => from('198.51.100.7', 'wrong-password')),
  );
  const statuses = replies.map((r) => r.status);
  const unauthorized = statuses.filter((s) => s === 401).length;
  expect(unauthorized).toBeLessThanOrEqual(5);
  expect(statuses.filter((s) => s === 429).length).toBe(30 - unauthorized);
  // The guessing address stays locked out, even with the right password...
  expect((await from('198.51.100.7', 'password-123')).status).toBe(429);
  // ...but the owner, typing the right password from another address, is not.
  expect((await from('203.0.113.9', 'password-123')).status).toBe(303);
});
