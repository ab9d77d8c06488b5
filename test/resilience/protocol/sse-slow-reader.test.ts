/**
 * A push stream client that stops reading its socket while many events are sent: the server must
 * not buffer for it without bound; it should drop the stream. Events are produced the way workers
 * announce a new current APK to every API process (a message on the notice channel makes the hub
 * send each open stream of the app a `version` event), many at once. The test watches the server's
 * own socket for this stream (the stack runs in this process): the bytes it holds in memory.
 */
import { Server } from 'node:net';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { redisKeys } from '../../../shared/redis-keys';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { track } from '../../helpers/resources';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { abuseCounter, probeEachTest } from './abuse-kit';
import { openRaw } from './raw-http';

const SAMPLE = 'dev.apkrelay.sample';
/**
 * What the server may hold in memory for one stream before it must have dropped it: well above
 * the hub's own bound (MAX_UNREAD_BYTES, 512 KiB), far below what an unbounded buffer reaches
 * here (megabytes within seconds before the hub had a bound).
 */
const MAX_BUFFERED = 2 * 1024 * 1024;
const counter = abuseCounter('sse-slow-reader');

let stack: TestStack;
let redis: Redis;
let closeRedis: () => Promise<void>;
beforeAll(async () => {
  stack = await startStack();
  redis = new Redis(stack.redisUrl, { lazyConnect: false });
  closeRedis = track('redis publisher', async () => {
    await redis.quit();
  });
});
afterAll(async () => {
  counter.record();
  await closeRedis();
  await stack.close();
});
probeEachTest(() => stack);

/**
 * The push listener's server (it runs in this process): its `request` event gives the server's
 * side of the stream, whose socket holds what the server buffered for the client.
 */
function pushServer(port: number): Server {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  const server = handles.find(
    (h): h is Server =>
      h instanceof Server && (h.address() as { port?: number } | null)?.port === port,
  );
  if (!server) throw new Error(`no server listening on ${port} in this process`);
  return server;
}

test('a stream whose client stops reading is dropped before the server buffers 2 MiB for it', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk', { current: true });
  const deviceId = 'slow-reader-1';
  const reg = await request(`${stack.urls.push}/api/v2/installations`, {
    method: 'POST',
    json: { package: SAMPLE, deviceId },
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(reg.status).toBeLessThan(300);
  const app = await stack.mongo.db.collection('apps').findOne({ accountId: id, package: SAMPLE });
  const appId = String(app?._id);

  let streamResponse: ServerResponse | undefined;
  pushServer(Number(new URL(stack.urls.push).port)).on(
    'request',
    (req: { url?: string }, res: ServerResponse) => {
      if (req.url?.startsWith('/api/v2/stream')) streamResponse = res;
    },
  );
  const connection = await openRaw(stack.urls.push, stack.ca);
  counter.add();
  await connection.write(
    `GET /api/v2/stream?package=${SAMPLE}&deviceId=${deviceId} HTTP/1.1\r\nHost: localhost\r\n` +
      `Authorization: Bearer ${apiKey}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  await eventually('the status event', () => connection.received().includes('event:status'), {
    intervalMs: 100,
  });
  expect(connection.received().toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
  // From now on the client reads nothing.
  connection.socket.pause();
  expect(streamResponse).toBeDefined();
  /** Bytes the server holds in memory for this stream (the response's count includes its socket's). */
  const buffered = () => streamResponse!.writableLength;

  const channel = redisKeys(stack.prefix).noticeChannel();
  const message = JSON.stringify({ appId, package: SAMPLE, kind: 'version' });
  let published = 0;
  let maxBuffered = 0;
  const started = Date.now();
  let dropped = false;
  while (Date.now() - started < 120_000) {
    const batch = redis.pipeline();
    for (let i = 0; i < 250; i++) batch.publish(channel, message);
    await batch.exec();
    published += 250;
    await sleep(100); // pacing: 2,500 notices a second
    maxBuffered = Math.max(maxBuffered, streamResponse!.socket ? buffered() : 0);
    if (!streamResponse!.socket || streamResponse!.socket.destroyed || connection.isClosed()) {
      dropped = true;
      break;
    }
    if (maxBuffered > MAX_BUFFERED) break;
  }
  const summary = `${published} notices published in ${Date.now() - started} ms; the server held up to ${(maxBuffered / 1024 / 1024).toFixed(1)} MiB for the stream; dropped: ${dropped}`;
  expect({ dropped, withinBound: maxBuffered <= MAX_BUFFERED, summary }).toEqual({
    dropped: true,
    withinBound: true,
    summary,
  });
  await connection.close();
});
