/**
 * `GET /download/delta` over real HTTPS: a device on v1 (aapt-built, apksigner-signed) gets the
 * worker's patch to v2, applies it to its v1 and has v2 byte for byte; the headers of the
 * contract; Range; the download counted on the installation; `Delta not available.` for a pair
 * with no patch; another account never gets A’s patch; malformed hashes are a 400; a client that
 * names no formats never gets an ARDELTA2.
 */
import { createHash } from 'node:crypto';
import { DELTA_BUCKET, deltaCollections } from '../../../shared/delta/collections';
import { storeSealed } from '../../../shared/delta/stored-blob';
import { createKeyRing } from '../../../shared/crypto/keys';
import { loadPinnedKeys } from '../../../shared/crypto/pinned-keys';
import { gridFsBlobStore } from '../../../shared/storage/blob-store';
import { inflatePatch } from '../../../device-client/node/inflater';
import { newAccount } from '../../helpers/accounts';
import { applyInMemory, applyInMemory2, chunked } from '../../helpers/delta';
import { registerDevices } from '../../helpers/devices';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';

let stack: TestStack;
let a: { apiKey: string; id: string };
let b: { apiKey: string; id: string };
let v1: Buffer;
let v2: Buffer;
const md5 = (x: Buffer) => createHash('md5').update(x).digest('hex');
const sha256 = (x: Buffer) => createHash('sha256').update(x).digest('hex');
const PKG = 'dev.apkrelay.sample';

beforeAll(async () => {
  // With the memory of decrypted APKs on, as deployed (DOWNLOAD_MEMORY_MB defaults to 512): a
  // patch must never be looked up there (its blob is in the `deltas` bucket, not the APKs').
  stack = await startStack({ downloadMemoryBytes: 64 * 1024 * 1024 });
  [v1, v2] = [await fixture('version-1.apk'), await fixture('version-2.apk')];
  [a, b] = [await newAccount(stack), await newAccount(stack)];
  for (const account of [a, b]) {
    await uploadFixture(stack, account.apiKey, 'version-1.apk');
    const target = { baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, package: PKG };
    await registerDevices(target, ['till-1'], md5(v1));
  }
  await uploadFixture(stack, a.apiKey, 'version-2.apk');
  // Both formats: ARDELTA2 is made first, and a client asking for ARDELTA1 alone is told "not
  // ready yet" until its own patch is.
  for (const format of [2, 1] as const) {
    await eventually(`A’s v1 → v2 patch, format ${format}`, () =>
      deltaCollections(stack.mongo.db).deltas.findOne({ accountId: a.id, status: 'ready', format }),
    );
  }
});
afterAll(() => stack.close());

function get(query: Record<string, string>, headers: Record<string, string> = {}) {
  const url = `${stack.urls.web}/download/delta?${new URLSearchParams(query).toString()}`;
  return request(url, { headers, ca: stack.ca });
}
const ask = (key: string, extra: Record<string, string> = {}) => ({
  package: PKG,
  api_key: key,
  deviceId: 'till-1',
  from: md5(v1),
  to: sha256(v2),
  ...extra,
});

test('a device on v1 gets the patch; applied to v1 it is v2, byte for byte', async () => {
  const reply = await get(ask(a.apiKey));
  expect(reply.status).toBe(200);
  expect(reply.headers['content-type']).toBe('application/vnd.apkrelay.delta');
  expect(reply.headers['content-length']).toBe(String(reply.body.length));
  expect(reply.headers['etag']).toBe(`"${sha256(reply.body)}"`);
  expect(reply.headers['x-apkrelay-delta-from']).toBe(md5(v1));
  expect(reply.headers['x-apkrelay-delta-to']).toBe(sha256(v2));
  expect(reply.headers['accept-ranges']).toBe('bytes');
  expect(reply.headers['x-apkrelay-delta-format']).toBe('1');
  expect(reply.body.length).toBeLessThan(v2.length);
  const applied = await applyInMemory(inflatePatch(chunked(reply.body, 4096)), v1);
  expect(applied.sha256).toBe(sha256(v2));
  expect(applied.bytes.equals(v2)).toBe(true);
});

test('Range: a resumed patch download reassembles to the same bytes', async () => {
  const whole = (await get(ask(a.apiKey))).body;
  const tail = await get(ask(a.apiKey), { range: 'bytes=100-', 'if-range': `"${sha256(whole)}"` });
  expect(tail.status).toBe(206);
  expect(tail.headers['content-range']).toBe(`bytes 100-${whole.length - 1}/${whole.length}`);
  expect(Buffer.concat([whole.subarray(0, 100), tail.body]).equals(whole)).toBe(true);
});

test('the patch counts as the download of v2 on the installation', async () => {
  const query = new URLSearchParams({ packageName: PKG, apiKey: a.apiKey, deviceId: 'till-1' });
  const reply = await request(`${stack.urls.web}/apps/api_list_json?${query.toString()}`, {
    ca: stack.ca,
  });
  expect(reply.status).toBe(200);
  const listing = reply.json<{ installation: { lastDownloadedHash: string | null } }>();
  expect(listing.installation.lastDownloadedHash).toBe(md5(v2));
});

test('no patch for the pair: 404 Delta not available.', async () => {
  const reply = await get(ask(a.apiKey, { from: 'f'.repeat(32) }));
  expect(reply.status).toBe(404);
  expect(reply.headers['content-type']).toMatch(/^text\/plain/);
  expect(reply.text).toBe('Delta not available.');
});

test('another account never gets A’s patch, even for the same package and hashes', async () => {
  const reply = await get(ask(b.apiKey));
  expect(reply.status).toBe(404);
  expect(reply.text).toBe('Delta not available.');
  const wrongKey = await get(ask('k'.repeat(32)));
  expect(wrongKey.status).toBe(401);
  expect(wrongKey.text).toBe('Download failed: Invalid API Key.');
});

test('malformed hashes: 400', async () => {
  const bads: Record<string, string>[] = [
    { from: 'xyz' },
    { to: md5(v2) },
    { from: md5(v1).toUpperCase() },
  ];
  for (const bad of bads) {
    const reply = await get(ask(a.apiKey, bad));
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(
      'Download failed: from must be an MD5 and to a SHA-256 (lower-case hex).',
    );
  }
});

test("formats=2,1 gets the real pair's ARDELTA2 (smaller), which applied to v1 is v2", async () => {
  const byFile = await eventually('A’s v1 → v2 ARDELTA2', () =>
    deltaCollections(stack.mongo.db).deltas.findOne({
      accountId: a.id,
      format: 2,
      status: 'ready',
    }),
  );
  const reply = await get(ask(a.apiKey, { formats: '2,1' }));
  expect(reply.status).toBe(200);
  expect(reply.headers['x-apkrelay-delta-format']).toBe('2');
  expect(reply.headers['etag']).toBe(`"${byFile.sha256}"`);
  const applied = await applyInMemory2(inflatePatch(chunked(reply.body, 4096)), v1);
  expect(applied.bytes.equals(v2)).toBe(true);
});

test('formats=1 is what a client without the parameter gets: the ARDELTA1 patch', async () => {
  const reply = await get(ask(a.apiKey, { formats: '1' }));
  expect(reply.status).toBe(200);
  expect(reply.headers['x-apkrelay-delta-format']).toBe('1');
  const applied = await applyInMemory(inflatePatch(chunked(reply.body, 4096)), v1);
  expect(applied.bytes.equals(v2)).toBe(true);
});

test('a pair with only an ARDELTA2 patch: served to clients that accept 2, not to others', async () => {
  // A stored format-2 document written by hand (the generator of format 2 is not this test's):
  // its bytes are served as stored, whatever they are.
  const from = 'e'.repeat(32);
  const bytes = Buffer.from('an ARDELTA2 patch, as stored');
  const keys = await loadPinnedKeys(stack.mongo.db, createKeyRing(stack.masterKey, []));
  const blobs = gridFsBlobStore(stack.mongo.db, DELTA_BUCKET);
  const sealed = await storeSealed(blobs, keys, bytes, { pair: `${a.id}/${PKG}/${from}` });
  const ready = await deltaCollections(stack.mongo.db).deltas.findOne({ accountId: a.id });
  const { _id: _ignored, ...copy } = ready!;
  await stack.mongo.db.collection('deltas').insertOne({
    ...copy,
    fromMd5: from,
    format: 2,
    size: bytes.length,
    sha256: sha256(bytes),
    ...sealed,
  });
  for (const formats of [undefined, '1']) {
    const reply = await get(ask(a.apiKey, { from, ...(formats ? { formats } : {}) }));
    expect(reply.status).toBe(404);
    expect(reply.text).toBe('Delta not available.');
  }
  for (const formats of ['2,1', '2', '1,2', '3,2']) {
    const reply = await get(ask(a.apiKey, { from, formats }));
    expect(reply.status).toBe(200);
    expect(reply.headers['x-apkrelay-delta-format']).toBe('2');
    expect(reply.headers['etag']).toBe(`"${sha256(bytes)}"`);
    expect(reply.body.equals(bytes)).toBe(true);
  }
});

test('malformed or unknown formats: 400 with the contract text', async () => {
  const url = (formats: string) =>
    `${stack.urls.web}/download/delta?${new URLSearchParams(ask(a.apiKey)).toString()}&${formats}`;
  for (const formats of ['formats=', 'formats=3', 'formats=2,', 'formats=one', 'formats=1;2']) {
    const reply = await request(url(formats), { ca: stack.ca });
    expect(reply.status).toBe(400);
    expect(reply.headers['content-type']).toMatch(/^text\/plain/);
    expect(reply.text).toBe(
      'Download failed: formats must be a comma-separated list of patch formats (1, 2).',
    );
  }
  const twice = await request(url('formats=1&formats=2'), { ca: stack.ca });
  expect(twice.status).toBe(400);
});
