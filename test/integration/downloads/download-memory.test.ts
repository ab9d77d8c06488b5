/**
 * `GET /download` served from the memory of decrypted APKs (DOWNLOAD_MEMORY_MB): the same bytes
 * and headers as ever, ranges as slices, and a tampered stored segment anywhere in the APK fails
 * even a range far from it, with no APK byte sent.
 */
import { createHash } from 'node:crypto';
import { newAccount } from '../../helpers/accounts';
import { request } from '../../helpers/http';
import { fixture, uploadFixture } from '../../helpers/uploads';
import { startStack, type TestStack } from '../../helpers/stack';

let stack: TestStack;
let large: Buffer;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  stack = await startStack({ downloadMemoryBytes: 64 * 1024 ** 2 });
  large = await fixture('large.apk');
});
afterAll(() => stack.close());

const get = (key: string, headers: Record<string, string> = {}) =>
  request(
    `${stack.urls.web}/download?package=dev.apkrelay.large&api_key=${encodeURIComponent(key)}`,
    { headers, ca: stack.ca },
  );

test('whole and ranged downloads from memory: identical bytes, exact headers', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'large.apk');
  const whole = await get(apiKey);
  expect(whole.status).toBe(200);
  expect(sha256(whole.body)).toBe(sha256(large));
  expect(whole.headers['content-length']).toBe(String(large.length));
  expect(whole.headers['etag']).toBe(`"${sha256(large)}"`);
  for (const [start, end] of [
    [0, 0],
    [65_535, 65_536],
    [100_000, 300_000],
    [large.length - 1, large.length - 1],
  ] as const) {
    const part = await get(apiKey, { range: `bytes=${start}-${end}` });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes ${start}-${end}/${large.length}`);
    expect(part.body.equals(large.subarray(start, end + 1))).toBe(true);
  }
});

test('a tampered last segment fails a range of the first bytes: no APK byte is sent', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'large.apk');
  const apk = await stack.mongo.db.collection('apks').findOne({ accountId: id });
  const chunks = stack.mongo.db.collection('apks.chunks');
  // The last cipher segment of large.apk starts at 4 x 65,552 (5 segments); all in chunk 0.
  const chunk = await chunks.findOne({ files_id: apk!.blobId as never, n: 0 });
  const data = Buffer.from((chunk!.data as { buffer: Uint8Array }).buffer);
  data[4 * 65_552 + 3]! ^= 0x01;
  await chunks.updateOne({ _id: chunk!._id }, { $set: { data } });
  const outcome = await get(apiKey, { range: 'bytes=0-99' }).then(
    (r) => ({ length: r.body.length }),
    () => ({ length: -1 }),
  );
  expect(outcome.length).toBeLessThanOrEqual(0);
});
