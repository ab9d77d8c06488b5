/**
 * Issue 24, finding 1: uploads received at once are bounded per client address
 * (UPLOADS_PER_ADDRESS) and in all (UPLOADS_TOTAL). Uploads are held open half-way on raw sockets
 * (client addresses told through X-Forwarded-For, a trusted loopback proxy); the one past a bound
 * is refused at once with a retryable status and Retry-After, the held ones then complete and
 * succeed, and their slots are free again afterwards, also when a client goes away mid-body.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { newAccount } from '../../helpers/accounts';
import { uploadsDone, uploadsReceiving } from '../../helpers/metrics';
import { fileEnd, fileHead, formEnd, formField, requestHead } from '../../helpers/raw-upload';
import { startStack, type TestStack } from '../../helpers/stack';
import { closeAllRaw, openRaw, type RawConnection } from '../../resilience/protocol/raw-http';

jest.setTimeout(120_000);

const METRICS_TOKEN = 'concurrent-uploads-metrics-token';
let stack: TestStack;
let apk: Buffer;
beforeAll(async () => {
  stack = await startStack({
    trustProxy: ['loopback'],
    uploads: { perAddress: 2, total: 3 },
    metricsToken: METRICS_TOKEN,
  });
  apk = await readFile(path.resolve(__dirname, '../../fixtures/apks/version-1.apk'));
});
afterEach(() => closeAllRaw());
afterAll(() => stack.close());

const JSON_PATH = '/api/v2/apps/dev.apkrelay.sample/apks';

interface Held {
  readonly connection: RawConnection;
  /** Sends the rest of the form and returns the reply. */
  finish(): Promise<{ status: number; text: string }>;
}

/**
 * Starts an upload from `address` and stops half-way through its file: the server is then
 * receiving it (its slot taken) until `finish()`.
 */
async function holdUpload(address: string, target = '/apps/api_upload'): Promise<Held> {
  const { apiKey } = await newAccount(stack);
  const json = target === JSON_PATH;
  const before = Buffer.concat([json ? Buffer.alloc(0) : formField('apiKey', apiKey), fileHead()]);
  const after = Buffer.concat([fileEnd, formEnd]);
  const half = Math.floor(apk.length / 2);
  const headers: Record<string, string> = { 'X-Forwarded-For': address };
  if (json) headers.Authorization = `Bearer ${apiKey}`;
  const connection = await openRaw(stack.urls.admin, stack.ca);
  await connection.write(
    Buffer.concat([
      requestHead(target, before.length + apk.length + after.length, headers),
      before,
      apk.subarray(0, half),
    ]),
  );
  return {
    connection,
    async finish() {
      await connection.write(Buffer.concat([apk.subarray(half), after]));
      const reply = await connection.response(60_000);
      await connection.close();
      return { status: reply.status, text: reply.text };
    },
  };
}

/** A whole upload from `address`, answered before its body is read when it is refused. */
async function tryUpload(address: string, target = '/apps/api_upload') {
  const held = await holdUpload(address, target);
  try {
    const reply = await held.connection.response(10_000);
    return reply;
  } finally {
    await held.connection.close();
  }
}

/** Waits until the server has taken the held uploads' slots (once their headers arrived). */
const settle = (held: number) => uploadsReceiving(stack, METRICS_TOKEN, held);

test('one upload past UPLOADS_PER_ADDRESS: 429 with Retry-After; the held ones succeed', async () => {
  const held = [await holdUpload('203.0.113.1'), await holdUpload('203.0.113.1')];
  await settle(2);
  const refused = await tryUpload('203.0.113.1');
  expect(refused.status).toBe(429);
  expect(refused.text).toBe(
    'deploy fails, too many uploads at once from this address; retry later',
  );
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  const json = await tryUpload('203.0.113.1', JSON_PATH);
  expect(json.status).toBe(429);
  expect((JSON.parse(json.text) as { error: { code: string } }).error.code).toBe(
    'UPLOADS_PER_ADDRESS_BUSY',
  );
  expect(Number(json.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  const replies = await Promise.all(held.map((h) => h.finish()));
  expect(replies).toEqual(replies.map(() => ({ status: 200, text: 'deploy successful' })));
  // The slots are free again.
  const again = await holdUpload('203.0.113.1');
  expect(await again.finish()).toEqual({ status: 200, text: 'deploy successful' });
});

test('one upload past UPLOADS_TOTAL: 503 with Retry-After; the held ones succeed', async () => {
  const held = [
    await holdUpload('198.51.100.1'),
    await holdUpload('198.51.100.1'),
    await holdUpload('198.51.100.2', JSON_PATH),
  ];
  await settle(3);
  const refused = await tryUpload('198.51.100.3');
  expect(refused.status).toBe(503);
  expect(refused.text).toBe('deploy fails, too many uploads at once; retry later');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  const replies = await Promise.all(held.map((h) => h.finish()));
  expect(replies.map((r) => r.status)).toEqual([200, 200, 202]);
  const again = await holdUpload('198.51.100.3');
  expect(await again.finish()).toEqual({ status: 200, text: 'deploy successful' });
});

test('a client gone mid-body gives its slot back: the bound admits its address again', async () => {
  const held = [await holdUpload('192.0.2.7'), await holdUpload('192.0.2.7', JSON_PATH)];
  await settle(2);
  // Both clients go away inside their file parts: the server's handlers end, slots given back.
  for (const h of held) await h.connection.close();
  await uploadsDone(stack, METRICS_TOKEN);
  const again = [await holdUpload('192.0.2.7'), await holdUpload('192.0.2.7')];
  const replies = await Promise.all(again.map((h) => h.finish()));
  expect(replies).toEqual(replies.map(() => ({ status: 200, text: 'deploy successful' })));
});
