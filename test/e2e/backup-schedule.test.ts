/**
 * Issue 10, must hold 2: two worker processes (the built CLI, `start --only workers`) with the
 * backup scheduler set to every 10 seconds — a test schedule (cron with seconds) standing in for
 * "every minute" to keep the test short — produce exactly one backup per period, and retention
 * deletes archives older than BACKUP_KEEP_DAYS (with their sidecars) and nothing else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { archiveName, archiveTime } from '../../shared/backup/manifest';
import { readLastBackup } from '../../shared/backup/last-backup';
import { verifyBackup } from '../../shared/backup/read-archive';
import { createKeyRing } from '../../shared/crypto/keys';
import { closeRedis, createWorkerRedis } from '../../shared/storage/redis';
import { newAccount } from '../helpers/accounts';
import { stackEnv } from '../helpers/processes';
import { eventually } from '../helpers/eventually';
import { startStack, type TestStack } from '../helpers/stack';

const root = path.resolve(__dirname, '../..');
const PERIOD_MS = 10_000;
jest.setTimeout(420_000);

let stack: TestStack;
let dir: string;
const workers: Array<{ child: ChildProcess; output: string[] }> = [];

beforeAll(async () => {
  stack = await startStack({ workers: false });
  dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-backups-'));
});
afterAll(async () => {
  for (const { child } of workers) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  }
  await stack.close();
  await rm(dir, { recursive: true, force: true });
});

function startWorker(): { child: ChildProcess; output: string[] } {
  const child = spawn('node', ['dist/ops/cli/main.js', 'start', '--only', 'workers'], {
    cwd: root,
    env: stackEnv(stack, {
      BACKUP_CRON: '*/10 * * * * *',
      BACKUP_TZ: 'Europe/Lisbon',
      BACKUP_DIR: dir,
      BACKUP_KEEP_DAYS: '14',
      LOG_LEVEL: 'info',
    }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const output: string[] = [];
  let rest = '';
  child.stdout?.on('data', (d: Buffer) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop() ?? '';
    output.push(...lines);
  });
  return { child, output };
}

test('two workers, a backup every 10 s: one archive per period, old ones pruned', async () => {
  await newAccount(stack);
  const day = 24 * 3600 * 1000;
  const old = archiveName(new Date(Date.now() - 20 * day));
  const recent = archiveName(new Date(Date.now() - 2 * day));
  for (const name of [old, `${old}.sha256`, recent, `${recent}.sha256`, 'notes.txt']) {
    await writeFile(path.join(dir, name), 'not a real archive');
  }
  const started = Date.now();
  workers.push(startWorker(), startWorker());

  const produced = async () =>
    (await readdir(dir))
      .map((n) => ({ n, at: archiveTime(n) }))
      .filter((a) => a.at !== null && a.at.getTime() >= started - PERIOD_MS);
  // Four archives take about 40 s (four periods); polled for ten times that.
  await eventually('four archives', async () => (await produced()).length >= 4, {
    timeoutMs: 400_000,
    intervalMs: 500,
  });
  for (const w of workers) {
    const exited = once(w.child, 'exit');
    w.child.kill('SIGTERM');
    await exited;
  }

  const archives = (await produced()).sort((a, b) => a.at!.getTime() - b.at!.getTime());
  expect(archives.length).toBeGreaterThanOrEqual(4);
  const times = archives.map((a) => a.at!.getTime());
  // One archive per period: each on a period boundary, none twice. Not "consecutive": a run that
  // starts late on a loaded machine goes to the next boundary (a cron schedule skips times that
  // have passed), so a gap of whole periods is the schedule working, not two workers racing.
  for (const t of times) expect(t % PERIOD_MS).toBe(0);
  for (let i = 1; i < times.length; i++) {
    expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(PERIOD_MS);
  }
  // And one run per period: no period was backed up twice (a second run would rewrite the name).
  const runs = workers
    .flatMap((w) => w.output)
    .filter((l) => l.includes('"msg":"backup written"'))
    .map((l) => (JSON.parse(l) as { jobId: string }).jobId);
  expect(runs.length).toBe(archives.length);
  expect(new Set(runs).size).toBe(runs.length);

  for (const a of archives) {
    const keys = createKeyRing(stack.masterKey);
    expect(await verifyBackup(path.join(dir, a.n), keys)).toMatchObject({ ok: true });
  }
  const left = await readdir(dir);
  expect(left).not.toContain(old);
  expect(left).not.toContain(`${old}.sha256`);
  expect(left).toEqual(expect.arrayContaining([recent, `${recent}.sha256`, 'notes.txt']));
  expect(left.filter((n) => n.startsWith('.staging-'))).toEqual([]);

  const redis = createWorkerRedis(stack.redisUrl, 'test:backup-schedule');
  const last = await readLastBackup(redis, stack.prefix);
  await closeRedis(redis);
  expect(last?.path).toBe(path.join(dir, archives[archives.length - 1]!.n));
});
