/**
 * Issue 24, finding 1: the body-progress deadline. A multipart body trickled a byte at a time
 * (headers complete, so HEADERS_TIMEOUT_MS no longer applies, and far inside REQUEST_TIMEOUT_MS)
 * is cut once it brings fewer than UPLOAD_PROGRESS_BYTES in UPLOAD_PROGRESS_WINDOW_MS: a 408
 * with a clear reply, the connection closed, nothing of it left in GridFS or the upload records.
 * The deadline is set small here; a client that sends at an ordinary pace is not cut.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { uploadsDone } from '../../helpers/metrics';
import { postMultipart } from '../../helpers/multipart';
import { fileHead, formField, requestHead } from '../../helpers/raw-upload';
import { startStack, type TestStack } from '../../helpers/stack';
import { openRaw, type RawConnection } from '../../resilience/protocol/raw-http';

jest.setTimeout(60_000);

const PROGRESS_BYTES = 1024;
const WINDOW_MS = 1_000;
/** The server checks at the end of each window; the machine is shared and slow. */
const SLACK_MS = 3_000;
const METRICS_TOKEN = 'slow-upload-metrics-token';

let stack: TestStack;
let apiKey: string;
beforeAll(async () => {
  stack = await startStack({
    uploads: { progressBytes: PROGRESS_BYTES, progressWindowMs: WINDOW_MS },
    metricsToken: METRICS_TOKEN,
  });
  apiKey = (await newAccount(stack)).apiKey;
});
afterAll(() => stack.close());

/**
 * The end of the cut upload's writes: its handler gives its upload slot back only after it has
 * deleted what it stored, so once no slot is held a chunk or record written late would show.
 */
const writesSettled = () => uploadsDone(stack, METRICS_TOKEN);

async function stored() {
  const db = stack.mongo.db;
  return {
    blobs: await db.collection('apks.files').countDocuments(),
    chunks: await db.collection('apks.chunks').countDocuments(),
    uploads: await db.collection('uploads').countDocuments(),
  };
}

/**
 * Sends the request head and `start` at once, then trickles filler one byte every 200 ms (5 B/s)
 * until the server answers or closes; returns the reply and how long the trickle lasted.
 */
async function trickle(target: string, start: Buffer, headers: Record<string, string> = {}) {
  const connection: RawConnection = await openRaw(stack.urls.admin, stack.ca);
  try {
    await connection.write(Buffer.concat([requestHead(target, 10 * 1024 * 1024, headers), start]));
    const started = Date.now();
    let answered = false;
    const response = connection.response(WINDOW_MS * 3 + SLACK_MS * 3);
    void response.then(
      () => (answered = true),
      () => (answered = true),
    );
    while (!answered && !connection.isClosed() && Date.now() - started < 20_000) {
      await connection.write(Buffer.from('Z'));
      await sleep(200); // pacing: the trickle itself
    }
    const reply = await response;
    const elapsedMs = Date.now() - started;
    // The server closes the connection after its reply: a wait for it, not a bound on when.
    const closed = await eventually('the server to close the connection', () =>
      connection.isClosed(),
    );
    return { reply, elapsedMs, closed };
  } finally {
    await connection.close();
  }
}

test.each([
  [
    'inside the file part, after the key',
    () => Buffer.concat([formField('apiKey', apiKey), fileHead()]),
  ],
  ['from the first byte of the body', () => Buffer.alloc(0)],
])(
  'legacy upload trickled %s: 408 within the deadline, closed, nothing stored',
  async (_n, start) => {
    const before = await stored();
    const { reply, elapsedMs, closed } = await trickle('/apps/api_upload', start());
    expect(reply.status).toBe(408);
    expect(reply.text).toBe(
      `deploy fails, the upload was too slow (fewer than ${PROGRESS_BYTES} bytes in ${WINDOW_MS} ms); retry`,
    );
    expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(elapsedMs).toBeLessThan(2 * WINDOW_MS + SLACK_MS);
    expect(closed).toBe(true);
    await writesSettled();
    expect(await stored()).toEqual(before);
  },
);

test('JSON upload trickled: 408 UPLOAD_TOO_SLOW, closed, nothing stored', async () => {
  const before = await stored();
  const { reply, elapsedMs, closed } = await trickle(
    '/api/v2/apps/dev.apkrelay.sample/apks',
    fileHead(),
    { Authorization: `Bearer ${apiKey}` },
  );
  expect(reply.status).toBe(408);
  expect((JSON.parse(reply.text) as { error: { code: string } }).error.code).toBe(
    'UPLOAD_TOO_SLOW',
  );
  expect(elapsedMs).toBeLessThan(2 * WINDOW_MS + SLACK_MS);
  expect(closed).toBe(true);
  await writesSettled();
  expect(await stored()).toEqual(before);
});

test('an upload at an ordinary pace is not cut by the same deadline', async () => {
  const data = await readFile(path.resolve(__dirname, '../../fixtures/apks/large.apk'));
  const reply = await postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: apiKey },
      { name: 'apk', filename: 'large.apk', data },
    ],
    { ca: stack.ca, chunked: true },
  );
  expect({ status: reply.status, text: reply.text }).toEqual({
    status: 200,
    text: 'deploy successful',
  });
});
