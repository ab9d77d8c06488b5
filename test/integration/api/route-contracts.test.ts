/**
 * The request checks derived from the route contracts (api/route-contract.ts), over real HTTPS:
 * each refusal keeps the status, stable code and message the handlers wrote by hand before
 * (literal below), and the check runs after authentication: a wrong key is told 401 first.
 */
import { newAccount } from '../../helpers/accounts';
import { ownerApi } from '../../helpers/owner-api';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

jest.setTimeout(120_000);
const SAMPLE = 'dev.apkrelay.sample';
let stack: TestStack;
let api: ReturnType<typeof ownerApi>;

beforeAll(async () => {
  stack = await startStack();
  const { apiKey } = await newAccount(stack);
  api = ownerApi(stack, apiKey);
  await uploadFixture(stack, apiKey, 'version-1.apk');
});
afterAll(() => stack.close());

const refusal = (message: string) => ({ error: { code: 'VALIDATION_FAILED', message } });
const apps = `/api/v2/apps/${SAMPLE}`;

test.each([
  [
    'PUT',
    '/api/v2/account/api-key-restriction',
    { deviceOnly: 'yes' },
    'deviceOnly must be true or false',
  ],
  ['PUT', '/api/v2/account/api-key-restriction', undefined, 'deviceOnly must be true or false'],
  ['PUT', `${apps}/installations/dev-1`, { status: 'on' }, 'status must be enabled or disabled'],
  ['PUT', `${apps}/installations/dev-1`, {}, 'status must be enabled or disabled'],
  [
    'POST',
    `${apps}/download-links`,
    { ttlSeconds: 0 },
    'ttlSeconds must be a whole number from 1 to 7776000',
  ],
  [
    'POST',
    `${apps}/download-links`,
    { ttlSeconds: 1.5 },
    'ttlSeconds must be a whole number from 1 to 7776000',
  ],
  ['POST', `${apps}/download-links`, {}, 'ttlSeconds must be a whole number from 1 to 7776000'],
  [
    'POST',
    `${apps}/download-links`,
    { ttlSeconds: 60, maxDownloads: 0 },
    'maxDownloads must be a positive whole number',
  ],
  [
    'GET',
    `${apps}/installations?status=asleep`,
    undefined,
    'status must be enabled, disabled, online or offline',
  ],
  [
    'GET',
    `${apps}/funnel?versionCode=x`,
    undefined,
    'versionCode must be an integer from 0 to 2147483647',
  ],
  [
    'GET',
    `${apps}/funnel?versionCode=1&limit=201`,
    undefined,
    'limit must be an integer from 1 to 200',
  ],
  ['GET', `${apps}/adoption?days=0`, undefined, 'days must be an integer from 1 to 90'],
  ['GET', `${apps}/adoption?days=91`, undefined, 'days must be an integer from 1 to 90'],
  ['GET', `${apps}/adoption?days=1e1`, undefined, 'days must be an integer from 1 to 90'],
])('%s %s %j: 400 "%s"', async (method, path, body, message) => {
  const reply = await api(method, path, body);
  expect(reply.status).toBe(400);
  expect(reply.json()).toEqual(refusal(message));
});

test('values the contracts accept reach the handlers, empty query values meaning the default', async () => {
  const adoption = await api('GET', `${apps}/adoption?days=`);
  expect(adoption.status).toBe(200);
  expect(adoption.json()).toMatchObject({ package: SAMPLE, days: 7 });
  const twoDays = await api('GET', `${apps}/adoption?days=2`);
  expect(twoDays.json()).toMatchObject({ days: 2 });
  const link = await api('POST', `${apps}/download-links`, { ttlSeconds: 60, maxDownloads: null });
  expect(link.status).toBe(201);
  expect(link.json()).toMatchObject({ maxDownloads: null, downloads: 0 });
  const listed = await api('GET', `${apps}/installations?status=&q=`);
  expect(listed.status).toBe(200);
});

test('a wrong key with a wrong body is refused for the key (401), not for the body', async () => {
  const reply = await request(`${stack.urls.admin}/api/v2/account/api-key-restriction`, {
    method: 'PUT',
    json: { deviceOnly: 'yes' },
    headers: { authorization: 'Bearer not-a-key' },
    ca: stack.ca,
  });
  expect(reply.status).toBe(401);
  expect(reply.json<{ error: { code: string } }>().error.code).toBe('UNAUTHENTICATED');
});
