/**
 * The API's Redis connection fails fast: with Redis unreachable, the API still starts, requests
 * that need Redis get a retryable 503 and /readyz says which dependency is missing. Redis here is
 * a port that accepts connections and never answers (a hung server, a half-open link): no
 * reconnect ever comes and no command is ever answered, so a request answered at all was
 * answered without waiting for Redis; one that waited would hang until jest's deadline. Closing
 * the API then lets go of every connection it made to that Redis: none is left open, or waiting
 * to reconnect, in the process.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { startApi, type ApiProcess } from '../../../api/main';
import { eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, testLogger } from '../../helpers/services';
import { testTls } from '../../helpers/stack';
import { connectMongo } from '../../../shared/storage/mongo';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

jest.setTimeout(120_000);
let api: ApiProcess;
let close: () => Promise<void>;
let closeRedis: () => Promise<void>;
let admin: string;
const { database, prefix } = isolation();
/** The connections the API opened to the silent Redis: a retry would open another. */
const accepted: Socket[] = [];
/** Those the API closed (this server never closes one before afterAll). */
const closedByApi = new Set<Socket>();

/** Accepts connections and never answers. */
async function silentRedis(): Promise<string> {
  const server: Server = createServer((socket) => {
    accepted.push(socket);
    // Read (and drop) what the API sends: a socket never read would not see the API's close.
    socket.resume();
    socket.on('close', () => closedByApi.add(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeRedis = track('silent redis', async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    for (const s of accepted) s.destroy();
    await closed;
  });
  return `redis://127.0.0.1:${(server.address() as { port: number }).port}`;
}

beforeAll(async () => {
  const deadRedis = await silentRedis();
  // Port 0: each listener takes a port when it listens. A port picked before startApi would
  // stay unbound through its wait for Redis (3 s, never ready here), long enough for another
  // socket on this busy machine to take it (EADDRINUSE: 1 run in 19 here, 1 in 27 before).
  const ports = { admin: 0, web: 0, push: 0 };
  api = await startApi({
    log: testLogger(),
    redisUrl: deadRedis,
    mongoUrl: serviceUrls().mongoUrl,
    database,
    queuePrefix: prefix,
    masterKey: randomBytes(32),
    tls: testTls(),
    host: '127.0.0.1',
    ports,
    // Links in replies are not followed here.
    publicUrls: { base: 'https://localhost', web: 'https://localhost', push: 'https://localhost' },
    limits: { maxApkBytes: 1 << 20, uploadWaitTimeoutMs: 5_000 },
  });
  admin = `https://localhost:${api.ports.admin}`;
  close = track('api with dead redis', async () => {
    await api.close(500);
    const mongo = await connectMongo(serviceUrls().mongoUrl, database);
    await mongo.db.dropDatabase();
    await mongo.close();
  });
});
// Redis goes first: the API's shutdown does not wait for a Redis that never answers.
afterAll(async () => {
  await closeRedis();
  await close();
});

test('/readyz is 503 naming Redis; an upload gets 503 with Retry-After and leaves nothing', async () => {
  const ready = await request(`${admin}/readyz`, { ca: testTls().cert });
  expect(ready.status).toBe(503);
  expect(ready.json()).toMatchObject({ checks: { redis: false, mongo: true } });

  const signUp = await request(`${admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'redis-down@example.com', password: 'password-123' },
    ca: testTls().cert,
  });
  expect(signUp.status).toBe(201); // accounts need only MongoDB
  const { apiKey } = signUp.json<{ apiKey: string }>();
  const apk = await readFile(path.resolve(__dirname, '../../fixtures/apks/version-1.apk'));
  const connections = accepted.length;
  expect(connections).toBeGreaterThan(0); // the API is connected, waiting for an answer
  const reply = await postMultipart(
    `${admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: apiKey },
      { name: 'apk', filename: 'v1.apk', data: apk },
    ],
    { ca: testTls().cert },
  );
  expect(reply.status).toBe(503);
  expect(accepted.length).toBe(connections); // answered before any reconnect
  expect(reply.headers['retry-after']).toBe('5');
  expect(reply.text).toMatch(/retry later/);
  const mongo = await connectMongo(serviceUrls().mongoUrl, database);
  try {
    expect(await mongo.db.collection('uploads').countDocuments()).toBe(0);
    expect(await mongo.db.collection('apks.files').countDocuments()).toBe(0);
  } finally {
    await mongo.close();
  }
});

test('failed-auth throttling never turns a request away while Redis is down', async () => {
  const ca = testTls().cert;
  const signUp = await request(`${admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'throttle-redis-down@example.com', password: 'password-123' },
    ca,
  });
  expect(signUp.status).toBe(201);
  const ask = (key: string) =>
    request(`${admin}/api/v2/account`, { headers: { authorization: `Bearer ${key}` }, ca });
  // More failures than the default per-key limit (20): the throttle cannot count them.
  for (let i = 0; i < 22; i++) {
    const wrong = await ask(`ak_${'D'.repeat(32)}`);
    expect(wrong.status).toBe(401);
  }
  expect((await ask(signUp.json<{ apiKey: string }>().apiKey)).status).toBe(200);
});

test('closing the API lets go of every connection it made to Redis', async () => {
  expect(accepted.length).toBeGreaterThan(0);
  await api.close(500);
  // ioredis reconnects only a connection it did not close itself: one the API closed stays closed.
  await eventuallyValue(
    'the API to close every connection it opened to Redis',
    () => Promise.resolve(accepted.filter((s) => !closedByApi.has(s)).length),
    (open) => open === 0,
  );
});
