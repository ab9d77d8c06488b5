/**
 * Issue 24 #8, over real HTTPS against the real stack, one cookie jar per browser: a login with a
 * hash of older scrypt parameters rehashes it (seen in the stored document); a password change
 * (`POST /ui/account/password`) ends the account's other sessions and swaps the passwords; a wrong
 * current password is refused and counts against the login throttle; "sign out everywhere"
 * (`POST /ui/account/sign-out-everywhere`) ends every session of the account.
 */
import { CURRENT_HASH, RFC7914_HASH as RFC7914 } from '../../helpers/accounts';
import { Browser } from '../../helpers/browser';
import { request, type Reply } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';

jest.setTimeout(120_000);

let stack: TestStack;
beforeAll(async () => {
  // Behind a (loopback) proxy: tests give each one its own client address (X-Forwarded-For).
  stack = await startStack({ workers: false, trustProxy: ['loopback'] });
});
afterAll(() => stack.close());

const PASSWORD = 'password-123';

/** A browser (test/helpers/browser.ts) of this file's stack. */
class Jar extends Browser {
  constructor(address: string) {
    super(stack, address);
  }
}

let n = 0;
const freshEmail = () => `account${++n}-${Date.now()}@example.com`;
const accounts = () =>
  stack.mongo.db.collection<{ email: string; passwordHash: string }>('accounts');

/** A new account (signed up in `jar`, which keeps that session) and a second signed-in jar. */
async function twoSessions(address: string): Promise<{ email: string; one: Jar; two: Jar }> {
  const email = freshEmail();
  const one = new Jar(address);
  const signUp = await one.post('/ui/signup', {
    email,
    password: PASSWORD,
    _csrf: await one.csrf('/ui/signup'),
  });
  expect(signUp.status).toBe(303);
  const two = new Jar(address);
  expect((await two.logIn(email, PASSWORD)).status).toBe(303);
  expect((await one.get('/ui/apps')).status).toBe(200);
  expect((await two.get('/ui/apps')).status).toBe(200);
  return { email, one, two };
}

const signedOut = (reply: Reply) => ({ status: reply.status, location: reply.headers.location });

test('a login with an older-parameter hash rehashes it to N=2^17, r=8, p=1', async () => {
  const { email } = await twoSessions('198.51.100.1');
  await accounts().updateOne({ email }, { $set: { passwordHash: RFC7914 } });
  const jar = new Jar('198.51.100.1');
  expect((await jar.logIn(email, 'pleaseletmeim')).status).toBe(401);
  expect((await accounts().findOne({ email }))?.passwordHash).toBe(RFC7914);

  expect((await jar.logIn(email, 'pleaseletmein')).status).toBe(303);
  const stored = (await accounts().findOne({ email }))?.passwordHash ?? '';
  expect(stored).toMatch(CURRENT_HASH);
  // The new hash is of the same password: the next login works and leaves it alone.
  expect((await new Jar('198.51.100.1').logIn(email, 'pleaseletmein')).status).toBe(303);
  expect((await accounts().findOne({ email }))?.passwordHash).toBe(stored);
});

test('a password change ends the other session; the new password works, the old one not', async () => {
  const { email, one, two } = await twoSessions('198.51.100.2');
  const csrf = await one.csrf('/ui/account');
  const change = await one.post('/ui/account/password', {
    current: PASSWORD,
    password: 'new-password-456',
    confirm: 'new-password-456',
    _csrf: csrf,
  });
  expect(signedOut(change)).toEqual({ status: 303, location: '/ui/account?changed=password' });
  // The changing browser stays signed in (its session renewed); the other one is signed out.
  expect((await one.get('/ui/account?changed=password')).text).toContain('Password changed');
  expect(signedOut(await two.get('/ui/apps'))).toEqual({ status: 303, location: '/ui/login' });
  expect((await new Jar('198.51.100.2').logIn(email, PASSWORD)).status).toBe(401);
  expect((await new Jar('198.51.100.2').logIn(email, 'new-password-456')).status).toBe(303);
});

test('the new password follows the sign-up rules and must be typed twice alike', async () => {
  const { email, one, two } = await twoSessions('198.51.100.3');
  const csrf = await one.csrf('/ui/account');
  const attempt = (password: string, confirm: string) =>
    one.post('/ui/account/password', { current: PASSWORD, password, confirm, _csrf: csrf });
  const short = await attempt('short', 'short');
  expect(short.status).toBe(400);
  expect(short.text).toContain('password must be 8 to 1024 characters long');
  const unlike = await attempt('new-password-456', 'new-password-457');
  expect(unlike.status).toBe(400);
  expect(unlike.text).toContain('The new passwords differ.');
  const forged = await one.post('/ui/account/password', {
    current: PASSWORD,
    password: 'new-password-456',
    confirm: 'new-password-456',
  });
  expect(forged.status).toBe(403);
  // Nothing changed: both sessions live, the password is the old one.
  expect((await two.get('/ui/apps')).status).toBe(200);
  expect((await new Jar('198.51.100.3').logIn(email, PASSWORD)).status).toBe(303);
});

test('a wrong current password is refused and counts against the login throttle', async () => {
  const { email, one } = await twoSessions('198.51.100.4');
  const csrf = await one.csrf('/ui/account');
  const wrong = () =>
    one.post('/ui/account/password', {
      current: 'not-the-password',
      password: 'new-password-456',
      confirm: 'new-password-456',
      _csrf: csrf,
    });
  // The login throttle's limit: 5 attempts per email from one address in 15 minutes.
  for (let i = 0; i < 5; i++) {
    const reply = await wrong();
    expect(reply.status).toBe(401);
    expect(reply.text).toContain('The current password is wrong.');
  }
  expect((await wrong()).status).toBe(429);
  expect((await new Jar('198.51.100.4').logIn(email, PASSWORD)).status).toBe(429);
  // Another address is not locked out, and the password did not change.
  expect((await new Jar('198.51.100.40').logIn(email, PASSWORD)).status).toBe(303);
});

test('sign out everywhere ends both sessions of the account, not another account’s', async () => {
  const { one, two } = await twoSessions('198.51.100.5');
  const other = await twoSessions('198.51.100.6');
  const csrf = await one.csrf('/ui/account');
  expect((await one.post('/ui/account/sign-out-everywhere', {})).status).toBe(403);
  expect((await two.get('/ui/apps')).status).toBe(200);

  const before = { one: one.cookie, two: two.cookie };
  const reply = await one.post('/ui/account/sign-out-everywhere', { _csrf: csrf });
  expect(signedOut(reply)).toEqual({ status: 303, location: '/ui/login' });
  expect(one.cookie).not.toContain('__Host-apkrelay_session=');
  // The old cookies, presented again as they were, reach nothing.
  for (const cookie of [before.one, before.two]) {
    const page = await request(`${stack.urls.admin}/ui/apps`, {
      headers: { cookie },
      ca: stack.ca,
    });
    expect(signedOut(page)).toEqual({ status: 303, location: '/ui/login' });
    const form = await request(`${stack.urls.admin}/ui/logout`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${encodeURIComponent(csrf)}`,
      ca: stack.ca,
    });
    expect(form.status).toBe(403);
    expect(form.text).toBe('Sign in first.');
  }
  expect((await other.one.get('/ui/apps')).status).toBe(200);
  expect((await other.two.get('/ui/apps')).status).toBe(200);
});

test('the account page creates a CI token (secret shown once), revokes it, and restricts the API key', async () => {
  const { one } = await twoSessions('198.51.100.40');
  const csrf = await one.csrf('/ui/account');
  expect(
    (await one.post('/ui/account/keys', { kind: 'ci-token', name: 'ci', apps: 'a.b' })).status,
  ).toBe(403);
  const created = await one.post('/ui/account/keys', {
    kind: 'ci-token',
    name: 'pipeline',
    apps: 'dev.apkrelay.sample, com.example.other',
    _csrf: csrf,
  });
  expect(created.status).toBe(201);
  const secret = /ct_[A-Za-z0-9_-]{32}/.exec(created.text)?.[0] ?? '';
  expect(secret).not.toBe('');
  const page = await one.get('/ui/account');
  expect(page.text).toContain('pipeline');
  expect(page.text).toContain('dev.apkrelay.sample, com.example.other');
  expect(page.text).not.toContain(secret);
  const asToken = () =>
    request(`${stack.urls.admin}/api/v2/apps`, {
      headers: { authorization: `Bearer ${secret}` },
      ca: stack.ca,
    });
  // A valid token, not for this route.
  expect((await asToken()).json<{ error: { code: string } }>().error.code).toBe(
    'KEY_SCOPE_REFUSED',
  );
  const id = /\/ui\/account\/keys\/([0-9a-f]{24})\/revoke/.exec(page.text)?.[1] ?? '';
  const revoked = await one.post(`/ui/account/keys/${id}/revoke`, { _csrf: csrf });
  expect(signedOut(revoked)).toEqual({ status: 303, location: '/ui/account' });
  expect((await asToken()).status).toBe(401);

  const bad = await one.post('/ui/account/keys', { kind: 'x', name: '', apps: '', _csrf: csrf });
  expect(bad.status).toBe(400);
  const restricted = await one.post('/ui/account/api-key-restriction', {
    deviceOnly: 'true',
    _csrf: csrf,
  });
  expect(restricted.status).toBe(303);
  expect((await one.get('/ui/account')).text).toContain('restricted to the device routes');
});
