/**
 * Hashed download links (no credential; expiry, revocation, use limit; QR codes), the
 * `api_list_json` metadata and setting the current APK through the JSON API.
 */
import { createHash } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { eventually } from '../../helpers/eventually';
import { newAccount } from '../../helpers/accounts';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';

let stack: TestStack;
let clock = Date.parse('2026-11-21T12:00:00Z');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  stack = await startStack({ now: () => new Date(clock) });
});
afterAll(() => stack.close());

const api = (path: string, apiKey: string, init: { method?: string; json?: unknown } = {}) =>
  request(`${stack.urls.admin}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });

interface Link {
  id: string;
  url: string;
  qrSvgUrl: string;
  qrPngUrl: string;
  expiresAt: string;
  apk: { sha256: string; versionCode: number };
}

test('a link downloads without credentials until it expires, and never carries the API key', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const created = await api('/api/v2/apps/dev.apkrelay.sample/download-links', apiKey, {
    method: 'POST',
    json: { ttlSeconds: 3600 },
  });
  expect(created.status).toBe(201);
  const link = created.json<Link>();
  expect(link.url.startsWith(`${stack.urls.web}/d/`)).toBe(true);
  expect(link.url).not.toContain(apiKey);
  expect(link.url).not.toContain(apiKey.slice(3, 12));
  expect(link.expiresAt).toBe(new Date(clock + 3600_000).toISOString());

  const got = await request(link.url, { ca: stack.ca });
  expect(got.status).toBe(200);
  expect(sha256(got.body)).toBe(sha256(await fixture('version-1.apk')));
  expect(got.headers['content-disposition']).toBe('attachment;filename=dev.apkrelay.sample.apk');

  const svg = await request(link.qrSvgUrl, { ca: stack.ca });
  expect(svg.status).toBe(200);
  expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
  expect(svg.text).toContain('<svg');
  const png = await request(link.qrPngUrl, { ca: stack.ca });
  expect(png.headers['content-type']).toBe('image/png');
  expect(png.body.subarray(1, 4).toString()).toBe('PNG');

  clock += 3600_000 + 1;
  const expired = await request(link.url, { ca: stack.ca });
  expect(expired.status).toBe(410);
  expect(expired.text).toMatch(/expired/);
  expect((await request(link.qrSvgUrl, { ca: stack.ca })).status).toBe(410);
});

test('a revoked link answers 410; unknown or altered tokens 404; others cannot revoke it', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-2.apk');
  const link = (
    await api('/api/v2/apps/dev.apkrelay.sample/download-links', apiKey, {
      method: 'POST',
      json: { ttlSeconds: 600 },
    })
  ).json<Link>();
  const token = link.url.slice(link.url.lastIndexOf('/') + 1);
  for (let i = 0; i < token.length; i++) {
    if (token[i] === '.') continue;
    const altered = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    expect((await request(`${stack.urls.web}/d/${altered}`, { ca: stack.ca })).status).toBe(404);
  }
  expect((await request(`${stack.urls.web}/d/nonsense`, { ca: stack.ca })).status).toBe(404);

  const stranger = await newAccount(stack);
  expect(
    (await api(`/api/v2/download-links/${link.id}`, stranger.apiKey, { method: 'DELETE' })).status,
  ).toBe(404);
  expect((await request(link.url, { ca: stack.ca })).status).toBe(200);
  expect(
    (await api(`/api/v2/download-links/${link.id}`, apiKey, { method: 'DELETE' })).status,
  ).toBe(204);
  const revoked = await request(link.url, { ca: stack.ca });
  expect(revoked.status).toBe(410);
  expect(revoked.text).toMatch(/revoked/);
});

test('maxDownloads counts fresh downloads, not resumes; a link is bound to one APK', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'large.apk');
  const link = (
    await api('/api/v2/apps/dev.apkrelay.large/download-links', apiKey, {
      method: 'POST',
      json: { ttlSeconds: 600, maxDownloads: 1 },
    })
  ).json<Link>();
  const first = await request(link.url, { ca: stack.ca, headers: { range: 'bytes=0-99999' } });
  expect(first.status).toBe(206);
  const resumed = await request(link.url, { ca: stack.ca, headers: { range: 'bytes=100000-' } });
  expect(resumed.status).toBe(206);
  expect(sha256(Buffer.concat([first.body, resumed.body]))).toBe(
    sha256(await fixture('large.apk')),
  );
  expect((await request(link.url, { ca: stack.ca })).status).toBe(410);
});

/** A one-time link to large.apk; `get` sends a request to it with the given headers. */
async function oneTimeLink(apiKey: string) {
  const link = (
    await api('/api/v2/apps/dev.apkrelay.large/download-links', apiKey, {
      method: 'POST',
      json: { ttlSeconds: 600, maxDownloads: 1 },
    })
  ).json<Link>();
  const get = (headers: Record<string, string> = {}, method = 'GET') =>
    request(link.url, { ca: stack.ca, headers, method });
  const downloads = async () =>
    (await api('/api/v2/apps/dev.apkrelay.large/download-links', apiKey))
      .json<{ links: Array<{ id: string; downloads: number }> }>()
      .links.find((l) => l.id === link.id)?.downloads;
  // The server records a download's end after its last byte is handed to the socket, so a
  // client can read the whole reply a moment before: the assertions on a finished download wait
  // for that record (a known window, docs/downloads.md), not for the wall clock.
  const ended = () =>
    eventually('the download recorded as finished', async () => {
      const open = await stack.mongo.db
        .collection('download_transfers')
        .countDocuments({ linkId: new ObjectId(link.id) });
      return open === 0;
    });
  const stored = () =>
    stack.mongo.db.collection('download_links').findOne({ _id: new ObjectId(link.id) });
  return { link, get, downloads, ended, stored };
}

/** Every request shape a client may send (issue 24 #2: none may get a byte of a dead link). */
const SHAPES = (etag: string): Array<[string, Record<string, string>, string]> => [
  ['plain GET', {}, 'GET'],
  ['HEAD', {}, 'HEAD'],
  ['Range from 0', { range: 'bytes=0-' }, 'GET'],
  ['Range from 1', { range: 'bytes=1-' }, 'GET'],
  ['Range from 100000', { range: 'bytes=100000-' }, 'GET'],
  ['suffix Range', { range: 'bytes=-1000' }, 'GET'],
  ['Range + If-Range not matching', { range: 'bytes=1-', 'if-range': '"nope"' }, 'GET'],
  ['Range + If-Range matching', { range: 'bytes=1-', 'if-range': etag }, 'GET'],
  ['HEAD + Range', { range: 'bytes=1-' }, 'HEAD'],
];

test('a used-up link serves no byte in any request shape, and counts nothing more', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'large.apk');
  const large = await fixture('large.apk');
  const { get, downloads, ended } = await oneTimeLink(apiKey);
  const first = await get();
  expect(first.status).toBe(200);
  expect(sha256(first.body)).toBe(sha256(large));
  await ended();
  const etag = `"${sha256(large)}"`;
  for (const [name, headers, method] of SHAPES(etag)) {
    const reply = await get(headers, method);
    expect({ name, status: reply.status }).toEqual({ name, status: 410 });
    expect(reply.headers['content-type']).toMatch(/^text\/plain/);
    expect(reply.body.includes(large.subarray(1000, 1032))).toBe(false);
  }
  expect(await downloads()).toBe(1);
});

test('an expired link serves no byte, not even the rest of a counted download', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'large.apk');
  const large = await fixture('large.apk');
  const { get } = await oneTimeLink(apiKey);
  expect((await get({ range: 'bytes=0-99999' })).status).toBe(206);
  clock += 600_000 + 1;
  for (const [name, headers, method] of SHAPES(`"${sha256(large)}"`)) {
    const reply = await get(headers, method);
    expect({ name, status: reply.status }).toEqual({ name, status: 410 });
    expect(reply.body.includes(large.subarray(100000, 100032))).toBe(false);
  }
});

test('a counted download resumes (with or without If-Range) until its last byte was sent', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'large.apk');
  const large = await fixture('large.apk');
  const { get, downloads, ended } = await oneTimeLink(apiKey);
  const first = await get({ range: 'bytes=0-99999' });
  expect(first.status).toBe(206);
  const etag = String(first.headers.etag);
  const second = await get({ range: 'bytes=100000-199999', 'if-range': etag });
  expect(second.status).toBe(206);
  const third = await get({ range: 'bytes=200000-' });
  expect(third.status).toBe(206);
  expect(sha256(Buffer.concat([first.body, second.body, third.body]))).toBe(sha256(large));
  expect(await downloads()).toBe(1);
  await ended();
  // Delivered to the end: that download is over, and the link is used up.
  expect((await get({ range: 'bytes=200000-' })).status).toBe(410);
  expect((await get({ range: 'bytes=1-', 'if-range': etag })).status).toBe(410);
});

test('a download’s end writes nothing to the link, so it cannot undo a revocation made meanwhile', async () => {
  // The embedded store rewrites a whole document per update: an end recorded on the link while
  // its owner revokes it could put the old revokedAt back (a revoked link served once more).
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'large.apk');
  const { get, ended, stored } = await oneTimeLink(apiKey);
  expect((await get({ range: 'bytes=0-99' })).status).toBe(206);
  const counted = await stored();
  expect(counted).toMatchObject({ downloads: 1, revokedAt: null });
  expect((await get({ range: 'bytes=100-' })).status).toBe(206);
  await ended();
  expect(await stored()).toEqual(counted);
});

test('HEAD shows a live link without using it up', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'large.apk');
  const large = await fixture('large.apk');
  const { get, downloads } = await oneTimeLink(apiKey);
  const head = await get({}, 'HEAD');
  expect(head.status).toBe(200);
  expect(head.headers['content-length']).toBe(String(large.length));
  expect(await downloads()).toBe(0);
  expect((await get()).status).toBe(200);
  expect((await get({}, 'HEAD')).status).toBe(410);
});

test('api_list_json lists exactly the account’s APKs of the package; the current flag moves', async () => {
  const { apiKey } = await newAccount(stack);
  const other = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk', { current: false });
  await uploadFixture(stack, other.apiKey, 'version-3.apk');
  const list = async () =>
    (
      await request(
        `${stack.urls.admin}/apps/api_list_json?packageName=dev.apkrelay.sample&apiKey=${encodeURIComponent(apiKey)}`,
        { ca: stack.ca },
      )
    ).json<{ apks: Array<Record<string, unknown>> }>();
  const before = await list();
  expect(before.apks.map((a) => [a.versionCode, a.current])).toEqual([
    [2, false],
    [1, true],
  ]);
  for (const apk of before.apks) {
    for (const field of [
      'versionName',
      'md5',
      'sha256',
      'size',
      'minSdk',
      'targetSdk',
      'signerSha256',
      'uploadedAt',
      'whatsnew',
    ]) {
      expect(apk).toHaveProperty(field);
    }
  }
  const v2 = before.apks[0]!;
  const moved = await api('/api/v2/apps/dev.apkrelay.sample/current', apiKey, {
    method: 'PUT',
    json: { sha256: v2.sha256 },
  });
  expect(moved.status).toBe(200);
  expect((await list()).apks.map((a) => [a.versionCode, a.current])).toEqual([
    [2, true],
    [1, false],
  ]);
  // By versionCode too; an unknown one is a 404.
  expect(
    (
      await api('/api/v2/apps/dev.apkrelay.sample/current', apiKey, {
        method: 'PUT',
        json: { versionCode: 1 },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await api('/api/v2/apps/dev.apkrelay.sample/current', apiKey, {
        method: 'PUT',
        json: { versionCode: 9 },
      })
    ).status,
  ).toBe(404);

  const bad = await request(
    `${stack.urls.admin}/apps/api_list_json?packageName=dev.apkrelay.sample&apiKey=nope`,
    { ca: stack.ca },
  );
  expect(bad.status).toBe(401);
  const withDevice = await request(
    `${stack.urls.admin}/apps/api_list_json?packageName=dev.apkrelay.sample&apiKey=${encodeURIComponent(apiKey)}&deviceId=unknown-device`,
    { ca: stack.ca },
  );
  expect(withDevice.json()).toMatchObject({ installation: null });
});

test('the JSON apps API is scoped to the account', async () => {
  const { apiKey } = await newAccount(stack);
  const other = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'other-package.apk');
  const mine = (await api('/api/v2/apps', apiKey)).json<{ apps: Array<{ package: string }> }>();
  expect(mine.apps.map((a) => a.package)).toEqual(['dev.apkrelay.other']);
  expect((await api('/api/v2/apps', other.apiKey)).json()).toEqual({ apps: [] });
  expect((await api('/api/v2/apps/dev.apkrelay.other', other.apiKey)).status).toBe(404);
  expect(
    (
      await api('/api/v2/apps/dev.apkrelay.other/download-links', other.apiKey, {
        method: 'POST',
        json: { ttlSeconds: 60 },
      })
    ).status,
  ).toBe(404);
});
