/**
 * Issue 24, finding 1: an upload is authenticated before any of its file is stored. A 50 MB
 * upload with a wrong key, or with none, must not grow the store (GridFS, on disk, and any local
 * staging) by as much as 1 MB, and a missing key counts against the failed-auth throttle as a
 * wrong one does. Measured over real HTTPS on a raw socket, against the real MongoDB-protocol
 * server and its files on disk.
 */
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { CIPHER_SEGMENT_SIZE } from '../../../shared/crypto/segmented-aead';
import { redisKeys } from '../../../shared/redis-keys';
import { newAccount } from '../../helpers/accounts';
import { uploadsDone } from '../../helpers/metrics';
import { fileEnd, fileHead, formEnd, formField, sendForm } from '../../helpers/raw-upload';
import { startStack, type TestStack } from '../../helpers/stack';
import { bytesUnder, databaseBytesOnDisk } from '../../helpers/store-bytes';

jest.setTimeout(180_000);

const FILE_BYTES = 50 * 1024 * 1024;
const ONE_MB = 1024 * 1024;
const METRICS_TOKEN = 'auth-before-store-metrics-token';

let stack: TestStack;
let workerTmpDir: string;
let redis: Redis;
beforeAll(async () => {
  workerTmpDir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-auth-store-'));
  stack = await startStack({ maxApkBytes: 64 * ONE_MB, workerTmpDir, metricsToken: METRICS_TOKEN });
  redis = new Redis(stack.redisUrl);
});
afterAll(async () => {
  redis.disconnect();
  await stack.close();
  await rm(workerTmpDir, { recursive: true, force: true });
});

/** What the store holds: on disk (the database's files, the API's and workers' local dirs). */
async function storeBytes(): Promise<number> {
  const onDisk = await databaseBytesOnDisk(stack.database);
  return onDisk + (await bytesUnder(stack.dataDir)) + (await bytesUnder(workerTmpDir));
}

/**
 * Runs `upload` while sampling GridFS every 50 ms: the most it held at once (chunks, as bytes),
 * and how much the store on disk grew, once the API has finished with the upload.
 */
async function measured<T>(upload: () => Promise<T>) {
  const chunks = stack.mongo.db.collection('apks.chunks');
  const baseChunks = await chunks.countDocuments();
  const baseDisk = await storeBytes();
  let peakChunks = 0;
  let running = true;
  const sampler = (async () => {
    while (running) {
      peakChunks = Math.max(peakChunks, (await chunks.countDocuments()) - baseChunks);
      await sleep(50); // the sampling period
    }
  })();
  try {
    const result = await upload();
    // The reply came, so the upload took its slot; the handler gives it back only after its last
    // write. From then on nothing of this upload can still be written or deleted.
    await uploadsDone(stack, METRICS_TOKEN);
    return {
      result,
      gridFsPeak: peakChunks * CIPHER_SEGMENT_SIZE,
      diskGrowth: (await storeBytes()) - baseDisk,
      chunksLeft: (await chunks.countDocuments()) - baseChunks,
    };
  } finally {
    running = false;
    await sampler;
  }
}

async function addressFailures(): Promise<number> {
  return redis.zcard(redisKeys(stack.prefix).authFailures('address', '127.0.0.1'));
}

test.each([
  [
    'a wrong key',
    () => formField('apiKey', `ak_${'Z'.repeat(32)}`),
    'deploy fails, Invalid Api Key',
  ],
  ['no key', () => Buffer.alloc(0), /^deploy fails, /],
] as const)(
  'a 50 MB upload with %s: refused, counted as a failed authentication, the store grows < 1 MB',
  async (_name, keyPart, text) => {
    const failuresBefore = await addressFailures();
    const { result, gridFsPeak, diskGrowth, chunksLeft } = await measured(() =>
      sendForm(stack.urls.admin, stack.ca, {
        before: Buffer.concat([keyPart(), formField('current', 'true'), fileHead()]),
        fileBytes: FILE_BYTES,
        after: Buffer.concat([fileEnd, formEnd]),
      }),
    );
    await result.connection.close();
    expect(result.response.status).toBe(401);
    if (typeof text === 'string') expect(result.response.text).toBe(text);
    else expect(result.response.text).toMatch(text);
    expect(chunksLeft).toBe(0);
    expect(gridFsPeak).toBeLessThan(ONE_MB);
    expect(diskGrowth).toBeLessThan(ONE_MB);
    expect(await addressFailures()).toBe(failuresBefore + 1);
  },
);

/** Descriptors of this process (the API runs in it) open on a file under `dir`. */
async function openUnder(dir: string): Promise<string[]> {
  const fds = await readdir('/proc/self/fd');
  const targets = await Promise.all(
    fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return targets.filter((t) => t.startsWith(`${dir}/`));
}

test('a 50 MB file before a wrong key: 401, counted, no byte stored, its spool gone at once', async () => {
  const spoolDir = path.join(stack.dataDir, 'spool', 'uploads');
  const failuresBefore = await addressFailures();
  const after = Buffer.concat([fileEnd, formField('apiKey', `ak_${'W'.repeat(32)}`), formEnd]);
  const { result, gridFsPeak, diskGrowth, chunksLeft } = await measured(async () => {
    const sent = await sendForm(stack.urls.admin, stack.ca, {
      before: fileHead(),
      fileBytes: FILE_BYTES,
      after,
    });
    // At the reply, not later: the spooled bytes are deleted before the refusal is sent.
    return { sent, openAtReply: await openUnder(spoolDir), listed: await readdir(spoolDir) };
  });
  await result.sent.connection.close();
  expect(result.sent.response.status).toBe(401);
  expect(result.sent.response.text).toBe('deploy fails, Invalid Api Key');
  // The whole file was read (spooled), then judged by its key.
  expect(result.sent.sent).toBe(fileHead().length + FILE_BYTES + after.length);
  expect(result.openAtReply).toEqual([]);
  expect(result.listed).toEqual([]);
  expect(chunksLeft).toBe(0);
  expect(gridFsPeak).toBe(0);
  expect(diskGrowth).toBeLessThan(ONE_MB);
  expect(await addressFailures()).toBe(failuresBefore + 1);
});

test('a 50 MB file before its right key: judged as a key-first upload would be', async () => {
  const { apiKey } = await newAccount(stack);
  const result = await sendForm(stack.urls.admin, stack.ca, {
    before: fileHead(),
    fileBytes: FILE_BYTES,
    after: Buffer.concat([fileEnd, formField('apiKey', apiKey), formEnd]),
  });
  await result.connection.close();
  // The filler is no APK: the verdict a key-first upload of it gets.
  expect({ status: result.response.status, text: result.response.text }).toEqual({
    status: 422,
    text: 'deploy fails, Invalid APK file',
  });
  expect(await openUnder(path.join(stack.dataDir, 'spool', 'uploads'))).toEqual([]);
});

test('a wrong key in the Authorization header: 401 before the body is read', async () => {
  const { result, gridFsPeak } = await measured(() =>
    sendForm(stack.urls.admin, stack.ca, {
      headers: { Authorization: `Bearer ak_${'Y'.repeat(32)}` },
      before: fileHead(),
      fileBytes: FILE_BYTES,
      after: Buffer.concat([fileEnd, formEnd]),
    }),
  );
  await result.connection.close();
  expect(result.response.status).toBe(401);
  expect(result.response.text).toBe('deploy fails, Invalid Api Key');
  expect(result.sent).toBeLessThan(FILE_BYTES);
  expect(gridFsPeak).toBe(0);
});

test('a small form with its key after the file is accepted (held in memory, then stored)', async () => {
  const { apiKey } = await newAccount(stack);
  const apk = await readFile(path.resolve(__dirname, '../../fixtures/apks/version-1.apk'));
  const result = await sendForm(stack.urls.admin, stack.ca, {
    before: Buffer.concat([fileHead(), apk]),
    fileBytes: 0,
    after: Buffer.concat([fileEnd, formField('apiKey', apiKey), formEnd]),
  });
  await result.connection.close();
  expect({ status: result.response.status, text: result.response.text }).toEqual({
    status: 200,
    text: 'deploy successful',
  });
});
