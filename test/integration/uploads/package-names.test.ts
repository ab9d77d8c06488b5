/**
 * Issue 24, finding 6: a validly signed APK whose manifest package is not an Android package name
 * (`bad-package-name.apk`: `evil.pkg;filename*=UTF-8''evil.html;x=`) is refused at ingest, and a
 * package stored before that rule cannot shape the download's Content-Disposition header.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { newAccount } from '../../helpers/accounts';
import { eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { catalogCollections } from '../../../shared/catalog/collections';

const fixtures = path.resolve(__dirname, '../../fixtures/apks');
const BAD = "evil.pkg;filename*=UTF-8''evil.html;x=";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

async function upload(apiKey: string, file: string, async = false) {
  return postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: apiKey },
      ...(async ? [{ name: 'async', value: 'true' }] : []),
      { name: 'apk', filename: file, data: await readFile(path.join(fixtures, file)) },
    ],
    { ca: stack.ca },
  );
}

test('the legacy upload refuses it as an invalid APK (spec section 7 text)', async () => {
  const { apiKey } = await newAccount(stack);
  const reply = await upload(apiKey, 'bad-package-name.apk');
  expect({ status: reply.status, text: reply.text }).toEqual({
    status: 422,
    text: 'deploy fails, Invalid APK file',
  });
  const apps = await request(`${stack.urls.admin}/api/v2/apps`, {
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(apps.json()).toEqual({ apps: [] });
});

test('an asynchronous upload ends failed with APK_PACKAGE_NAME_INVALID', async () => {
  const { apiKey } = await newAccount(stack);
  const reply = await upload(apiKey, 'bad-package-name.apk', true);
  expect(reply.status).toBe(202);
  const statusUrl = reply.json<{ statusUrl: string }>().statusUrl;
  const body = await eventuallyValue(
    'the upload to finish',
    async () => {
      const got = await request(statusUrl, {
        headers: { authorization: `Bearer ${apiKey}` },
        ca: stack.ca,
      });
      return got.json<{ status: string; verdict: { code: string } | null }>();
    },
    (b) => b.status === 'done' || b.status === 'failed',
    { intervalMs: 100 },
  );
  expect(body).toMatchObject({ status: 'failed', verdict: { code: 'APK_PACKAGE_NAME_INVALID' } });
});

test('a package stored before the rule is RFC 6266-encoded in Content-Disposition', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const created = await request(
    `${stack.urls.admin}/api/v2/apps/dev.apkrelay.sample/download-links`,
    {
      method: 'POST',
      json: { ttlSeconds: 600 },
      headers: { authorization: `Bearer ${apiKey}` },
      ca: stack.ca,
    },
  );
  expect(created.status).toBe(201);
  // What an earlier release stored for the reviewer's APK.
  const { apks } = catalogCollections(stack.mongo.db);
  await apks.updateMany({ package: 'dev.apkrelay.sample' }, { $set: { package: BAD } });
  const got = await request(created.json<{ url: string }>().url, { ca: stack.ca });
  expect(got.status).toBe(200);
  expect(got.headers['content-disposition']).toBe(
    'attachment;filename=evil.pkg_filename__UTF-8__evil.html_x_.apk; ' +
      "filename*=UTF-8''evil.pkg%3Bfilename%2A%3DUTF-8%27%27evil.html%3Bx%3D.apk",
  );
});
