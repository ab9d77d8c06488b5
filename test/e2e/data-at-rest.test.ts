/**
 * Data at rest on a real `npm start` (issue 24, finding 5): the embedded Redis and FerretDB refuse a
 * client without the password generated into DATA_DIR, no password shows in a command line or
 * log, and after a start, some writes and a stop every directory under DATA_DIR is 0700 and every
 * file has no group or other bits, including what was there, too open, before the start.
 * The one exception (issue 21): started as root, the embedded PostgreSQL runs as its own system
 * user, and DATA_DIR itself is then 0710 with that user's group so it can reach its cluster.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { POSTGRESQL_BIN_DIR } from '../../ops/services/binaries';
import { execFile, freshInstall, waitStarted } from '../helpers/processes';

const root = path.resolve(__dirname, '../..');
jest.setTimeout(300_000);

let dataDir: string;
let env: NodeJS.ProcessEnv;
let server: ChildProcess;
let adminUrl: string;
let output = '';

const ca = () => readFile(path.join(dataDir, 'tls/self-signed.crt'), 'utf8');

interface Record_ {
  pid: number;
  port: number;
}
const services = async () =>
  JSON.parse(await readFile(path.join(dataDir, 'run/services.json'), 'utf8')) as {
    redis: Record_;
    mongo: Record_;
    postgresql?: Record_;
  };
const secret = (name: string) =>
  readFile(path.join(dataDir, 'secrets', `${name}.password`), 'utf8').then((s) => s.trim());

async function walk(dir: string): Promise<string[]> {
  const out = [dir];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else out.push(full);
  }
  return out;
}

beforeAll(async () => {
  ({ dataDir, env, adminUrl } = await freshInstall('apkrelay-at-rest-'));
  // What an older version left behind: a world-readable directory and file.
  await chmod(dataDir, 0o755);
  await mkdir(path.join(dataDir, 'old'), { mode: 0o755 });
  await writeFile(path.join(dataDir, 'old', 'left-over.json'), '{}', { mode: 0o644 });
  await chmod(path.join(dataDir, 'old', 'left-over.json'), 0o644);
  // A permissive umask in the caller must not open the data up.
  // --ignore-scripts: dist/ is built already (pretest); rebuilding it here races other suites.
  server = spawn('sh', ['-c', 'umask 022 && exec npm start --ignore-scripts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  server.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await waitStarted(server, adminUrl, ca, () => output, 240_000);
});

afterAll(async () => {
  if (server.exitCode === null) server.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

test('the embedded Redis refuses a client without the generated password', async () => {
  const { redis } = await services();
  const password = await secret('redis');
  expect(password.length).toBeGreaterThanOrEqual(32);
  const anonymous = new Redis({ port: redis.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  anonymous.on('error', () => {});
  try {
    await expect(anonymous.keys('*')).rejects.toThrow(/NOAUTH/);
  } finally {
    anonymous.disconnect();
  }
  const owner = new Redis({ port: redis.port, host: '127.0.0.1', password });
  try {
    expect(await owner.ping()).toBe('PONG');
  } finally {
    owner.disconnect();
  }
});

test('PostgreSQL takes no connection without the generated password', async () => {
  const psql = path.join(POSTGRESQL_BIN_DIR, 'psql');
  const socketDir = path.join(dataDir, 'postgresql');
  const query = ['-h', socketDir, '-U', 'apkrelay', '-d', 'postgres', '-w', '-Atc', 'SELECT 1'];
  const without = { ...process.env, PGPASSWORD: '' };
  await expect(execFile(psql, query, { env: without })).rejects.toThrow(/password/);
  const wrong = { ...process.env, PGPASSWORD: 'not-the-password' };
  await expect(execFile(psql, query, { env: wrong })).rejects.toThrow(
    /password authentication failed/,
  );
  const right = { ...process.env, PGPASSWORD: await secret('postgresql') };
  expect((await execFile(psql, query, { env: right })).stdout.trim()).toBe('1');
});

test('FerretDB refuses to read accounts without the generated credentials', async () => {
  await execFile(
    'npx',
    [
      '--no-install',
      'apkrelay',
      'account',
      'create',
      '--email',
      'rest@example.com',
      '--password',
    ].concat(['rest-password', '--json']),
    { cwd: root, env },
  );
  const { mongo } = await services();
  const anonymous = new MongoClient(`mongodb://127.0.0.1:${mongo.port}`, {
    serverSelectionTimeoutMS: 5_000,
  });
  try {
    await expect(anonymous.db('apkrelay').collection('accounts').find().toArray()).rejects.toThrow(
      /auth/i,
    );
  } finally {
    await anonymous.close();
  }
  const password = encodeURIComponent(await secret('mongo'));
  const owner = new MongoClient(
    `mongodb://apkrelay:${password}@127.0.0.1:${mongo.port}/?authSource=admin`,
    { serverSelectionTimeoutMS: 5_000 },
  );
  try {
    expect(await owner.db('apkrelay').collection('accounts').countDocuments()).toBe(1);
  } finally {
    await owner.close();
  }
});

test('no password appears in a command line, the output or a log file', async () => {
  const passwords = [await secret('redis'), await secret('mongo'), await secret('postgresql')];
  const { redis, mongo, postgresql } = await services();
  expect(postgresql).toBeDefined();
  for (const pid of [redis.pid, mongo.pid, postgresql!.pid]) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    for (const p of passwords) expect(cmdline).not.toContain(p);
  }
  const logs = (await walk(dataDir)).filter((f) => f.endsWith('.log'));
  expect(logs.length).toBeGreaterThan(0);
  for (const file of logs) {
    const text = await readFile(file, 'utf8');
    for (const p of passwords) expect(text).not.toContain(p);
  }
  for (const p of passwords) expect(output).not.toContain(p);
});

test('after a stop, every directory in DATA_DIR is 0700 and no file is open to group or others', async () => {
  const exited = once(server, 'exit');
  server.kill('SIGTERM');
  await exited;
  const open: string[] = [];
  const top = await stat(dataDir);
  const cluster = await stat(path.join(dataDir, 'postgresql'));
  const asRoot = process.getuid?.() === 0;
  // Root: the cluster is the system user's, which may only search DATA_DIR (group x, no r).
  expect(cluster.uid !== top.uid).toBe(asRoot);
  if (asRoot) {
    expect(top.mode & 0o777).toBe(0o710);
    expect(top.gid).toBe(cluster.gid);
  }
  for (const file of await walk(dataDir)) {
    if (file === dataDir && asRoot) continue; // checked above
    const s = await stat(file);
    const mode = s.mode & 0o777;
    if (s.isDirectory() ? mode !== 0o700 : (mode & 0o077) !== 0) {
      open.push(`${path.relative(dataDir, file) || '.'} ${mode.toString(8)}`);
    }
  }
  expect(open).toEqual([]);
  // It looked at the stores themselves, not only at an empty directory.
  const names = (await walk(dataDir)).map((f) => path.basename(f));
  expect(names).toEqual(expect.arrayContaining(['master.key', 'left-over.json']));
  expect(names).toContain('PG_VERSION'); // the PostgreSQL cluster, FerretDB's store
  expect(names).toContain('pg_hba.conf');
  expect(names.some((n) => n.includes('.aof'))).toBe(true);
});
