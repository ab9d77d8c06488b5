/**
 * Groups count exactly under concurrency: FerretDB v1 loses concurrent `$inc`s on one document,
 * so this sends many reports of one issue at once (two worker processes' worth of concurrency)
 * and checks the group's count, split, versions and devices against what was sent.
 */
import { newAccount } from '../../helpers/accounts';
import { deviceIds, registerDevices } from '../../helpers/devices';
import { startStack, type TestStack } from '../../helpers/stack';
import { drained, encodeForm, postForm, seedApp, stackTrace } from './fixtures';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
  await stack.startWorkers(); // a second worker process's worth of consumers
});
afterAll(() => stack.close());

test('120 concurrent reports of one issue (other lines, messages, devices) are counted 120 times in one group', async () => {
  const account = await newAccount(stack, 1000);
  const app = await seedApp(stack, account.id);
  const devices = deviceIds('device-', 9);
  await registerDevices(
    { baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, ...app },
    devices,
  );
  const replies = await Promise.all(
    Array.from({ length: 120 }, (_, i) =>
      postForm(
        stack.urls.admin,
        stack.ca,
        encodeForm({
          package: app.package,
          api_key: account.apiKey,
          hash: app.md5,
          deviceId: devices[i % 9]!,
          st: stackTrace(`message ${i}`, (i % 30) + 1),
          lc: [`log ${i}`],
          handled: i % 3 === 0,
        }),
      ),
    ),
  );
  expect(replies.filter((r) => r.text === 'Exception sent.')).toHaveLength(120);
  await drained(stack);
  const db = stack.mongo.db;
  expect(await db.collection('exceptions').countDocuments({ accountId: account.id })).toBe(120);
  const groups = await db.collection('exception_groups').find({ accountId: account.id }).toArray();
  expect(groups).toHaveLength(1);
  expect(groups[0]).toMatchObject({ count: 120, handledCount: 40, unhandledCount: 80 });
  expect([...(groups[0]!.devices as string[])].sort()).toEqual(
    Array.from({ length: 9 }, (_, i) => `device-${i}`).sort(),
  );
  expect(groups[0]!.versions).toEqual(['1.7 (7)']);
}, 120_000);
