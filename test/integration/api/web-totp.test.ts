/**
 * The TOTP second factor (issue 20, docs/teams.md) over real HTTPS against the real stack: set up
 * (key and otpauth URI shown, QR as a data: image), confirmed with a current code, then the login
 * asks a code after the password; a wrong code and a code already used are refused; off with a
 * current code; on and off are audited; the stored seed is sealed and neither it nor a
 * pending-login token is ever logged. Codes come from RFC 6238 as
 * written out in test/helpers/totp-reference.ts, not from the product's module.
 */
import type { AuditEntry } from '../../helpers/audit-log';
import { createLogger } from '../../../shared/log';
import { Browser } from '../../helpers/browser';
import { newAccount } from '../../helpers/accounts';
import { request, type Reply } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { referenceTotp, stepOf } from '../../helpers/totp-reference';

jest.setTimeout(180_000);

let stack: TestStack;
/** Everything the stack logs, at debug level: no seed or pending-login token may be in it. */
const logged: string[] = [];
beforeAll(async () => {
  const log = createLogger('debug', { role: 'test' }, { write: (l: string) => logged.push(l) });
  stack = await startStack({ workers: false, trustProxy: ['loopback'], log });
});
afterAll(() => stack.close());

const secretIn = (r: Reply) => /id="totp-secret">([A-Z2-7]+)</.exec(r.text)?.[1] ?? '';
const pendingIn = (r: Reply) => /name="pending" value="([^"]+)"/.exec(r.text)?.[1] ?? '';

/** Waits out the end of a 30-second step, so a test's codes all fall in one. */
async function awayFromStepEnd(): Promise<number> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 8_000) await new Promise((resolve) => setTimeout(resolve, left + 200));
  return stepOf(Date.now());
}

const PASSWORD = { password: 'password-123' };
const recoveryIn = (r: Reply) =>
  [...r.text.matchAll(/<li><code class="recovery-code">([^<]+)<\/code><\/li>/g)].map((m) => m[1]!);

async function enrol(browser: Browser): Promise<string> {
  const started = await browser.form('/ui/account/totp', PASSWORD);
  expect(started.status).toBe(201);
  const secret = secretIn(started);
  expect(started.text).toContain(`otpauth://totp/apkrelay:`);
  expect(started.text).toMatch(/id="totp-qr"\s+src="data:image\/png;base64,/);
  return secret;
}

test('enrol, log in with a code, replay refused, off with a code; audited; seed sealed', async () => {
  const account = await newAccount(stack);
  const browser = new Browser(stack, '203.0.113.5');
  expect((await browser.logIn(account.email, 'password-123')).status).toBe(303);
  const step = await awayFromStepEnd();

  // On, then off (codes of the previous and the current step: both in the window), then on again.
  const first = await enrol(browser);
  const wrong = await browser.form('/ui/account/totp/confirm', {
    code: '000000' === referenceTotp(first, step) ? '111111' : '000000',
  });
  expect(wrong.status).toBe(400);
  const on = await browser.form('/ui/account/totp/confirm', {
    code: referenceTotp(first, step - 1),
  });
  expect(on.status).toBe(200);
  expect(recoveryIn(on)).toHaveLength(10);
  expect(
    (
      await browser.form('/ui/account/totp/disable', {
        ...PASSWORD,
        code: referenceTotp(first, step - 1),
      })
    ).status,
  ).toBe(400); // used
  expect(
    (
      await browser.form('/ui/account/totp/disable', {
        ...PASSWORD,
        code: referenceTotp(first, step),
      })
    ).headers.location,
  ).toBe('/ui/account?changed=totp-off');
  const secret = await enrol(browser);
  expect(secret).not.toBe(first);
  expect(
    (await browser.form('/ui/account/totp/confirm', { code: referenceTotp(secret, step) })).status,
  ).toBe(200);

  const stored = await stack.mongo.db
    .collection('totp_factors')
    .findOne({ _id: `owner:${account.id}` as never });
  expect(stored).toMatchObject({ enabled: true, lastStep: step });
  expect(JSON.stringify(stored)).not.toContain(secret);

  // The password alone no longer signs in: it asks the code, with no session yet.
  const other = new Browser(stack, '203.0.113.6');
  const asked = await other.logIn(account.email, 'password-123');
  expect(asked.status).toBe(200);
  expect(other.cookie).not.toContain('__Host-apkrelay_session');
  const pending = pendingIn(asked);
  const code = async (value: string) =>
    other.post('/ui/login/totp', { pending, code: value, _csrf: await other.csrf('/ui/login') });
  expect(
    (await code('123456' === referenceTotp(secret, step + 1) ? '654321' : '123456')).status,
  ).toBe(401);
  expect((await code(referenceTotp(secret, step))).status).toBe(401); // used by the confirmation
  const signedIn = await code(referenceTotp(secret, step + 1));
  expect(signedIn.headers.location).toBe('/ui/apps');
  expect((await other.get('/ui/apps')).status).toBe(200);

  // The same code again, for a new login: refused (replay).
  const third = new Browser(stack, '203.0.113.7');
  const asked3 = await third.logIn(account.email, 'password-123');
  const replay = await third.post('/ui/login/totp', {
    pending: pendingIn(asked3),
    code: referenceTotp(secret, step + 1),
    _csrf: await third.csrf('/ui/login'),
  });
  expect(replay.status).toBe(401);
  expect(third.cookie).not.toContain('__Host-apkrelay_session');
  // Must-hold 5: the seeds and the pending-login tokens are never logged (debug level included).
  expect(logged.length).toBeGreaterThan(10);
  for (const value of [first, secret, pending, pendingIn(asked3)]) {
    expect(logged.filter((l) => l.includes(value))).toEqual([]);
  }

  const audit = await request(`${stack.urls.admin}/api/v2/audit?limit=50`, {
    headers: { authorization: `Bearer ${account.apiKey}` },
    ca: stack.ca,
  });
  const entries = audit
    .json<{ entries: AuditEntry[] }>()
    .entries.filter((e) => e.action.startsWith('member.totp'));
  const actor = { kind: 'session', id: account.id, name: account.email };
  expect(entries.map((e) => [e.action, e.actor, e.address])).toEqual([
    ['member.totp-enabled', actor, '203.0.113.5'],
    ['member.totp-disabled', actor, '203.0.113.5'],
    ['member.totp-enabled', actor, '203.0.113.5'],
  ]);
});

test('wrong codes count against the login throttle', async () => {
  const { account, secret, step } = await enrolled('203.0.113.20');

  const guesser = new Browser(stack, '203.0.113.21');
  const pending = pendingIn(await guesser.logIn(account.email, 'password-123'));
  const csrf = await guesser.csrf('/ui/login');
  const statuses: number[] = [];
  // The password attempt counted once; 5 attempts per email per address per window (login-throttle).
  for (let i = 0; i < 5; i++) {
    statuses.push(
      (
        await guesser.post('/ui/login/totp', {
          pending,
          code: '000000' === referenceTotp(secret, step) ? '999999' : '000000',
          _csrf: csrf,
        })
      ).status,
    );
  }
  expect(statuses).toEqual([401, 401, 401, 401, 429]);
});

/** A user with the factor on, and a code that is wrong at `step` (and the steps beside it). */
async function enrolled(address: string) {
  const account = await newAccount(stack);
  const browser = new Browser(stack, address);
  expect((await browser.logIn(account.email, 'password-123')).status).toBe(303);
  const step = await awayFromStepEnd();
  const secret = await enrol(browser);
  const confirmed = await browser.form('/ui/account/totp/confirm', {
    code: referenceTotp(secret, step),
  });
  expect(confirmed.status).toBe(200);
  const recovery = recoveryIn(confirmed);
  const near = [step - 1, step, step + 1, step + 2].map((s) => referenceTotp(secret, s));
  const wrong = ['000000', '111111', '222222', '333333', '444444', '555555'].find(
    (c) => !near.includes(c),
  )!;
  return { account, browser, secret, step, wrong, recovery };
}

/** Sends `code` for `pending` from a fresh client address. */
async function codeFrom(address: string, pending: string, code: string): Promise<Reply> {
  const client = new Browser(stack, address);
  return client.post('/ui/login/totp', { pending, code, _csrf: await client.csrf('/ui/login') });
}

test('issue 31.3: a pending login is burnt after 5 wrong codes, from whatever addresses', async () => {
  const { account, secret, step, wrong } = await enrolled('203.0.113.30');
  const pending = pendingIn(
    await new Browser(stack, '203.0.113.31').logIn(account.email, 'password-123'),
  );
  const replies: Reply[] = [];
  for (let i = 0; i < 5; i++) replies.push(await codeFrom(`198.51.100.${40 + i}`, pending, wrong));
  expect(replies.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
  expect(replies[4]!.text).toContain('Too many wrong codes; log in again.');
  expect(pendingIn(replies[4]!)).toBe('');
  // The right code, from yet another address: the token is gone.
  const late = await codeFrom('198.51.100.50', pending, referenceTotp(secret, step + 1));
  expect(late.status).toBe(401);
  expect(late.text).toContain('This login has expired; log in again.');
});

test('issue 31.3: wrong codes count per user whatever the address: 10 per 15 minutes', async () => {
  const { account, secret, step, wrong } = await enrolled('203.0.113.32');
  // Two pending logins, each from its own address, each given 5 wrong codes from 5 addresses.
  for (const [n, from] of [
    ['33', 60],
    ['34', 70],
  ] as const) {
    const pending = pendingIn(
      await new Browser(stack, `203.0.113.${n}`).logIn(account.email, 'password-123'),
    );
    for (let i = 0; i < 5; i++) await codeFrom(`198.51.100.${from + i}`, pending, wrong);
  }
  // A third login from a new address: even the right code is refused now, without being checked.
  const pending = pendingIn(
    await new Browser(stack, '203.0.113.35').logIn(account.email, 'password-123'),
  );
  const refused = await codeFrom('198.51.100.80', pending, referenceTotp(secret, step + 1));
  expect(refused.status).toBe(429);
  expect(refused.headers['retry-after']).toMatch(/^\d+$/);
  expect(refused.text).toContain('Too many failed attempts');
});

test('issue 31.9: sign out everywhere and a password change delete the pending logins', async () => {
  const { account, browser, secret, step } = await enrolled('203.0.113.36');
  const login = async (address: string) =>
    pendingIn(await new Browser(stack, address).logIn(account.email, 'password-123'));
  const first = await login('203.0.113.37');
  expect(first).not.toBe('');
  expect((await browser.form('/ui/account/sign-out-everywhere')).status).toBe(303);
  const afterSignOut = await codeFrom('198.51.100.90', first, referenceTotp(secret, step + 1));
  expect(afterSignOut.status).toBe(401);
  expect(afterSignOut.text).toContain('This login has expired; log in again.');

  // Signed in again (with a code), a pending login elsewhere, then the password changes.
  const again = new Browser(stack, '203.0.113.38');
  const asked = await again.logIn(account.email, 'password-123');
  const code = referenceTotp(secret, step + 1);
  const csrf = await again.csrf('/ui/login');
  const back = await again.post('/ui/login/totp', { pending: pendingIn(asked), code, _csrf: csrf });
  expect(back.headers.location).toBe('/ui/apps');
  const second = await login('203.0.113.39');
  expect(second).not.toBe('');
  const fields = { current: 'password-123', password: 'password-456', confirm: 'password-456' };
  expect((await again.form('/ui/account/password', fields)).status).toBe(303);
  const afterChange = await codeFrom('198.51.100.92', second, referenceTotp(secret, step + 1));
  expect(afterChange.text).toContain('This login has expired; log in again.');
});

test('issue 31.4: turning the factor on or off needs the current password', async () => {
  const account = await newAccount(stack);
  const browser = new Browser(stack, '203.0.113.40');
  expect((await browser.logIn(account.email, 'password-123')).status).toBe(303);
  for (const fields of [{}, { password: 'not-the-password' }] as Record<string, string>[]) {
    const refused = await browser.form('/ui/account/totp', fields);
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('The password is wrong.');
    expect(secretIn(refused)).toBe('');
  }
  const factor = () =>
    stack.mongo.db.collection('totp_factors').findOne({ _id: `owner:${account.id}` as never });
  expect(await factor()).toBeNull();

  const step = await awayFromStepEnd();
  const secret = await enrol(browser);
  expect(
    (await browser.form('/ui/account/totp/confirm', { code: referenceTotp(secret, step) })).status,
  ).toBe(200);
  const off = await browser.form('/ui/account/totp/disable', {
    password: 'not-the-password',
    code: referenceTotp(secret, step + 1),
  });
  expect(off.status).toBe(401);
  expect(await factor()).toMatchObject({ enabled: true, lastStep: step });
});

test('issue 31.4: recovery codes are shown once, stored hashed, and each signs in once', async () => {
  const { account, recovery } = await enrolled('203.0.113.41');
  expect(recovery).toHaveLength(10);
  expect(new Set(recovery).size).toBe(10);
  const stored = await stack.mongo.db
    .collection('totp_factors')
    .findOne({ _id: `owner:${account.id}` as never });
  const text = JSON.stringify(stored);
  for (const code of recovery) expect(text).not.toContain(code);
  expect(stored?.recoveryHashes).toHaveLength(10);
  // The account page never shows them again.
  const page = await new Browser(stack, '203.0.113.41').get('/ui/account');
  for (const code of recovery) expect(page.text).not.toContain(code);

  const login = async (address: string, code: string) => {
    const asked = await new Browser(stack, address).logIn(account.email, 'password-123');
    return codeFrom(address, pendingIn(asked), code);
  };
  const used = await login('203.0.113.42', recovery[3]!);
  expect(used.headers.location).toBe('/ui/apps');
  const again = await login('203.0.113.43', recovery[3]!);
  expect(again.status).toBe(401);
  expect((await login('203.0.113.44', recovery[4]!)).headers.location).toBe('/ui/apps');
  const after = await stack.mongo.db
    .collection('totp_factors')
    .findOne({ _id: `owner:${account.id}` as never });
  expect(after?.recoveryHashes).toHaveLength(8);
  const entries = await stack.mongo.db
    .collection('audit_log')
    .find({ accountId: account.id, action: 'member.totp-recovery-used' })
    .sort({ at: 1, _id: 1 })
    .toArray();
  expect(entries.map((e) => e.address as unknown)).toEqual(['203.0.113.42', '203.0.113.44']);
});
