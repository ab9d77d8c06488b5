/**
 * Stopping a worker process while it makes a delta patch: over the real stack (real Redis,
 * FerretDB, APKs built by aapt and signed by apksigner), the workers are closed while the
 * generation thread runs. The close aborts the job's signal, so the thread is terminated rather
 * than waited for: when the close resolves no thread is left, nothing of the pair is published
 * (no document, no blob), and the job is back in the queue; workers started again make the pair.
 */
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import { catalogCollections } from '../../../shared/catalog/collections';
import { generationThreads } from '../../../shared/delta/build-off-thread';
import { DELTA_BUCKET, deltaCollections } from '../../../shared/delta/collections';
import { deltaGenerateQueue } from '../../../shared/queues/delta-generate';
import { bullPrefix, closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { compressedApk } from '../../helpers/apk/compressed-apk';
import { noise, words } from '../../helpers/delta';
import { registerDevices } from '../../helpers/devices';
import { eventually } from '../../helpers/eventually';
import { track } from '../../helpers/resources';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadApk } from '../../helpers/uploads';

jest.setTimeout(180_000);

const PKG = 'dev.apkrelay.closing';
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ workers: false });
});
afterAll(() => stack.close());

/** The state of the delta-generate job of `appId`'s version 2, and why its last attempt failed. */
async function jobOfV2(appId: string) {
  const redis = createWorkerRedis(stack.redisUrl);
  const close = track('redis delta jobs', () => closeRedis(redis));
  const queue = new Queue(deltaGenerateQueue.name, {
    connection: redis,
    prefix: bullPrefix(redis, stack.prefix),
  });
  try {
    const job = await queue.getJob(`delta-${appId}-2`);
    return { state: await job?.getState(), failedReason: job?.failedReason };
  } finally {
    await queue.close();
    await close();
  }
}

test('closing the workers mid-generation terminates the thread; the job is retried', async () => {
  const workers = await stack.startWorkers();
  const { apiKey, id: accountId } = await newAccount(stack);
  const bulk = noise(4 << 20, 21);
  const changed = Buffer.concat([
    bulk.subarray(0, 1 << 20),
    noise(8192, 22),
    bulk.subarray(1 << 20),
  ]);
  const v1 = await compressedApk(PKG, 1, { 'bulk.bin': bulk, 'data.txt': words(20_000) });
  const v2 = await compressedApk(PKG, 2, { 'bulk.bin': changed, 'data.txt': words(21_000) });
  await uploadApk(stack, apiKey, { name: 'closing.apk', data: v1 });
  await registerDevices(
    { baseUrl: stack.urls.web, ca: stack.ca, apiKey, package: PKG },
    ['till-1'],
    md5(v1),
  );
  await uploadApk(stack, apiKey, { name: 'closing.apk', data: v2 });
  await eventually('the generation thread', () => generationThreads() === 1, { intervalMs: 5 });

  await workers.close();
  expect(generationThreads()).toBe(0);
  const pair = { accountId, fromMd5: md5(v1), toSha256: sha256(v2) };
  const deltas = deltaCollections(stack.mongo.db).deltas;
  expect(await deltas.countDocuments(pair)).toBe(0);
  const key = `${accountId}/${PKG}/${md5(v1)}/${sha256(v2)}`;
  const blobs = stack.mongo.db.collection(`${DELTA_BUCKET}.files`);
  expect(await blobs.countDocuments({ 'metadata.pair': key })).toBe(0);
  const app = await catalogCollections(stack.mongo.db).apps.findOne({ accountId, package: PKG });
  // Failed by the close, waiting for its retry.
  expect(await jobOfV2(app!._id.toHexString())).toEqual({
    state: 'delayed',
    failedReason: 'worker closing',
  });

  await stack.startWorkers();
  const whole = await eventually('the ARDELTA1 document', () =>
    deltas.findOne({ ...pair, format: 1 }),
  );
  expect(whole.status).toBe('ready');
  expect(await deltas.countDocuments(pair)).toBe(2);
});
