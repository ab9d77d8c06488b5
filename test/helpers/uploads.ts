import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { postMultipart } from './multipart';
import type { TestStack } from './stack';

export const FIXTURES = path.resolve(__dirname, '../fixtures/apks');

export function fixture(name: string): Promise<Buffer> {
  return readFile(path.join(FIXTURES, name));
}

/** Uploads a fixture through the legacy endpoint and requires `deploy successful`. */
export async function uploadFixture(
  stack: TestStack,
  apiKey: string,
  name: string,
  options: { current?: boolean } = {},
): Promise<void> {
  await uploadApk(stack, apiKey, { name, data: await fixture(name) }, options);
}

/** Uploads APK bytes through the legacy endpoint and requires `deploy successful`. */
export async function uploadApk(
  stack: TestStack,
  apiKey: string,
  apk: { readonly name: string; readonly data: Buffer },
  options: { current?: boolean } = {},
): Promise<void> {
  const reply = await postMultipart(
    `${stack.urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: apiKey },
      { name: 'current', value: String(options.current ?? true) },
      { name: 'apk', filename: apk.name, data: apk.data },
    ],
    { ca: stack.ca },
  );
  if (reply.text !== 'deploy successful')
    throw new Error(`upload of ${apk.name} failed: ${reply.status} ${reply.text}`);
}

/** The MD5 (hex) of a fixture APK, as devices report the APK they run. */
export async function fixtureMd5(name: string): Promise<string> {
  return createHash('md5')
    .update(await fixture(name))
    .digest('hex');
}
