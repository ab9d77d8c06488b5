/**
 * An API process killed (SIGKILL) while it spools an upload's file that came before its key leaves
 * nothing behind: the spool file had no name, so the kernel frees it with the process. A spool file
 * that did keep a name (a crash between its open and its unlink, planted here) is removed at the
 * next start. A real `apkrelay start --only api` process on the test stack's services.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../ops/services/child';
import { newAccount } from '../helpers/accounts';
import { eventually } from '../helpers/eventually';
import { request } from '../helpers/http';
import { stackEnv } from '../helpers/processes';
import { BOUNDARY, chunk, fileHead } from '../helpers/raw-upload';
import { sendClientUpload } from '../helpers/pushlink-clients';
import { startStack, testTls, type TestStack } from '../helpers/stack';
import { fixture } from '../helpers/uploads';
import { openRaw } from '../resilience/protocol/raw-http';

const root = path.resolve(__dirname, '../..');
jest.setTimeout(120_000);
let stack: TestStack;
let dataDir: string;
let api: ChildProcess | undefined;

beforeAll(async () => {
  stack = await startStack({ workers: true });
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-spool-crash-'));
});
afterAll(async () => {
  if (api && api.exitCode === null && api.signalCode === null) {
    api.kill('SIGKILL');
    await once(api, 'exit');
  }
  await stack.close();
  await rm(dataDir, { recursive: true, force: true });
});

const spoolDir = () => path.join(dataDir, 'spool', 'uploads');

async function spawnApi(): Promise<string> {
  const tls = testTls();
  await writeFile(path.join(dataDir, 'api.crt'), tls.cert);
  await writeFile(path.join(dataDir, 'api.key'), tls.key);
  const [port, webPort, pushPort] = [await freePort(), await freePort(), await freePort()];
  const child = spawn('node', ['dist/ops/cli/main.js', 'start', '--only', 'api'], {
    cwd: root,
    env: stackEnv(stack, {
      DATA_DIR: dataDir,
      TLS_CERT: path.join(dataDir, 'api.crt'),
      TLS_KEY: path.join(dataDir, 'api.key'),
      PORT: String(port),
      WEB_PORT: String(webPort),
      PUSH_PORT: String(pushPort),
    }),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  api = child;
  const admin = `https://localhost:${port}`;
  await eventually('the API process to answer /healthz', () =>
    request(`${admin}/healthz`, { ca: stack.ca }).then(
      (r) => r.status === 200,
      () => false,
    ),
  );
  return admin;
}

/** Spool files `pid` holds open (their link names end with " (deleted)": they have no name). */
async function spoolFilesOf(pid: number): Promise<string[]> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const links = await Promise.all(
    fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')),
  );
  return links.filter((l) => l.startsWith(`${spoolDir()}/`));
}

test('SIGKILL mid-spool leaves no file; a named leftover is removed at the next start', async () => {
  // What a crash between a spool file's open and its unlink would leave.
  await mkdir(spoolDir(), { recursive: true, mode: 0o700 });
  await writeFile(path.join(spoolDir(), 'a1b2c3.spool'), Buffer.alloc(4096, 1), { mode: 0o600 });
  let admin = await spawnApi();
  expect(await readdir(spoolDir())).toEqual([]);

  const connection = await openRaw(admin, stack.ca);
  await connection.write(
    'POST /apps/api_upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n' +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n\r\n`,
  );
  const part = Buffer.concat([fileHead(), Buffer.alloc(1024 * 1024, 0x61)]);
  await connection.write(chunk(part));
  const pid = api!.pid!;
  const held = await eventually('the API to spool the file', async () => {
    const files = await spoolFilesOf(pid);
    return files.length === 1 ? files : undefined;
  });
  expect(held[0]).toMatch(/\.spool \(deleted\)$/);
  api!.kill('SIGKILL');
  await once(api!, 'exit');
  await connection.close();
  expect(await readdir(spoolDir())).toEqual([]);

  admin = await spawnApi();
  expect(await readdir(spoolDir())).toEqual([]);
  // And the restarted process takes file-first uploads again.
  const { apiKey } = await newAccount(stack);
  const reply = await sendClientUpload(
    'react-native-push-link pushlink-publish-apk',
    admin,
    stack.ca,
    { apiKey, apk: await fixture('large.apk'), filename: 'app-release.apk', current: true },
  );
  expect([reply.status, reply.text]).toEqual([200, 'deploy successful']);
});
