/**
 * The ingest client's submit when the enqueue fails (api/uploads/ingest-client.ts). A failure that
 * proves the job was never sent leaves nothing behind (the client resends). An ambiguous one (the
 * producer's deadline passed, the job may have landed) must not delete what a landed job needs:
 * when Redis says the job exists the upload is acknowledged; when it cannot say, the upload and
 * its blob stay for the job or the housekeeping sweep. Real Redis (BullMQ) and Mongo (GridFS);
 * only the add's outcome is made to fail.
 */
import { Readable } from 'node:stream';
import { Queue } from 'bullmq';
import { ObjectId } from 'mongodb';
import { isDependencyOutage } from '../../../api/http-errors';
import { createIngestClient, type IngestClientDeps } from '../../../api/uploads/ingest-client';
import type { ReceivedFile } from '../../../api/uploads/received';
import { createKeyRing } from '../../../shared/crypto/keys';
import { newDataKey } from '../../../shared/crypto/data-keys';
import { AppError } from '../../../shared/errors';
import { apkIngestQueue } from '../../../shared/queues/apk-ingest';
import { gridFsBlobStore } from '../../../shared/storage/blob-store';
import {
  bullPrefix,
  closeRedis,
  createWorkerRedis,
  RedisUnavailableError,
  redisReady,
} from '../../../shared/storage/redis';
import { track } from '../../helpers/resources';
import { startStack, type TestStack } from '../../helpers/stack';
import { catalogCollections } from '../../../shared/catalog/collections';

let stack: TestStack;
let redis: ReturnType<typeof createWorkerRedis>;
let queue: Queue;
let closeOwn: () => Promise<void>;
beforeAll(async () => {
  stack = await startStack({ workers: false });
  redis = createWorkerRedis(stack.redisUrl, 'test:upload-enqueue-failure');
  await redisReady(redis, 5_000);
  queue = new Queue(apkIngestQueue.name, {
    connection: redis,
    prefix: bullPrefix(redis, stack.prefix),
  });
  closeOwn = track('upload enqueue-failure queue', async () => {
    await queue.close();
    await closeRedis(redis);
  });
});
afterAll(async () => {
  await closeOwn();
  await stack.close();
});

const DEADLINE = () =>
  new AppError('DEPENDENCY_UNAVAILABLE', {
    message: 'Redis did not answer adding to apk-ingest in time',
  });

/** A stored blob (a few bytes: nothing reads it here) and the file the receiver would hand over. */
async function received(): Promise<ReceivedFile> {
  const uploadId = new ObjectId().toHexString();
  const size = await gridFsBlobStore(stack.mongo.db).put(
    uploadId,
    Readable.from([Buffer.from('ciphertext')]),
    { uploadId },
  );
  return { uploadId, dataKey: newDataKey(), noncePrefix: Buffer.alloc(8, 1), size };
}

function client(q: IngestClientDeps['queue']) {
  return createIngestClient({
    db: stack.mongo.db,
    blobs: gridFsBlobStore(stack.mongo.db),
    keys: createKeyRing(stack.masterKey),
    queue: q,
    events: undefined as never, // waitForVerdict is not called here
  });
}

async function traces(uploadId: string) {
  const doc = await catalogCollections(stack.mongo.db).uploads.findOne({ _id: uploadId });
  const blob = await gridFsBlobStore(stack.mongo.db).size(uploadId);
  const job = await queue.getJob(`upload-${uploadId}`);
  return { doc: doc !== null, blob: blob !== null, job: job !== undefined };
}

const options = { current: false, whatsnew: null, expectedPackage: null };

/** What submit rejects with (null when it resolves) on this queue. */
function submitError(file: ReceivedFile, q: IngestClientDeps['queue']): Promise<unknown> {
  return client(q)
    .submit('acct', file, options)
    .then(
      () => null,
      (e: unknown) => e,
    );
}

test('an enqueue refused before sending leaves nothing behind', async () => {
  const file = await received();
  const refused = () =>
    Promise.reject(
      new RedisUnavailableError(
        new Error("Stream isn't writeable and enableOfflineQueue options is false"),
        false,
      ),
    );
  const err = await submitError(file, { add: refused as never, getJob: queue.getJob.bind(queue) });
  expect(isDependencyOutage(err)).toBe(true); // a retryable 503
  expect(await traces(file.uploadId)).toEqual({ doc: false, blob: false, job: false });
});

test('an add that landed and then timed out is acknowledged; nothing is deleted', async () => {
  const file = await received();
  const landedLate = (async (...args: Parameters<Queue['add']>) => {
    await queue.add(...args);
    throw DEADLINE();
  }) as never;
  const id = await client({ add: landedLate, getJob: queue.getJob.bind(queue) }).submit(
    'acct',
    file,
    options,
  );
  expect(id).toBe(file.uploadId);
  expect(await traces(file.uploadId)).toEqual({ doc: true, blob: true, job: true });
});

test('an add that timed out and did not land is cleaned up once Redis says so', async () => {
  const file = await received();
  const lost = (() => Promise.reject(DEADLINE())) as never;
  const err = await submitError(file, { add: lost, getJob: queue.getJob.bind(queue) });
  expect(isDependencyOutage(err)).toBe(true); // a retryable 503
  expect(await traces(file.uploadId)).toEqual({ doc: false, blob: false, job: false });
});

test('when Redis cannot say whether the job landed, the upload and its blob are kept', async () => {
  const file = await received();
  const lost = (() => Promise.reject(DEADLINE())) as never;
  const unknown = (() => Promise.reject(DEADLINE())) as never;
  const err = await submitError(file, { add: lost, getJob: unknown });
  expect(isDependencyOutage(err)).toBe(true); // a retryable 503
  expect(await traces(file.uploadId)).toEqual({ doc: true, blob: true, job: false });
});
