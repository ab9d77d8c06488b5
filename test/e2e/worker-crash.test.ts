/**
 * A worker process killed with SIGKILL in the middle of ingests, then restarted: every accepted
 * upload ends done or failed with a verdict, no GridFS file or chunk is orphaned, no record is
 * duplicated.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { newAccount } from '../helpers/accounts';
import { eventually } from '../helpers/eventually';
import { postMultipart } from '../helpers/multipart';
import { stackEnv } from '../helpers/processes';
import { startStack, type TestStack } from '../helpers/stack';

const root = path.resolve(__dirname, '../..');
const bulk = path.resolve(__dirname, '../fixtures/apks/bulk');
jest.setTimeout(180_000);

let stack: TestStack;
let worker: ChildProcess | undefined;

function startWorkerProcess(): ChildProcess {
  const child = spawn('node', ['dist/ops/cli/main.js', 'start', '--only', 'workers'], {
    cwd: root,
    env: stackEnv(stack, {
      JOB_LOCK_MS: '2000',
    }),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

beforeAll(async () => {
  stack = await startStack({ workers: false });
});
afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = once(worker, 'exit');
    worker.kill('SIGTERM');
    await exited;
  }
  await stack.close();
});

test('SIGKILL mid-ingest, restart: all uploads decided, no orphan blobs, no duplicates', async () => {
  const { apiKey, id } = await newAccount(stack);
  const files = (await readdir(bulk))
    .filter((f) => f.endsWith('.apk'))
    .sort()
    .slice(0, 24);
  worker = startWorkerProcess();
  const replies = await Promise.all(
    files.map(async (file) =>
      postMultipart(
        `${stack.urls.admin}/apps/api_upload`,
        [
          { name: 'apiKey', value: apiKey },
          { name: 'async', value: 'true' },
          { name: 'apk', filename: file, data: await readFile(path.join(bulk, file)) },
        ],
        { ca: stack.ca },
      ),
    ),
  );
  expect(replies.every((r) => r.status === 202)).toBe(true);
  const uploads = stack.mongo.db.collection<{ _id: string; status: string; verdict: unknown }>(
    'uploads',
  );

  // Kill as soon as a job is being processed and others are still waiting: the test proves
  // nothing unless an ingest really was under way, so not seeing one within 60 s fails it.
  const processing = { accountId: id, status: 'processing' };
  await eventually(
    'an ingest to be seen processing',
    async () => (await uploads.countDocuments(processing)) > 0,
    { intervalMs: 5 },
  );
  worker.kill('SIGKILL');
  await once(worker, 'exit');
  // Read after the kill: nothing can change these any more until the restart.
  expect(await uploads.countDocuments(processing)).toBeGreaterThan(0);
  expect(await uploads.countDocuments({ accountId: id, verdict: { $ne: null } })).toBeLessThan(
    files.length,
  );

  worker = startWorkerProcess();
  await eventually(
    'every upload to have a verdict after the restart',
    async () => (await uploads.countDocuments({ accountId: id, verdict: null })) === 0,
    { timeoutMs: 120_000, intervalMs: 100 },
  );
  const all = await uploads.find({ accountId: id }).toArray();
  expect(all).toHaveLength(files.length);
  expect(all.filter((u) => u.verdict === null)).toEqual([]);
  expect(all.map((u) => u.status)).toEqual(files.map(() => 'done'));

  const apks = await stack.mongo.db.collection('apks').find({ accountId: id }).toArray();
  expect(apks).toHaveLength(files.length);
  expect(new Set(apks.map((a) => a.uploadId as string)).size).toBe(files.length);

  // Every GridFS file and chunk belongs to an APK record.
  const blobIds = apks.map((a) => a.blobId as string).sort();
  // Upload ids are random strings, and GridFS file ids the same strings (blob-store.ts).
  const uploadBlobIds = all.map((u) => String(u._id));
  const fileIds = (
    await stack.mongo.db
      .collection<{ _id: string }>('apks.files')
      .find({ _id: { $in: uploadBlobIds } })
      .toArray()
  )
    .map((f) => String(f._id))
    .sort();
  expect(fileIds).toEqual(blobIds);
  const chunkOwners = await stack.mongo.db
    .collection('apks.chunks')
    .distinct('files_id', { files_id: { $in: uploadBlobIds } });
  expect(chunkOwners.map((o) => String(o)).sort()).toEqual(blobIds);
});
