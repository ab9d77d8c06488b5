/**
 * Issue 21: an existing DATA_DIR on FerretDB's SQLite store moves to the PostgreSQL default
 * through a backup and a restore, exactly as docs/storage.md tells. `npm start` with
 * EMBEDDED_MONGO_BACKEND=sqlite takes an APK and an exception report with a screenshot; `apkrelay
 * backup run`; stop. Started on PostgreSQL, the same DATA_DIR is refused (its SQLite store would
 * be hidden) and nothing is left running; with the SQLite store moved aside it starts on an empty
 * cluster, `apkrelay backup restore` brings everything back: the API key logs in, the APK
 * downloads byte-identical, the exception issues and the screenshot are the same.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFile, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { eventually, eventuallyValue } from '../helpers/eventually';
import { request } from '../helpers/http';
import { postMultipart } from '../helpers/multipart';
import { execFile, freshInstall, processesMentioning, waitStarted } from '../helpers/processes';
import { fixture } from '../helpers/uploads';
import { encodeForm, postForm, stackTrace } from '../integration/exceptions/fixtures';

const root = path.resolve(__dirname, '../..');
jest.setTimeout(600_000);

const PACKAGE = 'dev.apkrelay.large';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let dataDir: string;
let env: NodeJS.ProcessEnv;
let adminUrl: string;
let webUrl: string;
let pushUrl: string;
let server: ChildProcess | undefined;
let output = '';
let apiKey: string;
let archive: string;
/** What the SQLite instance served, to compare with the restored one. */
let before: { groups: unknown; report: unknown; screenshot: Buffer };

const ca = () => readFile(path.join(dataDir, 'tls/self-signed.crt'), 'utf8');
const auth = () => ({ authorization: `Bearer ${apiKey}` });
const withBackend = (backend?: string): NodeJS.ProcessEnv =>
  backend ? { ...env, EMBEDDED_MONGO_BACKEND: backend } : env;

function cli(args: string[], backend?: string) {
  return execFile('node', ['dist/ops/cli/main.js', ...args], {
    cwd: root,
    env: withBackend(backend),
  });
}

async function start(backend?: string): Promise<void> {
  output = '';
  // --ignore-scripts: dist/ is built already (pretest); rebuilding it here races other suites.
  server = spawn('npm', ['start', '--ignore-scripts'], {
    cwd: root,
    env: withBackend(backend),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  server.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await waitStarted(server, adminUrl, ca, () => output, 240_000);
}

async function stop(): Promise<void> {
  const exited = once(server!, 'exit');
  server!.kill('SIGTERM');
  await exited;
  await eventually(
    'every process of the DATA_DIR to exit',
    async () => (await processesMentioning(dataDir)).length === 0,
  );
}

async function get(url: string): Promise<{ status: number; body: Buffer; json: unknown }> {
  const reply = await request(url, { headers: auth(), ca: await ca() });
  const json: unknown = reply.headers['content-type']?.includes('json') ? reply.json() : null;
  return { status: reply.status, body: reply.body, json };
}

/** The app's exception issues, its one report and that report's screenshot, as served. */
async function exceptionsServed() {
  const groups = await get(`${adminUrl}/api/v2/apps/${PACKAGE}/exceptions`);
  expect(groups.status).toBe(200);
  const listed = groups.json as { groups: { latestReportId?: string }[] };
  return { groups: groups.json, reportId: listed.groups[0]?.latestReportId };
}

async function downloaded(): Promise<Buffer> {
  const reply = await request(
    `${webUrl}/download?package=${PACKAGE}&api_key=${encodeURIComponent(apiKey)}`,
    { ca: await ca() },
  );
  expect(reply.status).toBe(200);
  return reply.body;
}

beforeAll(async () => {
  ({ dataDir, env, adminUrl } = await freshInstall('apkrelay-migrate-'));
  webUrl = `https://localhost:${env.WEB_PORT}`;
  pushUrl = `https://localhost:${env.PUSH_PORT}`;
});

afterAll(async () => {
  if (server?.exitCode === null) server.kill('SIGKILL');
  for (const pid of await processesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

test('on SQLite: an APK and an exception report with a screenshot, backed up', async () => {
  await start('sqlite');
  const { stdout } = await cli(
    ['account', 'create', '--email', 'move@example.com', '--password', 'move-password', '--json'],
    'sqlite',
  );
  apiKey = (JSON.parse(stdout.trim()) as { apiKey: string }).apiKey;
  const apk = await fixture('large.apk');
  const uploaded = await postMultipart(
    `${adminUrl}/apps/api_upload`,
    [
      { name: 'apiKey', value: apiKey },
      { name: 'current', value: 'true' },
      { name: 'apk', filename: 'large.apk', data: apk },
    ],
    { ca: await ca() },
  );
  expect(uploaded.text).toBe('deploy successful');
  const registered = await request(`${pushUrl}/api/v2/installations`, {
    method: 'POST',
    headers: auth(),
    json: { package: PACKAGE, deviceId: 'kiosk-1' },
    ca: await ca(),
  });
  expect(registered.status).toBeLessThan(300);
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(40_000)]);
  const form = encodeForm({
    package: PACKAGE,
    api_key: apiKey,
    hash: createHash('md5').update(apk).digest('hex'),
    deviceId: 'kiosk-1',
    st: stackTrace('migrate'),
    screen: jpeg.toString('base64'),
  });
  expect((await postForm(adminUrl, await ca(), form)).text).toBe('Exception sent.');
  const served = await eventuallyValue('the report to be stored', exceptionsServed, (s) =>
    Boolean(s.reportId),
  );
  const report = await get(`${adminUrl}/api/v2/apps/${PACKAGE}/exceptions/${served.reportId}`);
  const shot = await get(
    `${adminUrl}/api/v2/apps/${PACKAGE}/exceptions/${served.reportId}/screenshot`,
  );
  expect(shot.body).toEqual(jpeg);
  before = { groups: served.groups, report: report.json, screenshot: shot.body };
  expect(sha256(await downloaded())).toBe(sha256(apk));

  const backup = await cli(['backup', 'run', '--json'], 'sqlite');
  archive = (JSON.parse(backup.stdout.trim()) as { path: string }).path;
  await stop();
  const files = await readdir(path.join(dataDir, 'ferretdb'));
  expect(files.some((f) => f.endsWith('.sqlite'))).toBe(true);
});

test('on PostgreSQL the SQLite DATA_DIR is refused, not started empty; nothing is left running', async () => {
  const refused = spawn('node', ['dist/ops/cli/main.js', 'start'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  refused.stdout.on('data', (d: Buffer) => (said += d.toString()));
  refused.stderr.on('data', (d: Buffer) => (said += d.toString()));
  const [code] = (await once(refused, 'exit')) as [number | null];
  expect(code).not.toBe(0);
  expect(said).toContain("FerretDB's SQLite store");
  expect(said).toContain('EMBEDDED_MONGO_BACKEND=sqlite');
  expect(await processesMentioning(dataDir)).toEqual([]);
});

test('moved aside, started on PostgreSQL and restored: everything is back, byte-identical', async () => {
  await rename(path.join(dataDir, 'ferretdb'), path.join(dataDir, 'ferretdb.sqlite-old'));
  await start();
  const state = JSON.parse(await readFile(path.join(dataDir, 'run/services.json'), 'utf8')) as {
    mongo: { backend?: string };
  };
  expect(state.mongo.backend).toBe('postgresql');
  const restored = await cli(['backup', 'restore', archive, '--json']);
  expect(JSON.parse(restored.stdout.trim())).toMatchObject({ files: 2 });

  const me = await get(`${adminUrl}/api/v2/account`);
  expect(me.status).toBe(200);
  expect(me.json).toMatchObject({ email: 'move@example.com' });
  expect(sha256(await downloaded())).toBe(sha256(await fixture('large.apk')));
  const served = await exceptionsServed();
  expect(served.groups).toEqual(before.groups);
  const report = await get(`${adminUrl}/api/v2/apps/${PACKAGE}/exceptions/${served.reportId}`);
  expect(report.json).toEqual(before.report);
  const shot = await get(
    `${adminUrl}/api/v2/apps/${PACKAGE}/exceptions/${served.reportId}/screenshot`,
  );
  expect(shot.body).toEqual(before.screenshot);
  await stop();
});
