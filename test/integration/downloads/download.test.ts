/**
 * `GET /download` on both hosts: byte-identical, exact headers, any Range split reassembles to
 * the same bytes, and no APK byte for a wrong key, another account or an unknown package.
 */
import { installationId } from '../../../shared/devices/installations';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request, type Reply } from '../../helpers/http';
import { fixture, uploadFixture } from '../../helpers/uploads';
import { startStack, type TestStack } from '../../helpers/stack';

let stack: TestStack;
let apiKey: string;
let large: Buffer;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  stack = await startStack();
  ({ apiKey } = await newAccount(stack));
  await uploadFixture(stack, apiKey, 'large.apk');
  large = await fixture('large.apk');
});
afterAll(() => stack.close());

const get = (host: 'admin' | 'web', query: string, headers: Record<string, string> = {}) =>
  request(`${stack.urls[host]}/download?${query}`, { headers, ca: stack.ca });
const q = (key = apiKey, pkg = 'dev.apkrelay.large') =>
  `package=${encodeURIComponent(pkg)}&api_key=${encodeURIComponent(key)}`;

test.each(['admin', 'web'] as const)(
  'the %s host serves the current APK byte-identical with the exact headers',
  async (host) => {
    const reply = await get(host, q());
    expect(reply.status).toBe(200);
    expect(sha256(reply.body)).toBe(sha256(large));
    expect(reply.headers['content-type']).toBe('application/vnd.android.package-archive');
    expect(reply.headers['content-length']).toBe(String(large.length));
    // RFC 6266: a quoted ASCII filename and the RFC 8187 (UTF-8, percent-encoded) one.
    expect(reply.headers['content-disposition']).toBe('attachment;filename=dev.apkrelay.large.apk');
    expect(reply.headers['etag']).toBe(`"${sha256(large)}"`);
    expect(reply.headers['accept-ranges']).toBe('bytes');
    expect(reply.headers['content-encoding']).toBeUndefined();
  },
);

test('PushLink client parameters are accepted (empty values count as absent)', async () => {
  const reply = await get(
    'admin',
    `${q()}&hash=&pid=123&deviceId=&plVersion=5.6.0&androidId=abc&lastDownloadHash=`,
  );
  expect(reply.status).toBe(200);
  expect(sha256(reply.body)).toBe(sha256(large));
});

test('any split into Range requests reassembles to the identical bytes', async () => {
  const size = large.length;
  const cuts = [0, 1, 65_535, 65_536, 65_537, 100_000, 131_072, 200_003, size - 1, size];
  const parts: Buffer[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [start, end] = [cuts[i]!, cuts[i + 1]! - 1];
    const reply = await get('web', q(), { range: `bytes=${start}-${end}` });
    expect(reply.status).toBe(206);
    expect(reply.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
    expect(reply.headers['content-length']).toBe(String(end - start + 1));
    parts.push(reply.body);
  }
  expect(sha256(Buffer.concat(parts))).toBe(sha256(large));
  // Open-ended resume from the middle of a segment.
  const tail = await get('admin', q(), { range: 'bytes=150000-' });
  expect(tail.status).toBe(206);
  expect(tail.body.equals(large.subarray(150_000))).toBe(true);
});

test('a resume at the exact size gets an empty APK-typed body; beyond it or several ranges: 416', async () => {
  const done = await get('admin', q(), { range: `bytes=${large.length}-` });
  expect(done.status).toBe(200);
  expect(done.body.length).toBe(0);
  expect(done.headers['content-type']).toBe('application/vnd.android.package-archive');
  expect(done.headers['content-length']).toBe('0');
  expect((await get('admin', q(), { range: `bytes=${large.length + 5}-` })).status).toBe(416);
  expect((await get('admin', q(), { range: 'bytes=0-1,5-9' })).status).toBe(416);
});

function expectRefusal(reply: Reply, status: number): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(reply.body.length).toBeLessThan(200);
  expect(reply.body.includes(large.subarray(0, 4))).toBe(false); // no "PK\3\4"
}

test('wrong key, another account, unknown package: short text, 4xx, no APK bytes', async () => {
  const other = await newAccount(stack);
  expectRefusal(await get('admin', q(`ak_${'x'.repeat(32)}`)), 401);
  expectRefusal(await get('admin', 'package=dev.apkrelay.large'), 401);
  expectRefusal(await get('web', q(other.apiKey)), 404);
  expectRefusal(await get('admin', q(apiKey, 'dev.apkrelay.nothing')), 404);
});

test('an app without a current APK: 404 text', async () => {
  const { apiKey: key } = await newAccount(stack);
  await uploadFixture(stack, key, 'other-package.apk', { current: false });
  expectRefusal(await get('admin', q(key, 'dev.apkrelay.other')), 404);
});

test('with a deviceId the download is recorded; a disabled installation gets no APK', async () => {
  const { apiKey: key, id } = await newAccount(stack);
  await uploadFixture(stack, key, 'version-1.apk');
  const installations = stack.mongo.db.collection('installations');
  // 'on' registers as a device does (and takes a seat); 'off' holds none.
  const target = {
    baseUrl: stack.urls.web,
    ca: stack.ca,
    apiKey: key,
    package: 'dev.apkrelay.sample',
  };
  expect(await registerDevices(target, ['on'])).toEqual(['enabled']);
  await installations.insertOne({
    _id: installationId(id, 'dev.apkrelay.sample', 'off'),
    accountId: id,
    package: 'dev.apkrelay.sample',
    deviceId: 'off',
    status: 'disabled',
    lastDownloadedMd5: null,
    lastSeenAt: new Date(),
  });
  const ok = await get('admin', `${q(key, 'dev.apkrelay.sample')}&deviceId=on`);
  expect(ok.status).toBe(200);
  const md5 = createHash('md5').update(ok.body).digest('hex');
  expect(await installations.findOne({ deviceId: 'on' })).toMatchObject({ lastDownloadedMd5: md5 });
  expectRefusal(await get('admin', `${q(key, 'dev.apkrelay.sample')}&deviceId=off`), 403);
});

test('a tampered stored segment ends the download with an error, never with forged bytes', async () => {
  const { apiKey: key, id } = await newAccount(stack);
  await uploadFixture(stack, key, 'large.apk');
  const apk = await stack.mongo.db.collection('apks').findOne({ accountId: id });
  // Byte 10 of the third cipher segment (64 KiB + 16), in whichever chunk the file's chunk size
  // puts it.
  const file = await stack.mongo.db.collection('apks.files').findOne({ _id: apk!.blobId as never });
  const offset = 2 * 65_552 + 10;
  const chunkSize = file!.chunkSize as number;
  const chunks = stack.mongo.db.collection('apks.chunks');
  const n = Math.floor(offset / chunkSize);
  const chunk = await chunks.findOne({ files_id: apk!.blobId as never, n });
  const data = Buffer.from((chunk!.data as { buffer: Uint8Array }).buffer);
  data[offset % chunkSize]! ^= 0xff;
  await chunks.updateOne({ _id: chunk!._id }, { $set: { data } });
  const broken = request(`${stack.urls.admin}/download?${q(key)}`, { ca: stack.ca });
  const outcome = await broken.then(
    (r) => ({
      complete: r.body.length === large.length && sha256(r.body) === sha256(large),
      length: r.body.length,
    }),
    () => ({ complete: false, length: -1 }),
  );
  expect(outcome.complete).toBe(false);
  // Bytes before the tampered segment may have been sent; none after it.
  expect(outcome.length).toBeLessThanOrEqual(2 * 65_536);
});

test('downloads after the first read the local ciphertext copy, still authenticated; a damaged copy is dropped', async () => {
  const { apiKey: key, id } = await newAccount(stack);
  await uploadFixture(stack, key, 'large.apk');
  const apk = await stack.mongo.db.collection('apks').findOne({ accountId: id });
  const first = await request(`${stack.urls.admin}/download?${q(key)}`, { ca: stack.ca });
  expect(sha256(first.body)).toBe(sha256(large));
  const copy = path.join(stack.dataDir, 'cache', 'apks', apk!.blobId as string);
  const cipher = await readFile(copy);
  cipher[2 * 65_552 + 10]! ^= 0xff; // inside the third cipher segment
  await writeFile(copy, cipher);
  const outcome = await request(`${stack.urls.admin}/download?${q(key)}`, { ca: stack.ca }).then(
    (r) => ({ complete: sha256(r.body) === sha256(large), length: r.body.length }),
    () => ({ complete: false, length: -1 }),
  );
  // GridFS is intact, so a failure shows the copy was read; and no forged byte was sent.
  expect(outcome.complete).toBe(false);
  expect(outcome.length).toBeLessThanOrEqual(2 * 65_536);
  // The damaged copy was dropped: the next download copies again from GridFS and completes.
  const again = await request(`${stack.urls.admin}/download?${q(key)}`, { ca: stack.ca });
  expect(sha256(again.body)).toBe(sha256(large));
  expect((await readFile(copy)).equals(cipher)).toBe(false);
});

test('an installation its owner disables gets no APK from the next request on, and gets it again once enabled', async () => {
  const { apiKey: key, id: accountId } = await newAccount(stack);
  await uploadFixture(stack, key, 'version-1.apk');
  const pkg = 'dev.apkrelay.sample';
  const auth = { authorization: `Bearer ${key}` };
  const registered = await request(`${stack.urls.push}/api/v2/installations`, {
    method: 'POST',
    headers: auth,
    json: { package: pkg, deviceId: 'toggled' },
    ca: stack.ca,
  });
  expect(registered.status).toBe(200);
  const download = () => get('web', `${q(key, pkg)}&deviceId=toggled`);
  const setStatus = (status: string) =>
    request(`${stack.urls.admin}/api/v2/apps/${pkg}/installations/toggled`, {
      method: 'PUT',
      headers: auth,
      json: { status },
      ca: stack.ca,
    });
  expect((await download()).status).toBe(200);
  // The funnel is written once per APK: a repeat (or a resume) writes nothing.
  const doc = () =>
    stack.mongo.db
      .collection('installations')
      .findOne({ _id: installationId(accountId, pkg, 'toggled') });
  const first = await doc();
  expect(first?.lastDownloadedMd5).toMatch(/^[0-9a-f]{32}$/);
  expect((await download()).status).toBe(200);
  expect((await doc())!.lastDownloadAt).toEqual(first!.lastDownloadAt);
  expect((await setStatus('disabled')).status).toBe(200);
  expectRefusal(await download(), 403);
  expect((await setStatus('enabled')).status).toBe(200);
  expect((await download()).status).toBe(200);
});
