/**
 * `POST /exception` as PushLink device libraries send it: the exact verdict texts, the 24 h
 * sliding-window limit on an injected clock, de-duplication of resent reports, grouping, and a
 * large screenshot stored and served back intact.
 */
import { installationId } from '../../../shared/devices/installations';
import { randomBytes } from 'node:crypto';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request, type Reply } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import {
  drained,
  encodeForm,
  eventually,
  postForm,
  seedApp,
  stackTrace,
  type FormReport,
} from './fixtures';

const T0 = Date.parse('2026-03-01T08:00:00.000Z');
const HOUR = 3600_000;
const DAY = 24 * HOUR;
let clockMs = T0;
let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ now: () => new Date(clockMs) });
});
afterAll(() => stack.close());

const SENT = 'Exception sent.';
const limitText = (name: string) =>
  `Exception sent but rejected: The application ${name} has exceeded the 24H sending limit.`;

function send(report: FormReport): Promise<Reply> {
  return postForm(stack.urls.admin, stack.ca, encodeForm(report));
}

function expectText(reply: Reply, text: string): void {
  expect({ status: reply.status, text: reply.text }).toEqual({ status: 200, text });
  expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
}

const reports = (accountId: string) =>
  stack.mongo.db.collection('exceptions').countDocuments({ accountId });

async function freeAccountWithApp(label: string | null = 'Crash Test App') {
  const account = await newAccount(stack); // free plan: 5 installations → 10 per 24 h
  const app = await seedApp(stack, account.id, { label });
  await registerDevices({ baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, ...app }, [
    'device-1',
    'device-2',
  ]);
  const base = (i: number, device = 'device-1'): FormReport => ({
    package: app.package,
    api_key: account.apiKey,
    hash: app.md5,
    deviceId: device,
    st: stackTrace(`distinct ${i}`),
    lc: [`log line of report ${i}`],
  });
  return { account, app, base };
}

test('free plan: of 15 distinct reports exactly the first 10 are sent, the next 5 get the limit text with the app name', async () => {
  clockMs = T0;
  const { account, base } = await freeAccountWithApp('Crash Test App');
  const replies: Reply[] = [];
  for (let i = 0; i < 15; i++) {
    clockMs = T0 + i * 1000;
    replies.push(await send(base(i)));
  }
  replies.slice(0, 10).forEach((r) => expectText(r, SENT));
  replies.slice(10).forEach((r) => expectText(r, limitText('Crash Test App')));
  // Budget headers: counting down, then exhausted with the time the oldest slot frees.
  expect(replies.slice(0, 10).map((r) => r.headers['x-exception-remaining'])).toEqual([
    '9',
    '8',
    '7',
    '6',
    '5',
    '4',
    '3',
    '2',
    '1',
    '0',
  ]);
  expect(replies[14]!.headers['x-exception-limit']).toBe('10');
  expect(replies[14]!.headers['x-exception-frees-at']).toBe(new Date(T0 + DAY + 1).toISOString());
  await drained(stack);
  expect(await reports(account.id)).toBe(10);
});

test('an app without a label is named by its package in the limit text', async () => {
  clockMs = T0;
  const { app, base } = await freeAccountWithApp(null);
  for (let i = 0; i < 10; i++) expectText(await send(base(i)), SENT);
  expectText(await send(base(10)), limitText(app.package));
});

test('rolling 24 h: once the oldest admitted report is more than 24 h old, exactly one more is admitted', async () => {
  const { account, base } = await freeAccountWithApp();
  for (let i = 0; i < 10; i++) {
    clockMs = T0 + i * HOUR; // admitted at T0, T0+1h, …, T0+9h
    expectText(await send(base(i)), SENT);
  }
  clockMs = T0 + 20 * HOUR;
  expectText(await send(base(10)), limitText('Crash Test App'));
  clockMs = T0 + DAY; // the oldest is exactly 24 h old: it still counts
  expectText(await send(base(11)), limitText('Crash Test App'));
  clockMs = T0 + DAY + 1; // now more than 24 h old: one slot
  expectText(await send(base(12)), SENT);
  expectText(await send(base(13)), limitText('Crash Test App'));
  clockMs = T0 + DAY + HOUR + 1; // the second oldest leaves too: one more slot
  expectText(await send(base(14)), SENT);
  expectText(await send(base(15)), limitText('Crash Test App'));
  await drained(stack);
  expect(await reports(account.id)).toBe(12);
});

test('each rejection reason has its exact text, and nothing is stored for rejected reports', async () => {
  clockMs = T0;
  const { account, app, base } = await freeAccountWithApp();
  const other = await newAccount(stack);
  await stack.mongo.db.collection('installations').insertOne({
    _id: installationId(account.id, app.package, 'disabled-device'),
    accountId: account.id,
    package: app.package,
    deviceId: 'disabled-device',
    status: 'disabled',
  });
  const target = { baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, ...app };
  expect(await registerDevices(target, ['enabled-device'])).toEqual(['enabled']);
  expectText(
    await send({ ...base(1), api_key: `ak_${'Z'.repeat(32)}` }),
    'Exception sent but rejected: Invalid API Key. Probably caused by the wrong configuration.',
  );
  expectText(
    await send({ ...base(1), api_key: other.apiKey }),
    'Exception sent but rejected: Invalid Package. You probably never uploaded this app.',
  );
  expectText(
    await send({ ...base(1), package: 'dev.apkrelay.never.uploaded' }),
    'Exception sent but rejected: Invalid Package. You probably never uploaded this app.',
  );
  const badHash = await send({ ...base(1), hash: 'f'.repeat(32) });
  expectText(
    badHash,
    'Exception sent but rejected: Invalid APK Hash. Probably you are in a development environment. You did not upload this version yet.',
  );
  expect(badHash.headers['x-exception-remaining']).toBe('10');
  expectText(
    await send(base(1, 'disabled-device')),
    'Exception sent but rejected: Installation disabled. This device is beyond the installations of your plan.',
  );
  const missing = await postForm(stack.urls.admin, stack.ca, `api_key=${account.apiKey}`);
  expect(missing.status).toBe(200);
  expect(missing.text).toMatch(/^Exception sent but rejected: Invalid report\. /);
  await drained(stack);
  expect(await reports(account.id)).toBe(0);
  expect(await reports(other.id)).toBe(0);
  // Rejections consumed nothing: the full budget is still there.
  const ok = await send(base(2, 'enabled-device'));
  expectText(ok, SENT);
  expect(ok.headers['x-exception-remaining']).toBe('9');
});

test('a resent identical report is stored once and counted once; same stack with other line numbers is one group', async () => {
  clockMs = T0;
  const { account, app, base } = await freeAccountWithApp();
  const report = {
    ...base(1),
    userInfo: [
      ['user.id', '42'],
      ['$plan', 'gold'],
    ] as Array<[string, string]>,
  };
  const first = await send(report);
  clockMs += 5_000;
  const again = await send(report);
  expectText(first, SENT);
  expectText(again, SENT);
  expect(again.headers['x-exception-remaining']).toBe('9');
  await drained(stack);
  expect(await reports(account.id)).toBe(1);

  const moved = { ...base(1, 'device-2'), st: stackTrace('distinct 1', 99) };
  expectText(await send(moved), SENT);
  await drained(stack);
  expect(await reports(account.id)).toBe(2);
  const groups = await stack.mongo.db
    .collection('exception_groups')
    .find({ accountId: account.id })
    .toArray();
  expect(groups).toHaveLength(1);
  expect(groups[0]).toMatchObject({
    count: 2,
    unhandledCount: 2,
    exceptionClass: 'java.lang.IllegalStateException',
    versions: ['1.7 (7)'],
  });
  expect([...(groups[0]!.devices as string[])].sort()).toEqual(['device-1', 'device-2']);
  const stored = await stack.mongo.db
    .collection('exceptions')
    .findOne({ accountId: account.id, deviceId: 'device-1' });
  expect(stored?.metadata).toEqual([
    { key: 'user.id', value: '42' },
    { key: '$plan', value: 'gold' },
  ]);
  expect(stored?.package).toBe(app.package);
});

test('a 600 KB screenshot (base64, line-wrapped) is accepted and downloads back intact', async () => {
  clockMs = T0;
  const { account, app, base } = await freeAccountWithApp();
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(600 * 1024)]);
  const wrapped = jpeg.toString('base64').replace(/.{76}/g, '$&\n');
  const reply = await send({ ...base(1), screen: wrapped });
  expectText(reply, SENT);
  await eventually(() => reports(account.id), 1);
  const stored = await stack.mongo.db.collection('exceptions').findOne({ accountId: account.id });
  const auth = { authorization: `Bearer ${account.apiKey}` };
  const shown = await request(
    `${stack.urls.admin}/api/v2/apps/${app.package}/exceptions/${String(stored?._id)}`,
    { headers: auth, ca: stack.ca },
  );
  expect(shown.status).toBe(200);
  const link = shown.json<{ screenshot: string }>().screenshot;
  expect(link).toMatch(/\/screenshot$/);
  const image = await request(link, { headers: auth, ca: stack.ca });
  expect(image.status).toBe(200);
  expect(image.headers['content-type']).toBe('image/jpeg');
  expect(image.body.equals(jpeg)).toBe(true);
});
