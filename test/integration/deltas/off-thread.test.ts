/**
 * The worker process keeps working while it makes a delta patch: over the real stack (API and
 * workers in this process, real Redis and FerretDB), a v2 of APKs built by aapt and signed by
 * apksigner, large enough that its ARDELTA1 takes seconds, is made current for a device running
 * v1; while the generation thread makes the ARDELTA1 (its ARDELTA2 decided, its own document not
 * yet written), an exception report sent by the device is taken, queued and stored by the same
 * process's `exception-ingest` worker, and the thread is still running when it is. The patch is
 * then published as usual.
 */
import { createHash } from 'node:crypto';
import { generationThreads } from '../../../shared/delta/build-off-thread';
import { deltaCollections } from '../../../shared/delta/collections';
import { newAccount } from '../../helpers/accounts';
import { compressedApk } from '../../helpers/apk/compressed-apk';
import { noise, words } from '../../helpers/delta';
import { registerDevices } from '../../helpers/devices';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';
import { stackTrace } from '../exceptions/fixtures';

jest.setTimeout(180_000);

const PKG = 'dev.apkrelay.busy';
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

async function upload(apiKey: string, apk: Buffer): Promise<void> {
  const reply = await postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: apiKey },
      { name: 'current', value: 'true' },
      { name: 'apk', filename: 'busy.apk', data: apk },
    ],
    { ca: stack.ca },
  );
  if (reply.text !== 'deploy successful') throw new Error(`upload: ${reply.status} ${reply.text}`);
}

test('an exception report is stored while the generation thread makes the patch', async () => {
  const { apiKey, id: accountId } = await newAccount(stack);
  const bulk = noise(6 << 20, 3);
  const changed = Buffer.concat([
    bulk.subarray(0, 3 << 20),
    noise(8192, 9),
    bulk.subarray(3 << 20),
  ]);
  const v1 = await compressedApk(PKG, 1, { 'bulk.bin': bulk, 'data.txt': words(20_000) });
  const v2 = await compressedApk(PKG, 2, { 'bulk.bin': changed, 'data.txt': words(21_000) });
  await upload(apiKey, v1);
  const device = { baseUrl: stack.urls.web, ca: stack.ca, apiKey, package: PKG };
  await registerDevices(device, ['till-1'], md5(v1));
  await upload(apiKey, v2);

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
