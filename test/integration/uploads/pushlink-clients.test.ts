/**
 * PushLink's public upload and download clients, one test per row of
 * `../shared/spec/pushlink-clients.md`: each sends its client's exact request (part order and
 * headers, chunked or sized body, request headers) over real HTTPS, and the reply is checked byte
 * for byte against what that client needs. A change that breaks a real client fails here.
 *
 * The APK is `large.apk` (300 KB): past UPLOAD_PREAUTH_BYTES (256 KiB), so the react-native
 * publisher's file, which comes before its key, is spooled while the key is unknown.
 */
import { createHash } from 'node:crypto';
import { newAccount } from '../../helpers/accounts';
import {
  DOWNLOAD_CLIENTS,
  UPLOAD_CLIENTS,
  sendClientDownload,
  sendClientUpload,
  type DownloadClient,
  type UploadClient,
} from '../../helpers/pushlink-clients';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture } from '../../helpers/uploads';
import type { RawResponse } from '../../resilience/protocol/raw-http';

jest.setTimeout(120_000);

const PACKAGE = 'dev.apkrelay.large';
let stack: TestStack;
let apk: Buffer;
beforeAll(async () => {
  stack = await startStack();
  apk = await fixture('large.apk');
});
afterAll(() => stack.close());

/** Every upload reply, as all three clients need it: plain text with a length, never compressed. */
function expectPlainText(reply: RawResponse, status: number, body: string): void {
  expect({ status: reply.status, body: reply.body.toString('latin1') }).toEqual({ status, body });
  expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  expect(reply.headers['transfer-encoding']).toBeUndefined();
  expect(reply.headers['content-encoding']).toBeUndefined();
}

const uploadClients = Object.keys(UPLOAD_CLIENTS) as UploadClient[];

describe.each(uploadClients)('%s', (client) => {
  test('a new APK: 200 "deploy successful", made current; the same again: 409', async () => {
    const { apiKey, id } = await newAccount(stack);
    const upload = { apiKey, apk, filename: 'app-release.apk', current: true };
    expectPlainText(
      await sendClientUpload(client, stack.urls.admin, stack.ca, upload),
      200,
      'deploy successful',
    );
    const stored = await stack.mongo.db
      .collection('apks')
      .findOne({ accountId: id, package: PACKAGE });
    expect(stored?.sha256).toBe(createHash('sha256').update(apk).digest('hex'));
    const app = await stack.mongo.db
      .collection('apps')
      .findOne({ accountId: id, package: PACKAGE });
    expect(String(app?.currentApkId)).toBe(String(stored?._id));
    expectPlainText(
      await sendClientUpload(client, stack.urls.admin, stack.ca, upload),
      409,
      'deploy fails, this APK hash is the same of another APK uploaded',
    );
  });

  test('a wrong key: 401 "deploy fails, Invalid Api Key", nothing stored', async () => {
    const filesBefore = await stack.mongo.db.collection('apks.files').countDocuments();
    expectPlainText(
      await sendClientUpload(client, stack.urls.admin, stack.ca, {
        apiKey: `ak_${'Q'.repeat(32)}`,
        apk,
        filename: 'app-release.apk',
        current: true,
      }),
      401,
      'deploy fails, Invalid Api Key',
    );
    expect(await stack.mongo.db.collection('apks.files').countDocuments()).toBe(filesBefore);
  });
});

const downloadClients = Object.keys(DOWNLOAD_CLIENTS) as DownloadClient[];

test.each(downloadClients)(
  '%s: the current APK, byte for byte, with the headers the script reads',
  async (client) => {
    const { apiKey } = await newAccount(stack);
    expectPlainText(
      await sendClientUpload('gradle-pushlink-plugin 1.0.0', stack.urls.admin, stack.ca, {
        apiKey,
        apk,
        filename: 'app-release.apk',
        current: true,
      }),
      200,
      'deploy successful',
    );
    for (const url of [stack.urls.web, stack.urls.admin]) {
      const reply = await sendClientDownload(client, url, stack.ca, { package: PACKAGE, apiKey });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-disposition']).toBe(`attachment;filename=${PACKAGE}.apk`);
      expect(reply.headers['content-type']).toBe('application/vnd.android.package-archive');
      expect(reply.headers['content-length']).toBe(String(apk.length));
      expect(reply.headers['content-encoding']).toBeUndefined();
      expect(reply.body.equals(apk)).toBe(true);
    }
  },
);
