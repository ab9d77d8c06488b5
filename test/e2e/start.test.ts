/**
 * `npm start` with no service configuration: embedded Redis and MongoDB-protocol server (FerretDB
 * on its own PostgreSQL when no mongod is on PATH), API and workers; ready over HTTPS; the CLI
 * finds the same services; SIGTERM stops the whole tree.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { eventuallyValue } from '../helpers/eventually';
import { request } from '../helpers/http';
import { alive, descendants, execFile, freshInstall, waitStarted } from '../helpers/processes';

const root = path.resolve(__dirname, '../..');
jest.setTimeout(120_000);

let dataDir: string;
let env: NodeJS.ProcessEnv;
let server: ChildProcess;
let adminUrl: string;
let output = '';

beforeAll(async () => {
  ({ dataDir, env, adminUrl } = await freshInstall('apkrelay-e2e-'));
  // dist/ is built by the test run (pretest); the prestart build would rewrite it while other
  // suites load it (seen: a half-written module failed another suite's API), so it is skipped.
  server = spawn('npm', ['start', '--ignore-scripts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  server.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await waitStarted(
    server,
    adminUrl,
    () => readFile(path.join(dataDir, 'tls/self-signed.crt'), 'utf8'),
    () => output,
  );
});

afterAll(async () => {
  if (server.exitCode === null) server.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

const ca = () => readFile(path.join(dataDir, 'tls/self-signed.crt'), 'utf8');

test('prints the three URLs and serves /readyz over HTTPS with a generated certificate', async () => {
  expect(output).toContain(adminUrl);
  const ready = await request(`${adminUrl}/readyz`, { ca: await ca() });
  expect(ready.json()).toEqual({
    status: 'ready',
    checks: { redis: true, mongo: true, workers: true },
  });
  // A plain-HTTP client gets no answer in clear.
  await expect(request(adminUrl.replace('https:', 'http:') + '/healthz')).rejects.toThrow();
});

test('says what it is doing before it serves: each service step as it starts and ends (issue 33)', () => {
  // Paths and elapsed times vary by machine; the steps and their order do not (this machine: no
  // mongod, so FerretDB on PostgreSQL 15; a fresh DATA_DIR, so the cluster is created).
  const steps = output
    .split('\n')
    .filter((line) => line.startsWith('apkrelay: '))
    .map((line) =>
      line.replace(/\/\S+/g, '<path>').replace(/\((\d+ min )?[\d.]+ s\)$/, '(<elapsed>)'),
    );
  expect(steps).toEqual([
    'apkrelay: looking for redis-server…',
    'apkrelay: looking for redis-server: <path> (<elapsed>)',
    'apkrelay: starting redis-server…',
    'apkrelay: starting redis-server: done (<elapsed>)',
    'apkrelay: looking for a MongoDB-protocol server…',
    'apkrelay: looking for a MongoDB-protocol server: ferretdb <path> (<elapsed>)',
    'apkrelay: looking for PostgreSQL 15…',
    'apkrelay: looking for PostgreSQL 15: <path> (<elapsed>)',
    'apkrelay: creating the PostgreSQL cluster (initdb)…',
    'apkrelay: creating the PostgreSQL cluster (initdb): done (<elapsed>)',
    'apkrelay: starting PostgreSQL 15…',
    'apkrelay: starting PostgreSQL 15: done (<elapsed>)',
    'apkrelay: starting ferretdb…',
    'apkrelay: starting ferretdb: done (<elapsed>)',
  ]);
});

test('`npx apkrelay account create --json` uses the running services; the key works over HTTPS', async () => {
  const { stdout } = await execFile(
    'npx',
    [
      '--no-install',
      'apkrelay',
      'account',
      'create',
      '--email',
      'cli@example.com',
      '--password',
      'cli-password',
      '--json',
    ],
    { cwd: root, env },
  );
  const created = JSON.parse(stdout.trim()) as { apiKey: string; plan: { installations: number } };
  expect(created.apiKey).toMatch(/^ak_/);
  expect(created.plan).toEqual({ installations: 5 });

  const me = await request(`${adminUrl}/api/v2/account`, {
    headers: { authorization: `Bearer ${created.apiKey}` },
    ca: await ca(),
  });
  expect(me.status).toBe(200);
  expect(me.json()).toMatchObject({ email: 'cli@example.com' });

  const again = await request(`${adminUrl}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'cli@example.com', password: 'another-password' },
    ca: await ca(),
  });
  expect(again.status).toBe(409);
  expect(again.json<{ error: { code: string } }>().error.code).toBe('ACCOUNT_EMAIL_TAKEN');

  const { stdout: planOut } = await execFile(
    'npx',
    [
      '--no-install',
      'apkrelay',
      'account',
      'set-plan',
      '--email',
      'cli@example.com',
      '--plan',
      '12',
      '--json',
    ],
    { cwd: root, env },
  );
  expect(JSON.parse(planOut.trim())).toMatchObject({ plan: { installations: 12 } });
});

const services = async () =>
  JSON.parse(await readFile(path.join(dataDir, 'run/services.json'), 'utf8')) as {
    redis: { pid: number };
    mongo: { pid: number; kind: string; backend?: string };
    postgresql?: { pid: number };
  };

/** The effective user id of a process (Linux /proc). */
async function uidOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^Uid:\s+\d+\s+(\d+)/m.exec(status)?.[1]);
}

test('FerretDB runs on PostgreSQL (not as root), reachable only through its socket', async () => {
  const state = await services();
  if (state.mongo.kind === 'mongod') return; // mongod on PATH is used as it is
  expect(state.mongo.backend).toBe('postgresql');
  const pg = state.postgresql!;
  expect(alive(pg.pid)).toBe(true);
  const cmdline = (await readFile(`/proc/${pg.pid}/cmdline`, 'utf8')).split('\0');
  expect(cmdline).toEqual(expect.arrayContaining(['-D', path.join(dataDir, 'postgresql/data')]));
  expect(cmdline).toEqual(expect.arrayContaining(['-c', 'listen_addresses=']));
  expect(await uidOf(pg.pid)).not.toBe(0);
  // No TCP socket of the postmaster: its listening sockets are unix ones only.
  const tcp =
    (await readFile('/proc/net/tcp', 'utf8')) + (await readFile('/proc/net/tcp6', 'utf8'));
  const inodes = new Set(
    tcp
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/)[9]),
  );
  const fds = await execFile('ls', ['-l', `/proc/${pg.pid}/fd`]);
  const sockets = [...fds.stdout.matchAll(/socket:\[(\d+)\]/g)].map((m) => m[1]);
  expect(sockets.length).toBeGreaterThan(0);
  expect(sockets.filter((inode) => inodes.has(inode))).toEqual([]);
});

test('SIGTERM stops everything, services included, within its deadline, with no orphan', async () => {
  const tree = await descendants(server.pid!);
  const state = await services();
  const servicePids = [
    state.redis.pid,
    state.mongo.pid,
    ...(state.postgresql ? [state.postgresql.pid] : []),
  ];
  const pids = [...new Set([...tree, ...servicePids])];
  expect(tree).toEqual(expect.arrayContaining(servicePids));
  expect(pids.length).toBeGreaterThanOrEqual(5); // node supervisor, api, workers, redis, mongo

  const exited = once(server, 'exit');
  server.kill('SIGTERM');
  const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
  // Within its deadline: nothing was killed or cut short, which the supervisor and each process
  // say when it happens (how long a stop takes is no bound on a shared machine).
  expect(output).not.toMatch(/did not stop within the shutdown deadline|deadline passed|forcing/);
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  // The supervisor waits for its children, so they are gone at its exit (a re-parented one is
  // reaped a moment later); a lingering orphan never goes.
  await eventuallyValue(
    'every process of the tree to exit',
    () => Promise.resolve(pids.filter(alive)),
    (left) => left.length === 0,
    { intervalMs: 20 },
  );
});
