/**
 * SIGNUP=closed: public sign-up answers 403 SIGNUP_CLOSED through the JSON API and a page naming
 * `apkrelay account create` through the web; the login page offers no sign-up link. The BUILT CLI
 * (`node dist/ops/cli/main.js`, built by `pretest`), which writes to the database directly, still
 * creates an account, and its key works over HTTPS on the closed stack.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { request, type Reply } from '../helpers/http';
import { stackEnv } from '../helpers/processes';
import { startStack, type TestStack } from '../helpers/stack';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'dist/ops/cli/main.js');
jest.setTimeout(120_000);

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ workers: false, signups: { open: false } });
});
afterAll(() => stack.close());

const code = (r: Reply) => r.json<{ error: { code: string } }>().error.code;
const accounts = () => stack.mongo.db.collection('accounts').countDocuments();

test('API: 403 SIGNUP_CLOSED, nothing created', async () => {
  const reply = await request(`${stack.urls.admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'closed-api@example.com', password: 'password-123' },
    ca: stack.ca,
  });
  expect([reply.status, code(reply)]).toEqual([403, 'SIGNUP_CLOSED']);
  expect(await accounts()).toBe(0);
});

test('web: the sign-up page and form answer 403 with the closed page; login offers no sign-up', async () => {
  const login = await request(`${stack.urls.admin}/ui/login`, { ca: stack.ca });
  expect(login.status).toBe(200);
  expect(login.text).not.toContain('/ui/signup');
  const raw = login.headers['set-cookie'];
  const cookie = (Array.isArray(raw) ? raw[0] : raw)?.split(';')[0] ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(login.text)?.[1] ?? '';

  const page = await request(`${stack.urls.admin}/ui/signup`, { ca: stack.ca });
  const posted = await request(`${stack.urls.admin}/ui/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({
      email: 'closed-web@example.com',
      password: 'password-123',
      _csrf: csrf,
    }).toString(),
    ca: stack.ca,
  });
  for (const reply of [page, posted]) {
    expect(reply.status).toBe(403);
    expect(reply.headers['content-type']).toMatch(/^text\/html/);
    expect(reply.text).toContain('Sign-up is closed');
    expect(reply.text).toContain('<code>apkrelay account create</code>');
    expect(reply.text).not.toContain('href="/ui/signup"');
  }
  expect(await accounts()).toBe(0);
});

test('the CLI still creates an account; its key works over HTTPS', async () => {
  const { stdout } = await run(
    process.execPath,
    [
      cli,
      'account',
      'create',
      '--email',
      'closed-cli@example.com',
      '--password',
      'password-123',
      '--json',
    ],
    { cwd: root, env: stackEnv(stack, { SIGNUP: 'closed' }) },
  );
  const created = JSON.parse(stdout.trim()) as { apiKey: string };
  const me = await request(`${stack.urls.admin}/api/v2/account`, {
    headers: { authorization: `Bearer ${created.apiKey}` },
    ca: stack.ca,
  });
  expect(me.status).toBe(200);
  expect(me.json()).toMatchObject({ email: 'closed-cli@example.com' });
});
