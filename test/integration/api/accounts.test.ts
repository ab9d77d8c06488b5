import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const signUp = (json: unknown) =>
  request(`${stack.urls.admin}/api/v2/accounts`, { method: 'POST', json, ca: stack.ca });

describe('POST /api/v2/accounts over HTTPS', () => {
  test('creates an account on the free plan and returns its API key', async () => {
    const reply = await signUp({ email: 'Owner@Example.com', password: 'correct horse' });
    expect(reply.status).toBe(201);
    const body = reply.json<{ apiKey: string; plan: unknown; email: string }>();
    expect(body.apiKey).toMatch(/^ak_[A-Za-z0-9_-]{32}$/);
    expect(body.plan).toEqual({ installations: 5 });
    expect(body.email).toBe('owner@example.com');

    const me = await request(`${stack.urls.admin}/api/v2/account`, {
      headers: { authorization: `Bearer ${body.apiKey}` },
      ca: stack.ca,
    });
    expect(me.status).toBe(200);
    expect(me.json()).toMatchObject({ email: 'owner@example.com', apiKey: body.apiKey });
  });

  test('a second sign-up with the same email (any case) is refused with a stable code', async () => {
    expect((await signUp({ email: 'dup@example.com', password: 'password-1' })).status).toBe(201);
    const again = await signUp({ email: 'DUP@example.com', password: 'password-2' });
    expect(again.status).toBe(409);
    expect(again.json()).toEqual({
      error: { code: 'ACCOUNT_EMAIL_TAKEN', message: expect.any(String) as string },
    });
    expect(
      await stack.mongo.db.collection('accounts').countDocuments({ email: 'dup@example.com' }),
    ).toBe(1);
  });

  test.each([
    [{ email: 'not-an-email', password: 'long enough' }],
    [{ email: 'short@example.com', password: 'short' }],
    [{ password: 'no email at all' }],
    [[1, 2, 3]],
  ])('invalid input %j is a 400 VALIDATION_FAILED', async (json) => {
    const reply = await signUp(json);
    expect(reply.status).toBe(400);
    expect(reply.json<{ error: { code: string } }>().error.code).toBe('VALIDATION_FAILED');
  });

  test('malformed JSON is a 400, not a 500', async () => {
    const reply = await request(`${stack.urls.admin}/api/v2/accounts`, {
      method: 'POST',
      body: '{"email":',
      headers: { 'content-type': 'application/json' },
      ca: stack.ca,
    });
    expect(reply.status).toBe(400);
    expect(reply.json<{ error: { code: string } }>().error.code).toBe('VALIDATION_FAILED');
  });

  test('the database holds neither the API key nor the password in clear', async () => {
    const { apiKey } = (
      await signUp({ email: 'secret@example.com', password: 'hunter2-hunter2' })
    ).json<{
      apiKey: string;
    }>();
    const doc = await stack.mongo.db
      .collection('accounts')
      .findOne({ email: 'secret@example.com' });
    const dump = JSON.stringify(doc);
    expect(dump).not.toContain(apiKey);
    expect(dump).not.toContain(apiKey.slice(3));
    expect(dump).not.toContain('hunter2-hunter2');
  });
});

describe('API-key authentication', () => {
  test.each([
    ['no header', undefined],
    ['a malformed key', 'Bearer nope'],
    ['a well-formed unknown key', `Bearer ak_${'A'.repeat(32)}`],
    ['another scheme', 'Basic YTpi'],
  ])('%s is a 401 UNAUTHENTICATED', async (_label, authorization) => {
    const reply = await request(`${stack.urls.admin}/api/v2/account`, {
      headers: authorization ? { authorization } : {},
      ca: stack.ca,
    });
    expect(reply.status).toBe(401);
    expect(reply.json<{ error: { code: string } }>().error.code).toBe('UNAUTHENTICATED');
  });
});

describe('health', () => {
  test('/healthz and /readyz answer 200 over HTTPS with workers running', async () => {
    expect((await request(`${stack.urls.admin}/healthz`, { ca: stack.ca })).status).toBe(200);
    const ready = await request(`${stack.urls.admin}/readyz`, { ca: stack.ca });
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ready',
      checks: { redis: true, mongo: true, workers: true },
    });
  });

  test('unknown JSON routes answer a JSON 404', async () => {
    const reply = await request(`${stack.urls.admin}/api/v2/nothing-here`, { ca: stack.ca });
    expect(reply.status).toBe(404);
    expect(reply.json<{ error: { code: string } }>().error.code).toBe('NOT_FOUND');
  });
});
