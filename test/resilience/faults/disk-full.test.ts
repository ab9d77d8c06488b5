/**
 * Fault: the staging disk fills up. An upload is staged in two places: the API streams it,
 * encrypted, into GridFS (the MongoDB-protocol server's data directory), and the ingest worker
 * copies that ciphertext to a local temporary directory to verify it. Each sits here on a small
 * tmpfs of its own, filled to the last byte.
 * - Mongo's disk full: an upload gets a clear retryable error (503 with Retry-After), nothing of
 *   it stays stored, and uploads work again once space is freed.
 * - The worker's temporary disk full: an acknowledged upload is neither failed nor held up for
 *   it (the worker verifies from storage instead), and no partial copy is left behind.
 */
import { readdir } from 'node:fs/promises';
import { newAccount } from '../../helpers/accounts';
import { postMultipart } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture } from '../../helpers/uploads';
import { recordFigures } from '../report';
import { startPrivateServices, type PrivateServices } from './private-services';
import { mountSmallDisk, type SmallDisk } from './small-disk';
import { auditStorage, classify, waitForVerdicts, type Outcome } from './upload-outcomes';

const PACKAGE = 'dev.apkrelay.sample';
const REPLY_MS = 90_000;

let mongoDisk: SmallDisk;
let tmpDisk: SmallDisk;
let services: PrivateServices;
let stack: TestStack;

beforeAll(async () => {
  mongoDisk = await mountSmallDisk('faults-mongo-disk', 96 * 1024 * 1024);
  tmpDisk = await mountSmallDisk('faults-worker-tmp', 1024 * 1024);
  services = await startPrivateServices({ mongoDir: mongoDisk.dir });
  stack = await startStack({
    redisUrl: services.redisUrl,
    mongoUrl: services.mongoUrl,
    workerTmpDir: tmpDisk.dir,
  });
});
afterAll(async () => {
  await mongoDisk?.free();
  await tmpDisk?.free();
  await stack?.close();
  await services?.close();
  await mongoDisk?.close();
  await tmpDisk?.close();
});

async function upload(
  apiKey: string,
  name: string,
  via: 'legacy-sync' | 'json-async',
  pkg = PACKAGE,
): Promise<Outcome> {
  const apk = { name: 'apk', filename: name, data: await fixture(name) };
  const sent =
    via === 'legacy-sync'
      ? postMultipart(
          `${stack.urls.admin}/apps/api_upload`,
          [{ name: 'apiKey', value: apiKey }, { name: 'current', value: 'true' }, apk],
          { ca: stack.ca },
        )
      : postMultipart(`${stack.urls.admin}/api/v2/apps/${pkg}/apks`, [apk], {
          ca: stack.ca,
          headers: { authorization: `Bearer ${apiKey}` },
        });
  // A reply that never comes is a failure to report, not a test that hangs until jest's timeout.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Outcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: 'unexpected', detail: `no reply to ${name} within ${REPLY_MS} ms` }),
      REPLY_MS,
    );
  });
  try {
    return await Promise.race([sent.then((reply) => classify(reply, via)), late]);
  } finally {
    clearTimeout(timer);
  }
}

test("Mongo's disk full: uploads get 503 + Retry-After, nothing half-stored; they work once space is freed", async () => {
  const { apiKey, id: accountId } = await newAccount(stack);
  expect(await upload(apiKey, 'version-1.apk', 'legacy-sync')).toEqual({
    kind: 'acknowledged-done',
  });
  const countsBefore = await storedCounts();

  const filled = await mongoDisk.fill();
  expect(filled).toBeGreaterThan(0);
  let whileFull: Outcome[];
  try {
    whileFull = [
      await upload(apiKey, 'version-2.apk', 'legacy-sync'),
      await upload(apiKey, 'large.apk', 'json-async', 'dev.apkrelay.large'),
    ];
  } finally {
    await mongoDisk.free();
  }
  const faultsInjected = 1;
  expect(whileFull).toEqual([
    { kind: 'retryable', retryAfter: '5' },
    { kind: 'retryable', retryAfter: '5' },
  ]);
  expect(await storedCounts()).toEqual(countsBefore);

  // Space is back: the same uploads succeed.
  const after = [
    await upload(apiKey, 'version-2.apk', 'legacy-sync'),
    await upload(apiKey, 'version-3.apk', 'json-async'),
  ];
  expect(after[0]).toEqual({ kind: 'acknowledged-done' });
  expect(after[1]).toMatchObject({ kind: 'acknowledged' });
  const ids = after.flatMap((o) => (o.kind === 'acknowledged' ? [o.upload.uploadId] : []));
  const statuses = await waitForVerdicts(stack.urls.admin, stack.ca, apiKey, ids, 60_000);
  const audit = await auditStorage(stack.mongo.db, accountId);
  const acknowledged = 3; // version-1 before the fault, both uploads after it
  const lost =
    acknowledged - audit.storedOnce.size + ids.filter((id) => statuses.get(id) !== 'done').length;
  recordFigures('faults:disk-full-mongo', {
    faultsInjected,
    acknowledgedItems: acknowledged,
    acknowledgedLost: lost,
  });
  expect(lost).toBe(0);
  expect(audit.problems).toEqual([]);
});

test("the worker's temporary disk full: an acknowledged upload is verified anyway, nothing left behind", async () => {
  const { apiKey, id: accountId } = await newAccount(stack);
  await tmpDisk.fill();
  let uploadId: string;
  let statuses: Map<string, string>;
  let leftWhileFull: string[];
  try {
    const outcome = await upload(apiKey, 'large.apk', 'json-async', 'dev.apkrelay.large');
    expect(outcome).toMatchObject({ kind: 'acknowledged' });
    uploadId = outcome.kind === 'acknowledged' ? outcome.upload.uploadId : '';
    // Decided while the disk is still full: the worker reads the ciphertext from storage.
    statuses = await waitForVerdicts(stack.urls.admin, stack.ca, apiKey, [uploadId], 60_000);
    leftWhileFull = await readdir(tmpDisk.dir);
  } finally {
    await tmpDisk.free();
  }
  const faultsInjected = 1;
  expect(leftWhileFull).toEqual(['filler']); // no partial copy left behind
  // Space is back: the usual path (a local copy) works, and cleans up after itself.
  expect(await upload(apiKey, 'version-1.apk', 'legacy-sync')).toEqual({
    kind: 'acknowledged-done',
  });
  expect(await readdir(tmpDisk.dir)).toEqual([]);

  const audit = await auditStorage(stack.mongo.db, accountId);
  const lost = statuses.get(uploadId) === 'done' && audit.storedOnce.has(uploadId) ? 0 : 1;
  recordFigures('faults:disk-full-worker-tmp', {
    faultsInjected,
    acknowledgedItems: 2,
    acknowledgedLost: lost + (audit.storedOnce.size === 2 ? 0 : 1),
  });
  expect(statuses.get(uploadId)).toBe('done');
  expect(lost).toBe(0);
  expect(audit.storedOnce.size).toBe(2);
  expect(audit.problems).toEqual([]);
});

async function storedCounts(): Promise<Record<string, number>> {
  const db = stack.mongo.db;
  const out: Record<string, number> = {};
  for (const name of ['uploads', 'apks', 'apks.files', 'apks.chunks']) {
    out[name] = await db.collection(name).countDocuments();
  }
  return out;
}
