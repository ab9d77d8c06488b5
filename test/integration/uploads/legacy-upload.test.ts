/**
 * `POST /apps/api_upload` as PushLink upload clients use it: every reply text of the spec from the
 * matching condition, over HTTPS, with exact status, Content-Type and Content-Length.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type ObjectId } from 'mongodb';
import { newAccount } from '../../helpers/accounts';
import { postMultipart, type Part } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';
import { request, type Reply } from '../../helpers/http';

const fixtures = path.resolve(__dirname, '../../fixtures/apks');
const apk = (name: string) => readFile(path.join(fixtures, name));

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ maxApkBytes: 256 * 1024 });
});
afterAll(() => stack.close());

function upload(parts: Part[], options: { chunked?: boolean } = {}): Promise<Reply> {
  return postMultipart(`${stack.urls.admin}/apps/api_upload`, parts, { ca: stack.ca, ...options });
}

async function uploadFile(apiKey: string, file: string, extra: Part[] = []): Promise<Reply> {
  return upload([
    { name: 'apiKey', value: apiKey },
    { name: 'apk', filename: file, data: await apk(file) },
    ...extra,
  ]);
}

function expectText(reply: Reply, status: number, text: string): void {
  expect({ status: reply.status, text: reply.text }).toEqual({ status, text });
  expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(text)));
  expect(reply.headers['transfer-encoding']).toBeUndefined();
  expect(reply.headers['content-encoding']).toBeUndefined();
}

test('a valid APK: 200 "deploy successful"; the same bytes again: 409 duplicate', async () => {
  const { apiKey } = await newAccount(stack);
  expectText(await uploadFile(apiKey, 'version-1.apk'), 200, 'deploy successful');
  expectText(
    await uploadFile(apiKey, 'version-1.apk'),
    409,
    'deploy fails, this APK hash is the same of another APK uploaded',
  );
  expect(
    await stack.mongo.db.collection('apks').countDocuments({ package: 'dev.apkrelay.sample' }),
  ).toBe(1);
});

test('a wrong API key: 401 "deploy fails, Invalid Api Key", and nothing stored', async () => {
  const before = await stack.mongo.db.collection('apks.files').countDocuments();
  expectText(
    await uploadFile(`ak_${'Z'.repeat(32)}`, 'version-2.apk'),
    401,
    'deploy fails, Invalid Api Key',
  );
  expectText(await uploadFile('nonsense', 'version-2.apk'), 401, 'deploy fails, Invalid Api Key');
  expect(await stack.mongo.db.collection('apks.files').countDocuments()).toBe(before);
});

test.each([
  'unsigned.apk',
  'truncated.apk',
  'not-a-zip.apk',
  'empty.apk',
  'tampered-after-signing.apk',
  'test-only.apk',
  'targetsdk30-v1-only.apk',
])('%s: 422 "deploy fails, Invalid APK file", nothing kept', async (file) => {
  const { apiKey, id } = await newAccount(stack);
  expectText(await uploadFile(apiKey, file), 422, 'deploy fails, Invalid APK file');
  expect(await stack.mongo.db.collection('apks').countDocuments({ accountId: id })).toBe(0);
  const uploads = await stack.mongo.db.collection('uploads').find({ accountId: id }).toArray();
  expect(uploads.map((u) => u.status as string)).toEqual(['failed']);
  const blobIds = uploads.map((u) => u._id);
  expect(
    await stack.mongo.db.collection('apks.files').countDocuments({ _id: { $in: blobIds } }),
  ).toBe(0);
});

test('a debuggable build is accepted and flagged', async () => {
  const { apiKey, id } = await newAccount(stack);
  expectText(await uploadFile(apiKey, 'debuggable.apk'), 200, 'deploy successful');
  const doc = await stack.mongo.db.collection('apks').findOne({ accountId: id });
  expect(doc?.debuggable).toBe(true);
});

test('another signer for the same app: 409 "deploy fails, APK signer does not match this app\'s signer"', async () => {
  const { apiKey } = await newAccount(stack);
  expectText(await uploadFile(apiKey, 'version-1.apk'), 200, 'deploy successful');
  expectText(
    await uploadFile(apiKey, 'second-signer.apk'),
    409,
    "deploy fails, APK signer does not match this app's signer",
  );
});

test('a v3 lineage proving rotation from the app signer is accepted, and the app follows the new signer', async () => {
  const { apiKey, id } = await newAccount(stack);
  expectText(
    await uploadFile(apiKey, 'rotated-v3-lineage-old-signer.apk'),
    200,
    'deploy successful',
  );
  const before = await stack.mongo.db.collection('apps').findOne({ accountId: id });
  expectText(await uploadFile(apiKey, 'rotated-v3-lineage.apk'), 200, 'deploy successful');
  const after = await stack.mongo.db.collection('apps').findOne({ accountId: id });
  expect(after?.signerSha256).not.toBe(before?.signerSha256);
  const rotated = await stack.mongo.db
    .collection('apks')
    .findOne({ accountId: id, versionCode: 2 });
  expect(rotated?.lineage).toEqual([before?.signerSha256, after?.signerSha256]);
});

test('the same package from another account is a separate app', async () => {
  const a = await newAccount(stack);
  const b = await newAccount(stack);
  expectText(await uploadFile(a.apiKey, 'other-package.apk'), 200, 'deploy successful');
  expectText(await uploadFile(b.apiKey, 'other-package.apk'), 200, 'deploy successful');
  const apps = await stack.mongo.db
    .collection('apps')
    .find({ package: 'dev.apkrelay.other' })
    .toArray();
  expect(apps.map((x) => x.accountId as string).sort()).toEqual([a.id, b.id].sort());
});

test('fields in any order, chunked transfer, current=true and whatsnew', async () => {
  const { apiKey, id } = await newAccount(stack);
  const reply = await upload(
    [
      { name: 'whatsnew', value: 'Faster start-up ✓' },
      { name: 'apk', filename: 'v3.apk', data: await apk('version-3.apk') },
      { name: 'unknown', value: 'ignored' },
      { name: 'current', value: 'true' },
      { name: 'apiKey', value: apiKey },
    ],
    { chunked: true },
  );
  expectText(reply, 200, 'deploy successful');
  const stored = await stack.mongo.db.collection('apks').findOne({ accountId: id });
  expect(stored).toMatchObject({
    versionCode: 3,
    versionName: '3.0',
    whatsnew: 'Faster start-up ✓',
  });
  expect(stored?.md5).toMatch(/^[0-9a-f]{32}$/);
  const app = await stack.mongo.db
    .collection<{ currentApkId: ObjectId | null }>('apps')
    .findOne({ accountId: id });
  expect(app?.currentApkId?.toHexString()).toBe(stored?._id.toHexString());
});

test('without current=true the APK is stored but not current', async () => {
  const { apiKey, id } = await newAccount(stack);
  expectText(await uploadFile(apiKey, 'signed-v1v2v3.apk'), 200, 'deploy successful');
  const app = await stack.mongo.db.collection('apps').findOne({ accountId: id });
  expect(app?.currentApkId).toBeNull();
});

test('an APK above MAX_APK_BYTES: 413 with a clear text; no blob left', async () => {
  const { apiKey } = await newAccount(stack);
  const before = await stack.mongo.db.collection('apks.files').countDocuments();
  const big = Buffer.concat([await apk('version-1.apk'), Buffer.alloc(300 * 1024)]);
  const reply = await upload([
    { name: 'apiKey', value: apiKey },
    { name: 'apk', filename: 'big.apk', data: big },
  ]);
  expectText(reply, 413, `deploy fails, APK file larger than ${256 * 1024} bytes`);
  expect(await stack.mongo.db.collection('apks.files').countDocuments()).toBe(before);
});

test('no apk part: 422; not multipart: 400 with a text reply', async () => {
  const { apiKey } = await newAccount(stack);
  expectText(
    await upload([{ name: 'apiKey', value: apiKey }]),
    422,
    'deploy fails, Invalid APK file',
  );
  const reply = await request(`${stack.urls.admin}/apps/api_upload`, {
    method: 'POST',
    json: { apiKey },
    ca: stack.ca,
  });
  expect(reply.status).toBe(400);
  expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
});

test('GridFS holds only ciphertext: no 64-byte window of the APK in any chunk', async () => {
  const { apiKey, id } = await newAccount(stack);
  const bytes = await apk('signed-v1v2v3.apk');
  await uploadFile(apiKey, 'version-2.apk');
  expectText(await uploadFile(apiKey, 'signed-v1v2v3.apk'), 200, 'deploy successful');
  const record = await stack.mongo.db
    .collection('apks')
    .findOne({ accountId: id, package: 'dev.apkrelay.fixture' });
  const chunks = await stack.mongo.db
    .collection('apks.chunks')
    .find({ files_id: record!.blobId as never })
    .toArray();
  expect(chunks.length).toBeGreaterThan(0);
  const stored = Buffer.concat(
    chunks.map((c) => Buffer.from((c.data as { buffer: Uint8Array }).buffer)),
  );
  expect(stored.length).toBeGreaterThan(bytes.length);
  for (let i = 0; i + 64 <= bytes.length; i += 16) {
    if (stored.includes(bytes.subarray(i, i + 64)))
      throw new Error(`plaintext window at ${i} found in GridFS`);
  }
});
