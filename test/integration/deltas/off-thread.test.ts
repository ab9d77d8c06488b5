/**
 * The worker process keeps working while it makes a delta patch: over the real stack (API and
 * workers in this process, real Redis and FerretDB), a v2 of APKs built by aapt and signed by
 * apksigner, large enough that its ARDELTA1 takes seconds, is made current for a device running
 * v1; while the generation thread makes the ARDELTA1 (its ARDELTA2 decided, its own document not
 * yet written), an exception report sent by the device is taken, queued and stored by the same
 * process's `exception-ingest` worker, and the thread is still running when it is. The patch is
 * then published as usual. A generation whose signal is aborted while its thread runs (the job's
 * budget spent, the worker closing) rejects with the signal's reason, leaves no thread, and
 * publishes nothing of the pair: no document, no blob; the next try makes both formats.
 */
import { createHash } from 'node:crypto';
import { generationThreads } from '../../../shared/delta/build-off-thread';
import { catalogCollections } from '../../../shared/catalog/collections';
import { DELTA_BUCKET, deltaCollections } from '../../../shared/delta/collections';
import { generateDelta } from '../../../shared/delta/generate-delta';
import { newAccount } from '../../helpers/accounts';
import { compressedApk } from '../../helpers/apk/compressed-apk';
import { noise, words } from '../../helpers/delta';
import { generateDeltaDeps } from '../../helpers/delta-deps';
import { registerDevices } from '../../helpers/devices';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadApk } from '../../helpers/uploads';
import { stackTrace } from '../exceptions/fixtures';

jest.setTimeout(180_000);

const PKG = 'dev.apkrelay.busy';
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let stack: TestStack;
let account: { apiKey: string; id: string };
let v1: Buffer;
let v2: Buffer;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

test('an exception report is stored while the generation thread makes the patch', async () => {
  account = await newAccount(stack);
  const { apiKey, id: accountId } = account;
  const bulk = noise(4 << 20, 3);
  const changed = Buffer.concat([
    bulk.subarray(0, 3 << 20),
    noise(8192, 9),
    bulk.subarray(3 << 20),
  ]);
  v1 = await compressedApk(PKG, 1, { 'bulk.bin': bulk, 'data.txt': words(20_000) });
  v2 = await compressedApk(PKG, 2, { 'bulk.bin': changed, 'data.txt': words(21_000) });
  await uploadApk(stack, apiKey, { name: 'busy.apk', data: v1 });
  const device = { baseUrl: stack.urls.web, ca: stack.ca, apiKey, package: PKG };
  await registerDevices(device, ['till-1'], md5(v1));
  await uploadApk(stack, apiKey, { name: 'busy.apk', data: v2 });

  const pair = { accountId, fromMd5: md5(v1), toSha256: sha256(v2) };
  const deltas = deltaCollections(stack.mongo.db).deltas;
  await eventually('the ARDELTA1 thread at work', async () => {
    const decided = (await deltas.countDocuments({ ...pair, format: 2 })) === 1;
    return decided && generationThreads() === 1;
  });
  const reply = await request(`${stack.urls.web}/api/v2/exceptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    json: { package: PKG, hash: md5(v1), deviceId: 'till-1', stack: stackTrace('busy') },
    ca: stack.ca,
  });
  expect(reply.status).toBeLessThan(300);
  const exceptions = stack.mongo.db.collection('exceptions');
  await eventually(
    'the report stored',
    async () => (await exceptions.countDocuments({ accountId })) === 1,
  );
  // Stored while the thread still runs: the ARDELTA1 is neither made nor recorded yet.
  expect(generationThreads()).toBe(1);
  expect(await deltas.countDocuments({ ...pair, format: 1 })).toBe(0);

  const whole = await eventually('the ARDELTA1 document', () =>
    deltas.findOne({ ...pair, format: 1 }),
  );
  expect(whole.status).toBe('ready');
  expect(generationThreads()).toBe(0);
});

test('a generation aborted while its thread runs rejects and publishes nothing', async () => {
  const apks = catalogCollections(stack.mongo.db).apks;
  const [from, to] = [await apks.findOne({ md5: md5(v2) }), await apks.findOne({ md5: md5(v1) })];
  if (!from || !to) throw new Error('the first test stores v1 and v2');
  const deps = await generateDeltaDeps(stack);
  const abort = new AbortController();
  const reason = new Error('delta-generate job 7: no result within 1800000 ms');
  const outcome = generateDelta(deps, from, to, abort.signal).then(
    (status) => status,
    (err: unknown) => err,
  );
  await eventually('the generation thread', () => generationThreads() === 1, { intervalMs: 5 });
  abort.abort(reason);
  expect(await outcome).toBe(reason);
  expect(generationThreads()).toBe(0);
  const pair = { accountId: account.id, fromMd5: from.md5, toSha256: to.sha256 };
  const deltas = deltaCollections(stack.mongo.db).deltas;
  expect(await deltas.countDocuments(pair)).toBe(0);
  const blobs = stack.mongo.db.collection(`${DELTA_BUCKET}.files`);
  const key = `${account.id}/${PKG}/${from.md5}/${to.sha256}`;
  expect(await blobs.countDocuments({ 'metadata.pair': key })).toBe(0);
  // The retry makes the pair as if nothing had happened.
  expect(await generateDelta(deps, from, to)).toBe('ready');
  expect(await deltas.countDocuments(pair)).toBe(2);
});
