/**
 * Malformed multipart uploads, as exact bytes on raw sockets, on the legacy `POST /apps/api_upload`
 * (spec texts, plain text) and the JSON `POST /api/v2/apps/{package}/apks` (stable codes). Each
 * case ends in a 4xx, a released connection (closed by the server, or usable for another request)
 * and nothing stored: no GridFS blob or chunk, no upload record. Staging is GridFS only (the API
 * writes no upload bytes to local disk), so the GridFS collections are where orphans would be.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventuallyValue } from '../../helpers/eventually';
import { newAccount } from '../../helpers/accounts';
import { startStack, type TestStack } from '../../helpers/stack';
import {
  abuseCounter,
  expectNothingStored,
  probeEachTest,
  storedSnapshot,
  type StoredSnapshot,
} from './abuse-kit';
import { expectClosedByServer, expectReleased, openRaw, type RawResponse } from './raw-http';

const MAX_APK_BYTES = 256 * 1024;
const fixtures = path.resolve(__dirname, '../../fixtures/apks');
const counter = abuseCounter('multipart');

let stack: TestStack;
let apiKey: string;
let validApk: Buffer;
/** The workers' local directory for ciphertext copies: nothing may be left there either. */
let workerTmpDir: string;
beforeAll(async () => {
  workerTmpDir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-protocol-'));
  stack = await startStack({ maxApkBytes: MAX_APK_BYTES, workerTmpDir });
  apiKey = (await newAccount(stack)).apiKey;
  validApk = await readFile(path.join(fixtures, 'version-1.apk'));
});
afterAll(async () => {
  counter.record();
  await stack.close();
  await rm(workerTmpDir, { recursive: true, force: true });
});
probeEachTest(() => stack);

const B = 'AbUsEbOuNdArY';
const CT = `multipart/form-data; boundary=${B}`;
const field = (name: string | Buffer, value: string | Buffer) =>
  Buffer.concat([
    Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="`),
    Buffer.from(name),
    Buffer.from('"\r\n\r\n'),
    Buffer.from(value),
    Buffer.from('\r\n'),
  ]);
const filePart = (name: string, filename: string | Buffer, data: Buffer) =>
  Buffer.concat([
    Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="`),
    Buffer.from(filename),
    Buffer.from('"\r\nContent-Type: application/vnd.android.package-archive\r\n\r\n'),
    data,
    Buffer.from('\r\n'),
  ]);
const end = Buffer.from(`--${B}--\r\n`);

type Target = 'legacy' | 'json';
const pathOf = (t: Target) =>
  t === 'legacy' ? '/apps/api_upload' : '/api/v2/apps/dev.apkrelay.sample/apks';

function head(target: Target, headers: Record<string, string>, path = pathOf(target)): Buffer {
  const lines = [`POST ${path} HTTP/1.1`, 'Host: localhost'];
  if (target === 'json') lines.push(`Authorization: Bearer ${apiKey}`);
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
}

/** Sends a whole request (Content-Length) and returns the reply and how the socket was released. */
async function send(
  target: Target,
  contentType: string | null,
  body: Buffer,
): Promise<{ response: RawResponse; released: 'closed' | 'reused' }> {
  const headers: Record<string, string> = { 'Content-Length': String(body.length) };
  if (contentType !== null) headers['Content-Type'] = contentType;
  const connection = await openRaw(stack.urls.admin, stack.ca);
  counter.add();
  await connection.write(Buffer.concat([head(target, headers), body]));
  const response = await connection.response(20_000);
  return { response, released: await expectReleased(connection, response.end) };
}

function expectLegacy(response: RawResponse, status: number, text: string | RegExp): void {
  expect(response.status).toBe(status);
  if (typeof text === 'string') expect(response.text).toBe(text);
  else expect(response.text).toMatch(text);
  expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
}

function expectCode(response: RawResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect((JSON.parse(response.text) as { error: { code: string } }).error.code).toBe(code);
}

const NOT_MULTIPART = 'deploy fails, expected a multipart/form-data upload with an apk file';
const MALFORMED = /^deploy fails, \S.*$/;

let before: StoredSnapshot;
beforeEach(async () => {
  before = await storedSnapshot(stack);
});
afterEach(async () => {
  await eventuallyValue(
    'the worker temp dir to be empty',
    () => readdir(workerTmpDir),
    (left) => left.length === 0,
    { intervalMs: 100 },
  );
});

describe.each(['legacy', 'json'] as const)('%s upload', (target) => {
  const expectRefused = (
    response: RawResponse,
    status: number,
    legacyText: string | RegExp,
    code: string,
  ) =>
    target === 'legacy'
      ? expectLegacy(response, status, legacyText)
      : expectCode(response, status, code);

  test.each([
    ['multipart without a boundary', 'multipart/form-data'],
    ['a content type that is not a form', 'application/json'],
    ['no content type', null],
  ])('%s: 400, nothing stored', async (_name, contentType) => {
    const body = Buffer.concat([field('apiKey', apiKey), filePart('apk', 'a.apk', validApk), end]);
    const { response } = await send(target, contentType, body);
    expectRefused(response, 400, NOT_MULTIPART, 'VALIDATION_FAILED');
    await expectNothingStored(stack, before);
  });

  test('a boundary that never appears in the body: 400', async () => {
    const { response } = await send(target, CT, Buffer.from('x'.repeat(10_000)));
    expectRefused(response, 400, MALFORMED, 'VALIDATION_FAILED');
    await expectNothingStored(stack, before);
  });

  test('a file part never terminated (the body ends inside it): 400, its blob removed', async () => {
    const body = Buffer.concat([field('apiKey', apiKey), filePart('apk', 'a.apk', validApk)]);
    const { response } = await send(target, CT, body);
    expectRefused(response, 400, MALFORMED, 'VALIDATION_FAILED');
    await expectNothingStored(stack, before);
  });

  test('a part header of 100 KiB: 400', async () => {
    const huge = Buffer.from(
      `--${B}\r\nContent-Disposition: form-data; name="apk"; filename="${'a'.repeat(100 * 1024)}.apk"\r\n\r\n`,
    );
    const body = Buffer.concat([field('apiKey', apiKey), huge, validApk, Buffer.from('\r\n'), end]);
    const { response } = await send(target, CT, body);
    expectRefused(response, 400, MALFORMED, 'VALIDATION_FAILED');
    await expectNothingStored(stack, before);
  });

  test('a flood of 5,000 fields after a valid APK: 400, the APK not kept', async () => {
    const flood = Buffer.concat(Array.from({ length: 5_000 }, (_, i) => field(`f${i}`, 'x')));
    const body = Buffer.concat([
      field('apiKey', apiKey),
      filePart('apk', 'a.apk', validApk),
      flood,
      end,
    ]);
    const { response } = await send(target, CT, body);
    expectRefused(response, 400, MALFORMED, 'VALIDATION_FAILED');
    await expectNothingStored(stack, before);
  });

  test('a field value of 1 MiB: 400 (not silently truncated)', async () => {
    const body = Buffer.concat([
      field('apiKey', apiKey),
      field('whatsnew', 'w'.repeat(1024 * 1024)),
      filePart('apk', 'a.apk', validApk),
      end,
    ]);
    const { response } = await send(target, CT, body);
    expectRefused(response, 400, MALFORMED, 'VALIDATION_FAILED');
    await expectNothingStored(stack, before);
  });

  test.each([2, 3, 20])('the apk file field given %d times: 400, no blob kept', async (times) => {
    const files = Array.from({ length: times }, () => filePart('apk', 'a.apk', validApk));
    const body = Buffer.concat([field('apiKey', apiKey), ...files, end]);
    const { response } = await send(target, CT, body);
    expectRefused(response, 400, MALFORMED, 'VALIDATION_FAILED');
    await expectNothingStored(stack, before);
  });

  test.each([
    [
      'a field name',
      () => [field(Buffer.from([0x61, 0xff, 0xfe, 0x62]), 'x'), field('apiKey', apiKey)],
    ],
    [
      'a field value',
      () => [field('apiKey', apiKey), field('whatsnew', Buffer.from([0xc3, 0x28, 0xa0, 0xa1]))],
    ],
    ['the filename', () => [field('apiKey', apiKey)]],
  ])('invalid UTF-8 in %s: 400, nothing stored', async (_name, fields) => {
    const filename =
      _name === 'the filename' ? Buffer.from([0x66, 0xff, 0xc0, 0x2e, 0x61]) : 'a.apk';
    const body = Buffer.concat([...fields(), filePart('apk', filename, validApk), end]);
    const { response } = await send(target, CT, body);
    expectRefused(response, 400, MALFORMED, 'VALIDATION_FAILED');
    await expectNothingStored(stack, before);
  });
});

describe('path-like filenames', () => {
  const hostile = [
    '../../etc/passwd',
    '/etc/passwd',
    '..\\..\\windows\\win.ini',
    'a\u0000.apk',
    'C:\\x.apk',
  ];

  test.each(hostile)('%j with a wrong API key: 401, nothing stored', async (filename) => {
    const body = Buffer.concat([
      field('apiKey', `ak_${'Z'.repeat(32)}`),
      filePart('apk', filename, validApk),
      end,
    ]);
    const { response } = await send('legacy', CT, body);
    // The key is refused (401), or the part itself (a NUL ends the filename parameter: 400).
    expect([400, 401]).toContain(response.status);
    expect(response.text).toMatch(/^deploy fails, /);
    await expectNothingStored(stack, before);
  });

  test.each(hostile)('%j carrying what is not an APK: 4xx, no blob kept', async (filename) => {
    const body = Buffer.concat([
      field('apiKey', apiKey),
      filePart('apk', filename, Buffer.from('not an apk')),
      end,
    ]);
    const { response } = await send('legacy', CT, body);
    expect([400, 422]).toContain(response.status);
    expect(response.text).toMatch(/^deploy fails, /);
    // A verdict was recorded (a failed upload); no blob of it is kept.
    const after = await storedSnapshot(stack);
    expect(after.uploads).toBeLessThanOrEqual(before.uploads + 1);
    await expectNothingStored(stack, { ...before, uploads: after.uploads });
  });

  test('the name is never used: a valid APK named ../../etc/passwd is stored under its upload id only', async () => {
    const { apiKey: key, id } = await newAccount(stack);
    const body = Buffer.concat([
      field('apiKey', key),
      filePart('apk', '../../etc/passwd', validApk),
      end,
    ]);
    const { response } = await send('legacy', CT, body);
    expectLegacy(response, 200, 'deploy successful');
    const upload = await stack.mongo.db.collection('uploads').findOne({ accountId: id });
    const blob = await stack.mongo.db
      .collection('apks.files')
      .findOne({ _id: String(upload?._id) as never });
    expect(blob?.filename).toBe(String(upload?._id));
    expect(
      JSON.stringify(await stack.mongo.db.collection('apks').findOne({ accountId: id })),
    ).not.toMatch(/passwd/);
  });
});

describe('endless bodies', () => {
  /**
   * Streams an apk part that never ends, chunked or under a huge Content-Length, and returns how
   * many bytes went out before the reply came back.
   */
  async function endless(
    target: Target,
    framing: 'chunked' | 'length',
    other: { path?: string; headers?: Record<string, string> } = {},
  ) {
    const connection = await openRaw(stack.urls.admin, stack.ca);
    counter.add();
    const headers: Record<string, string> = { 'Content-Type': CT, ...other.headers };
    if (framing === 'chunked') headers['Transfer-Encoding'] = 'chunked';
    else headers['Content-Length'] = String(10 * 1024 ** 3);
    const frame = (b: Buffer) =>
      framing === 'chunked'
        ? Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')])
        : b;
    await connection.write(head(target, headers, other.path));
    await connection.write(
      frame(
        Buffer.concat([
          field('apiKey', apiKey),
          filePart('apk', 'a.apk', Buffer.alloc(0)).subarray(0, -2),
        ]),
      ),
    );
    const chunk = frame(Buffer.alloc(16 * 1024, 0x41));
    let sent = 0;
    const cap = 64 * 1024 * 1024;
    const answered = connection.response(20_000);
    let done = false;
    void answered.then(
      () => (done = true),
      () => (done = true),
    );
    while (!done && sent < cap && (await connection.write(chunk))) {
      sent += chunk.length;
      if (sent % (1024 * 1024) < chunk.length) await sleep(1); // pacing: let the reply in
    }
    const response = await answered;
    return { response, sent, connection };
  }

  test.each([
    ['legacy', 'chunked'],
    ['legacy', 'length'],
    ['json', 'chunked'],
    ['json', 'length'],
  ] as const)(
    '%s, %s: 413 soon after MAX_APK_BYTES, then the connection is closed',
    async (target, framing) => {
      const { response, sent, connection } = await endless(target, framing);
      if (target === 'legacy')
        expectLegacy(response, 413, `deploy fails, APK file larger than ${MAX_APK_BYTES} bytes`);
      else expectCode(response, 413, 'APK_TOO_LARGE');
      // What the kernel and TLS buffered counts as sent: allow some MiB, far below the 64 MiB cap.
      expect(sent).toBeLessThan(MAX_APK_BYTES + 16 * 1024 * 1024);
      await expectClosedByServer(connection, 5_000);
      await expectNothingStored(stack, before);
    },
  );

  test.each([
    ['the JSON upload with a wrong key', '/api/v2/apps/dev.apkrelay.sample/apks', 401],
    ['a path no route serves', '/api/v2/no-such-route', 404],
    ['the JSON upload without a key', '/api/v2/apps/dev.apkrelay.sample/apks', 0],
  ] as const)(
    '%s, endless body: refused before the body is read, then the connection is closed',
    async (_name, path, status) => {
      const wrongKey = { Authorization: `Bearer ak_${'Z'.repeat(32)}` };
      const { response, sent, connection } = await endless('legacy', 'chunked', {
        path,
        headers: status === 401 ? wrongKey : {},
      });
      expect(response.status).toBe(status === 0 ? 401 : status);
      expect(sent).toBeLessThan(16 * 1024 * 1024);
      await expectClosedByServer(connection, 5_000);
      await expectNothingStored(stack, before);
    },
  );

  test('a client that aborts inside the file part leaves no blob or chunk behind', async () => {
    const connection = await openRaw(stack.urls.admin, stack.ca);
    counter.add();
    const body = Buffer.concat([
      field('apiKey', apiKey),
      filePart('apk', 'a.apk', validApk.subarray(0, 100_000)),
    ]);
    await connection.write(
      Buffer.concat([
        head('legacy', { 'Content-Type': CT, 'Content-Length': String(body.length + 50_000) }),
        body,
      ]),
    );
    await sleep(500); // pacing: the server is reading the body when the client goes
    await connection.close();
    await expectNothingStored(stack, before, 10_000);
  });
});
