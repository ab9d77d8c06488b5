/**
 * Issue 24, finding 8 (e): a screenshot is a JPEG or it is not kept. A report whose `screen` does
 * not start with the JPEG magic (FF D8 FF) is still accepted (the crash is worth more than its
 * picture, and the device library gets the spec's "Exception sent.") but stored without a
 * screenshot; a JPEG one is served back as `image/jpeg` with `X-Content-Type-Options: nosniff`.
 */
import { randomBytes } from 'node:crypto';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { encodeForm, eventually, postForm, seedApp, stackTrace } from './fixtures';

jest.setTimeout(60_000);
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

async function sendWithScreen(screen: Buffer) {
  const account = await newAccount(stack);
  const app = await seedApp(stack, account.id);
  await registerDevices({ baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, ...app }, [
    'device-1',
  ]);
  const reply = await postForm(
    stack.urls.admin,
    stack.ca,
    encodeForm({
      package: app.package,
      api_key: account.apiKey,
      hash: app.md5,
      deviceId: 'device-1',
      st: stackTrace('screenshot check'),
      screen: screen.toString('base64'),
    }),
  );
  expect({ status: reply.status, text: reply.text }).toEqual({
    status: 200,
    text: 'Exception sent.',
  });
  const reports = stack.mongo.db.collection('exceptions');
  expect(await eventually(() => reports.countDocuments({ accountId: account.id }), 1)).toBe(1);
  const stored = await reports.findOne({ accountId: account.id });
  return { account, app, stored: stored! };
}

test('a screenshot that is not a JPEG is dropped, the report kept', async () => {
  const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
  const { stored } = await sendWithScreen(html);
  expect(stored.screenshotId).toBeNull();
  expect(stored.screenshotBytes).toBe(0);
});

test('a JPEG screenshot is kept and served with nosniff', async () => {
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xdb]), randomBytes(2048)]);
  const { account, app, stored } = await sendWithScreen(jpeg);
  expect(stored.screenshotId).not.toBeNull();
  const image = await request(
    `${stack.urls.admin}/api/v2/apps/${app.package}/exceptions/${String(stored._id)}/screenshot`,
    { headers: { authorization: `Bearer ${account.apiKey}` }, ca: stack.ca },
  );
  expect(image.status).toBe(200);
  expect(image.headers['content-type']).toBe('image/jpeg');
  expect(image.headers['x-content-type-options']).toBe('nosniff');
  expect(image.body.equals(jpeg)).toBe(true);
});
