/**
 * A file that arrives before its API key (react-native-push-link's publisher) is held outside the
 * store: past UPLOAD_PREAUTH_BYTES in a private spool file under DATA_DIR, which has no name while
 * it is open (pre-auth-hold.ts), counted against the concurrent-upload bounds, and gone as soon as
 * the upload ends, whatever ends it. Over real HTTPS on raw sockets, with chunked bodies held open
 * half-way; the API runs in this process, so its descriptors are read from /proc/self/fd.
 */
import { readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { BOUNDARY, chunk, fileHead, formField } from '../../helpers/raw-upload';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture } from '../../helpers/uploads';
import { closeAllRaw, openRaw, type RawConnection } from '../../resilience/protocol/raw-http';

jest.setTimeout(120_000);

const PER_ADDRESS = 4;
const TOTAL = 6;
/** UPLOAD_SPOOL_BYTES: room for the six held files of the tests above, not for 3 MiB more. */
const SPOOL_BYTES = 2 * 1024 * 1024;
let stack: TestStack;
let spoolDir: string;
let apk: Buffer;
beforeAll(async () => {
  stack = await startStack({
    trustProxy: ['loopback'],
    uploads: { perAddress: PER_ADDRESS, total: TOTAL, spoolBytes: SPOOL_BYTES },
  });
  spoolDir = path.join(stack.dataDir, 'spool', 'uploads');
  apk = await fixture('large.apk');
});
afterEach(closeAllRaw);
afterAll(() => stack.close());

/** The descriptors of this process open on a spool file. */
async function spoolDescriptors(): Promise<string[]> {
  const fds = await readdir('/proc/self/fd');
  const open = await Promise.all(
    fds.map(async (fd) => {
      const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
      return target.startsWith(`${spoolDir}/`) ? `/proc/self/fd/${fd}` : null;
    }),
  );
  return open.filter((fd): fd is string => fd !== null);
}

/** A chunked upload from `forwardedFor` whose file part is sent up to `held` bytes, then waits. */
async function startFileFirst(forwardedFor: string, held: number): Promise<RawConnection> {
  const connection = await openRaw(stack.urls.admin, stack.ca);
  await connection.write(
    [
      'POST /apps/api_upload HTTP/1.1',
      'Host: localhost',
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
      'Transfer-Encoding: chunked',
      `X-Forwarded-For: ${forwardedFor}`,
      '',
      '',
    ].join('\r\n'),
  );
  await connection.write(
    chunk(Buffer.concat([fileHead('app-release.apk'), apk.subarray(0, held)])),
  );
  return connection;
}

/** Sends the rest of the file, then the key, and reads the reply. */
async function finish(connection: RawConnection, held: number, apiKey: string) {
  await connection.write(chunk(apk.subarray(held)));
  const rest = Buffer.concat([
    Buffer.from('\r\n'),
    formField('apiKey', apiKey),
    formField('current', 'true'),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ]);
  await connection.write(Buffer.concat([chunk(rest), Buffer.from('0\r\n\r\n')]));
  return connection.response(60_000);
}

/** Past UPLOAD_PREAUTH_BYTES (256 KiB): the part is in a spool file by then. */
const SPOOLED = 280 * 1024;

test('while a file waits for its key it is a nameless 0600 file in a 0700 folder under DATA_DIR', async () => {
  // The test services set a private umask for this process; the spool must not rely on it.
  const umask = process.umask(0o022);
  const { connection, fd } = await (async () => {
    const opened = await startFileFirst('198.51.100.1', SPOOLED);
    const [one] = await eventually('the spool file to be open', async () => {
      const open = await spoolDescriptors();
      return open.length === 1 ? open : undefined;
    });
    return { connection: opened, fd: one };
  })().finally(() => process.umask(umask));
  const file = await stat(fd!);
  expect({ file: file.isFile(), mode: file.mode & 0o777, size: file.size }).toEqual({
    file: true,
    mode: 0o600,
    size: SPOOLED,
  });
  expect((await stat(spoolDir)).mode & 0o777).toBe(0o700);
  expect(await readdir(spoolDir)).toEqual([]);
  // The client goes away: the held bytes go with it.
  await connection.close();
  await eventually('the spool file to be closed', async () =>
    (await spoolDescriptors()).length === 0 ? true : undefined,
  );
});

test(`20 file-first uploads at once from one address: ${PER_ADDRESS} received, the rest 429`, async () => {
  const connections = await Promise.all(
    Array.from({ length: 20 }, () => startFileFirst('203.0.113.7', SPOOLED)),
  );
  const refused = connections.map((c) => c.response(30_000).then((r) => ({ c, r })));
  // The refusals come at once, before their bodies end; the admitted wait for their keys.
  const answered = await eventually('16 refusals', async () => {
    const settled = await Promise.all(refused.map((p) => Promise.race([p, Promise.resolve(null)])));
    const done = settled.filter((s) => s !== null);
    return done.length >= 20 - PER_ADDRESS ? done : undefined;
  });
  expect(answered).toHaveLength(20 - PER_ADDRESS);
  for (const { r } of answered) {
    expect({ status: r.status, text: r.text, retry: r.headers['retry-after'] }).toEqual({
      status: 429,
      text: 'deploy fails, too many uploads at once from this address; retry later',
      retry: '5',
    });
  }
  const admitted = connections.filter((c) => !answered.some((a) => a.c === c));
  await eventually(`${PER_ADDRESS} spool files`, async () =>
    (await spoolDescriptors()).length === PER_ADDRESS ? true : undefined,
  );
  const replies = [];
  for (const connection of admitted) {
    const { apiKey } = await newAccount(stack);
    replies.push(await finish(connection, SPOOLED, apiKey));
  }
  expect(replies.map((r) => [r.status, r.text])).toEqual(
    Array.from({ length: PER_ADDRESS }, () => [200, 'deploy successful']),
  );
  await Promise.all(connections.map((c) => c.close()));
  expect(await spoolDescriptors()).toEqual([]);
});

test(`file-first uploads from many addresses: ${TOTAL} received in all, the next 503`, async () => {
  const held = await Promise.all(
    Array.from({ length: TOTAL }, (_, i) => startFileFirst(`192.0.2.${i + 1}`, SPOOLED)),
  );
  await eventually(`${TOTAL} spool files`, async () =>
    (await spoolDescriptors()).length === TOTAL ? true : undefined,
  );
  const extra = await startFileFirst('192.0.2.200', SPOOLED);
  const reply = await extra.response(30_000);
  expect({ status: reply.status, text: reply.text, retry: reply.headers['retry-after'] }).toEqual({
    status: 503,
    text: 'deploy fails, too many uploads at once; retry later',
    retry: '5',
  });
  await Promise.all([...held, extra].map((c) => c.close()));
  await eventually('every spool file closed', async () =>
    (await spoolDescriptors()).length === 0 ? true : undefined,
  );
});

test('a file before its key that would pass UPLOAD_SPOOL_BYTES: 503, dropped, the room given back', async () => {
  const big = await openRaw(stack.urls.admin, stack.ca);
  await big.write(
    'POST /apps/api_upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n' +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n\r\n`,
  );
  await big.write(chunk(fileHead()));
  const filler = Buffer.alloc(64 * 1024, 0x62);
  const reply = big.response(30_000);
  // Sent until the server answers (it stops reading once the bound is passed).
  for (let sent = 0; sent < 3 * SPOOL_BYTES && !big.isClosed(); sent += filler.length) {
    if (!(await big.write(chunk(filler)))) break;
    const answered = await Promise.race([reply.then(() => true), Promise.resolve(false)]);
    if (answered) break;
  }
  const refused = await reply;
  expect({
    status: refused.status,
    text: refused.text,
    retry: refused.headers['retry-after'],
  }).toEqual({
    status: 503,
    text: 'deploy fails, too many uploads are waiting for their apiKey at once; retry later, or send apiKey before the apk file',
    retry: '5',
  });
  await big.close();
  await eventually('the refused spool file closed', async () =>
    (await spoolDescriptors()).length === 0 ? true : undefined,
  );
  // Its room is back: a file-first upload of 300 KB goes through.
  const { apiKey } = await newAccount(stack);
  const next = await startFileFirst('198.51.100.9', SPOOLED);
  const done = await finish(next, SPOOLED, apiKey);
  expect([done.status, done.text]).toEqual([200, 'deploy successful']);
});
