/**
 * Issue 31, rollouts: the app id rollout buckets are computed from, and "who is in at p %", in the
 * JSON API and the Rollouts tab, on the real stack. Expected buckets follow docs/rollouts.md's
 * formula, written out here with node:crypto (not the product's bucket.ts).
 */
import { createHash } from 'node:crypto';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { signIn } from '../../resilience/access/world';

jest.setTimeout(180_000);
const SAMPLE = 'dev.apkrelay.sample';
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

/** docs/rollouts.md: first 4 bytes of SHA-256("<appId>:<deviceId>"), big-endian, mod 10,000. */
const bucket = (appId: string, deviceId: string) =>
  createHash('sha256').update(`${appId}:${deviceId}`).digest().readUInt32BE(0) % 10_000;

test('the JSON preview names the app id and each installation with its bucket', async () => {
  const a = await newAccount(stack);
  await uploadFixture(stack, a.apiKey, 'version-1.apk');
  const devices = ['p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6'];
  await registerDevices(
    { baseUrl: stack.urls.web, ca: stack.ca, apiKey: a.apiKey, package: SAMPLE },
    devices,
  );
  const app = await stack.mongo.db.collection('apps').findOne({ accountId: a.id, package: SAMPLE });
  const appId = app!._id.toHexString();
  const get = (query: string) =>
    request(`${stack.urls.admin}/api/v2/apps/${SAMPLE}/rollout/preview${query}`, {
      headers: { authorization: `Bearer ${a.apiKey}` },
      ca: stack.ca,
    });
  const reply = await get('?percent=50');
  expect(reply.status).toBe(200);
  const body = reply.json<{
    appId: string;
    threshold: number;
    installations: number;
    included: number;
    devices: Array<{ deviceId: string; bucket: number; included: boolean }>;
  }>();
  const expected = devices
    .map((deviceId) => ({ deviceId, bucket: bucket(appId, deviceId) }))
    .map((d) => ({ ...d, included: d.bucket < 5000 }))
    .sort((x, y) => x.bucket - y.bucket);
  expect(body).toMatchObject({ appId, threshold: 5000, installations: 6, devices: expected });
  expect(body.included).toBe(expected.filter((d) => d.included).length);
  for (const bad of ['', '?percent=101', '?percent=abc', '?percent=0.001']) {
    const refused = await get(bad);
    expect({
      bad,
      status: refused.status,
      code: refused.json<{ error: { code: string } }>().error.code,
    }).toEqual({
      bad,
      status: 400,
      code: 'VALIDATION_FAILED',
    });
  }

  // The Rollouts tab: the app id always, the preview when asked.
  const session = await signIn(stack, a.email);
  const tab = await request(`${stack.urls.admin}/ui/apps/${SAMPLE}/rollouts?preview=50`, {
    headers: { cookie: session.cookie },
    ca: stack.ca,
  });
  expect(tab.status).toBe(200);
  expect(tab.text).toContain(`<code id="rollout-app-id">${appId}</code>`);
  expect(tab.text).toMatch(new RegExp(`At 50 %: ${body.included} of\\s+6 installations.`));
  for (const d of expected) {
    expect(tab.text).toMatch(
      new RegExp(
        `<td>${d.deviceId}</td>\\s*<td>${d.bucket}</td>\\s*<td>${d.included ? 'yes' : 'no'}</td>`,
      ),
    );
  }
});
