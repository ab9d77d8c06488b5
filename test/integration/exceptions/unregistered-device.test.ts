/**
 * Reports are taken only from registered installations (issue 24, finding 8): a report from a
 * device id that never registered, for a real app and a known APK, is refused on both intake
 * routes, and nothing of it is stored, queued or counted against the app's 24 h limit.
 */
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { drained, encodeForm, postForm, seedApp, stackTrace } from './fixtures';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

/** The texts and code documented in docs/exceptions.md, written out here by hand. */
const UNREGISTERED_TEXT =
  'Exception sent but rejected: Installation not registered. This device never registered with the service for this app.';
const UNREGISTERED_CODE = 'EXCEPTION_INSTALLATION_UNKNOWN';

test('a report from a device id that never registered is refused, and nothing is stored or counted', async () => {
  const account = await newAccount(stack); // free plan: 5 installations → 10 reports per 24 h
  const app = await seedApp(stack, account.id);
  const db = stack.mongo.db;

  const json = await request(`${stack.urls.web}/api/v2/exceptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.apiKey}` },
    json: { package: app.package, hash: app.md5, deviceId: 'stranger', stack: stackTrace('j') },
    ca: stack.ca,
  });
  expect(json.status).toBe(403);
  expect(json.json()).toEqual({
    status: 'LOST',
    reason: UNREGISTERED_CODE,
    message: UNREGISTERED_TEXT,
    budget: { limit: 10, remaining: 10, freesAt: null },
  });

  const form = await postForm(
    stack.urls.push,
    stack.ca,
    encodeForm({
      package: app.package,
      api_key: account.apiKey,
      hash: app.md5,
      deviceId: 'stranger',
      st: stackTrace('f'),
    }),
  );
  expect({ status: form.status, text: form.text }).toEqual({
    status: 200,
    text: UNREGISTERED_TEXT,
  });
  expect(form.headers['x-exception-remaining']).toBe('10');

  // Neither report took a slot: the first registered device's report leaves 9 of 10.
  await registerDevices(
    { baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, package: app.package },
    ['known'],
  );
  const taken = await request(`${stack.urls.web}/api/v2/exceptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.apiKey}` },
    json: { package: app.package, hash: app.md5, deviceId: 'known', stack: stackTrace('k') },
    ca: stack.ca,
  });
  expect(taken.status).toBe(202);
  expect(taken.json()).toMatchObject({ status: 'REGISTERED', budget: { remaining: 9 } });
  await drained(stack);
  const stored = await db
    .collection('exceptions')
    .find({ accountId: account.id })
    .project({ deviceId: 1, _id: 0 })
    .toArray();
  expect(stored).toEqual([{ deviceId: 'known' }]);
  expect(await db.collection('exception_groups').countDocuments({ accountId: account.id })).toBe(1);
  // No installation was created for the stranger by its reports.
  expect(await db.collection('installations').countDocuments({ accountId: account.id })).toBe(1);
});
