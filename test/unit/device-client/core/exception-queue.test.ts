/**
 * Spec section 3 "Client-side exception delivery status": REGISTERED, QUEUED, LOST exactly as
 * the log shows them; the persistent bounded queue; identical reports sent once; backoff.
 */
import { Harness, json, settle } from '../../../helpers/device-client-fakes';

const statuses = (h: Harness) => h.of('exception').map((e) => e.status);
const posts = (h: Harness) => h.requests.filter((r) => r.url.endsWith('/api/v2/exceptions'));
const logged = (h: Harness, word: string) =>
  h.logs.filter((l) => new RegExp(`: ${word}\\b`).test(l));

test('REGISTERED: sent with the stack, label, metadata and extra; logged as REGISTERED', async () => {
  const h = new Harness();
  h.client.addMetadata('store', '42');
  h.client.addExceptionMetadata('shift', 'night');
  await h.online();
  h.client.sendAsyncException(new TypeError('boom'), { screen: 'checkout' });
  await settle();
  expect(statuses(h)).toEqual(['REGISTERED']);
  expect(logged(h, 'REGISTERED')).toHaveLength(1);
  const body = JSON.parse(posts(h)[0]!.body!) as Record<string, unknown>;
  expect(body).toMatchObject({
    package: 'dev.apkrelay.sample',
    deviceId: 'device-1',
    hash: 'a'.repeat(32),
    handled: true,
    metadata: [
      { key: 'store', value: '42' },
      { key: 'shift', value: 'night' },
    ],
    extra: [{ key: 'screen', value: 'checkout' }],
  });
  expect((body.stack as string[])[0]).toBe('TypeError: boom');
  expect(posts(h)[0]!.headers!.authorization).toBe(`Bearer ${'k'.repeat(32)}`);
  // addMetadata goes to installations (registration); addExceptionMetadata does not.
  const reg = JSON.parse(h.requests.find((r) => r.url.endsWith('/installations'))!.body!) as {
    metadata: unknown;
  };
  expect(reg.metadata).toEqual([{ key: 'store', value: '42' }]);
});

test('QUEUED on network failure, retried with capped exponential backoff, then REGISTERED', async () => {
  const h = new Harness({ exceptionBackoff: { initialMs: 1_000, maxMs: 8_000, jitter: 0 } });
  await h.online();
  h.offline = true;
  h.client.sendAsyncException(new Error('offline 1'));
  await settle();
  expect(statuses(h)).toEqual(['QUEUED']);
  expect(logged(h, 'QUEUED')).toHaveLength(1);
  // Delays 1, 2, 4, 8, 8 s: doubled, then capped.
  const delays: number[] = [];
  for (let i = 0; i < 5; i++) {
    const before = posts(h).length;
    const d = Math.min(...h.clock.pending().filter((x) => x <= 8_000));
    delays.push(d);
    await h.clock.advance(d);
    expect(posts(h).length).toBe(before + 1);
  }
  expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 8_000]);
  expect(statuses(h)).toEqual(['QUEUED']); // QUEUED once per report, not per attempt
  h.offline = false;
  await h.clock.advance(8_000);
  expect(statuses(h)).toEqual(['QUEUED', 'REGISTERED']);
  expect(await h.client.flush(10)).toBe(true);
});

test('LOST: a rejection is dropped and logged with the server reason', async () => {
  const h = new Harness();
  h.exceptions = () =>
    json(401, {
      status: 'LOST',
      reason: 'EXCEPTION_API_KEY_INVALID',
      message: 'Invalid API Key (wrong configuration)',
      budget: null,
    });
  await h.online();
  h.client.sendAsyncException(new Error('x'));
  await settle();
  expect(h.of('exception')).toEqual([
    expect.objectContaining({ status: 'LOST', reason: 'EXCEPTION_API_KEY_INVALID' }),
  ]);
  expect(logged(h, 'LOST')[0]).toContain('Invalid API Key (wrong configuration)');
  await h.clock.advance(3_600_000);
  expect(posts(h)).toHaveLength(1); // never retried
});

test('503 with Retry-After: QUEUED, the failed report stays in front, retried after Retry-After', async () => {
  const h = new Harness({ exceptionBackoff: { initialMs: 1_000, maxMs: 60_000, jitter: 0 } });
  let down = true;
  h.exceptions = (req) =>
    down
      ? { status: 503, headers: { 'retry-after': '20' }, text: 'unavailable' }
      : json(202, { status: 'REGISTERED', reason: null, message: req.body!, budget: null });
  await h.online();
  h.client.sendAsyncException(new Error('first'));
  h.client.sendAsyncException(new Error('second'));
  await settle();
  expect(statuses(h)).toEqual(['QUEUED', 'QUEUED']);
  await h.clock.advance(19_999);
  expect(posts(h)).toHaveLength(1);
  down = false;
  await h.clock.advance(1);
  const order = posts(h).map((r) => (JSON.parse(r.body!) as { stack: string[] }).stack[0]);
  expect(order).toEqual(['Error: first', 'Error: first', 'Error: second']);
  expect(statuses(h)).toEqual(['QUEUED', 'QUEUED', 'REGISTERED', 'REGISTERED']);
});

test('identical exceptions are not sent twice', async () => {
  const h = new Harness();
  await h.online();
  const make = () => {
    const e = new Error('same');
    e.stack = 'Error: same\n    at f (app.js:1:1)';
    return e;
  };
  h.client.sendAsyncException(make());
  h.client.sendAsyncException(make());
  await settle();
  h.client.sendAsyncException(make());
  await settle();
  expect(posts(h)).toHaveLength(1);
  expect(h.logs.filter((l) => l.includes('not sent twice'))).toHaveLength(2);
});

test('bounded queue (default 50): the oldest is dropped with a log line', async () => {
  const h = new Harness();
  h.offline = true;
  await h.online();
  for (let i = 0; i < 52; i++) h.client.sendAsyncException(new Error(`e${i}`));
  await settle();
  expect(
    h.logs.filter((l) => l.includes('exception queue full (50): dropped the oldest')),
  ).toHaveLength(2);
  const saved = JSON.parse(h.storage.records.get('exceptions-queue')!) as unknown[];
  expect(saved).toHaveLength(50);
  h.client.setMaxExceptionQueueSize(10);
  await settle();
  expect(JSON.parse(h.storage.records.get('exceptions-queue')!)).toHaveLength(10);
  expect(() => h.client.setMaxExceptionQueueSize(0)).toThrow(/at least 1/);
});

test('persistent: queued reports survive a restart and are delivered once, in order', async () => {
  const h = new Harness();
  h.offline = true;
  await h.online();
  for (let i = 0; i < 5; i++) h.client.sendAsyncException(new Error(`e${i}`));
  await settle();
  const closing = h.client.close(1_000);
  await h.clock.advance(1_000);
  expect(await closing).toBe(false); // could not flush: server unreachable
  const after = new Harness({}, h.storage);
  await after.online();
  await settle();
  expect(statuses(after)).toEqual(Array(5).fill('REGISTERED'));
  expect(posts(after).map((r) => (JSON.parse(r.body!) as { stack: string[] }).stack[0])).toEqual(
    [0, 1, 2, 3, 4].map((i) => `Error: e${i}`),
  );
  expect(JSON.parse(after.storage.records.get('exceptions-queue')!)).toEqual([]);
});

test('budget hint: none remaining → the rest is held (QUEUED) until a slot frees', async () => {
  const h = new Harness();
  const freesAt = new Date(h.clock.now() + 60_000).toISOString();
  let n = 0;
  h.exceptions = () =>
    json(202, {
      status: 'REGISTERED',
      reason: null,
      message: 'ok',
      budget: { limit: 10, remaining: n++ === 0 ? 0 : 5, freesAt: n === 1 ? freesAt : null },
    });
  await h.online();
  h.client.sendAsyncException(new Error('a'));
  h.client.sendAsyncException(new Error('b'));
  await settle();
  expect(statuses(h)).toEqual(['REGISTERED', 'QUEUED']);
  await h.clock.advance(59_999);
  expect(posts(h)).toHaveLength(1);
  await h.clock.advance(1);
  expect(statuses(h)).toEqual(['REGISTERED', 'QUEUED', 'REGISTERED']);
});

test('flush(timeout) answers false while reports wait, true once delivered', async () => {
  const h = new Harness({ exceptionBackoff: { initialMs: 5_000, maxMs: 5_000, jitter: 0 } });
  h.offline = true;
  await h.online();
  h.client.sendAsyncException(new Error('later'));
  await settle();
  const flushed = h.client.flush(2_000);
  await h.clock.advance(2_000);
  await expect(flushed).resolves.toBe(false);
  h.offline = false;
  const second = h.client.flush(10_000);
  await h.clock.advance(5_000);
  await expect(second).resolves.toBe(true);
});

test('exceptions sent before start are kept and sent after it', async () => {
  const h = new Harness();
  h.client.sendAsyncException(new Error('early'));
  await h.online();
  expect(statuses(h)).toEqual(['REGISTERED']);
  expect(JSON.parse(posts(h)[0]!.body!)).toMatchObject({
    deviceId: 'device-1',
    package: 'dev.apkrelay.sample',
  });
});

test('after a restart, reports repeating saved or sent ones are not sent twice', async () => {
  const h = new Harness();
  h.offline = true;
  await h.online();
  const same = (i: number) => {
    const e = new Error(`e${i}`);
    e.stack = `Error: e${i}\n    at crash (app.js:${i}:1)`;
    return e;
  };
  for (let i = 0; i < 3; i++) h.client.sendAsyncException(same(i));
  await settle();
  const closing = h.client.close(0);
  await h.clock.advance(0);
  await closing;
  const after = new Harness({}, h.storage);
  after.start();
  // The same errors happen again right after start, before the saved queue is read.
  for (let i = 0; i < 4; i++) after.client.sendAsyncException(same(i));
  await settle();
  expect(statuses(after)).toEqual(Array(4).fill('REGISTERED'));
  expect(posts(after).map((r) => (JSON.parse(r.body!) as { stack: string[] }).stack[0])).toEqual([
    'Error: e0',
    'Error: e1',
    'Error: e2',
    'Error: e3',
  ]);
  expect(after.logs).toContain('info: 3 identical exception(s) not sent twice');
});

test('LOST beyond the plan: the limit reason is logged and the report dropped', async () => {
  const h = new Harness();
  h.exceptions = () =>
    json(429, {
      status: 'LOST',
      reason: 'EXCEPTION_LIMIT_REACHED',
      message: 'Sample has exceeded the 24H sending limit',
      budget: { limit: 10, remaining: 0, freesAt: null },
    });
  await h.online();
  h.client.sendAsyncException(new Error('over'));
  await settle();
  // 429 with a LOST verdict is a rejection, not a retry.
  expect(h.of('exception')).toEqual([
    expect.objectContaining({ status: 'LOST', reason: 'EXCEPTION_LIMIT_REACHED' }),
  ]);
  expect(logged(h, 'LOST')[0]).toContain('exceeded the 24H sending limit');
});

test('automatic capture: an uncaught error is written to the queue at once (unhandled); disable stops it', async () => {
  const h = new Harness();
  h.offline = true;
  await h.online();
  expect(h.capture).toBeDefined(); // enabled by default
  h.capture!(new RangeError('fatal'));
  // Synchronously persisted: the process may die right after.
  const saved = JSON.parse(h.storage.records.get('exceptions-queue')!) as Array<{
    body: { handled: boolean; stack: string[] };
  }>;
  expect(saved.map((i) => [i.body.handled, i.body.stack[0]])).toEqual([
    [false, 'RangeError: fatal'],
  ]);
  h.client.disableExceptionNotification();
  expect(h.capture).toBeUndefined();
  h.client.enableExceptionNotification();
  expect(h.capture).toBeDefined();
});

test('nothing is sent before registration is answered: QUEUED while it fails, then REGISTERED', async () => {
  // The service takes reports only from registered installations (docs/exceptions.md).
  const h = new Harness({ reconnectBackoff: { initialMs: 1_000, maxMs: 1_000, jitter: 0 } });
  h.registerReply = () => json(503, { error: { code: 'DEPENDENCY_UNAVAILABLE', message: 'x' } });
  h.client.sendAsyncException(new Error('before start'));
  h.start();
  await settle();
  h.client.sendAsyncException(new Error('after a failed registration'));
  await settle();
  expect(posts(h)).toHaveLength(0);
  expect(statuses(h)).toEqual(['QUEUED', 'QUEUED']);
  expect(h.of('exception').map((e) => e.reason)).toEqual([
    'not registered yet: registration refused: HTTP 503 x',
    'not registered yet: registration refused: HTTP 503 x',
  ]);

  h.registerReply = undefined;
  await h.clock.advance(1_000);
  await settle();
  const registration = h.requests.findLastIndex((r) => r.url.endsWith('/api/v2/installations'));
  const firstPost = h.requests.findIndex((r) => r.url.endsWith('/api/v2/exceptions'));
  expect(firstPost).toBeGreaterThan(registration);
  expect(statuses(h)).toEqual(['QUEUED', 'QUEUED', 'REGISTERED', 'REGISTERED']);
});
