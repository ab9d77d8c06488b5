/**
 * Benchmark: sustained exception reports per second through the real pipeline — `POST /exception`
 * (the PushLink form) → API (auth, app, APK hash, installation, the 24 h limit in Redis Lua) →
 * BullMQ → worker → MongoDB — with 1 and 4 API processes, against BullMQ's raw add+process rate
 * (same payload size, a no-op processor) measured in the same run. The clock runs from the first
 * request to the moment MongoDB holds every report. The plan is large so the limit (enforced on
 * every report) admits them all; the run checks that every reply is `Exception sent.`.
 *
 *   npm run bench:exceptions [-- --reports 1000] [-- --concurrency 64] [-- --json]
 *
 * Uses REDIS_URL / MONGO_URL when set, else embedded services for a temporary DATA_DIR. API,
 * worker and raw worker run as their own processes (this file, forked with `--role`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { createAccountsService } from '../../shared/accounts/service';
import { loadConfig, processEnv } from '../../shared/config';
import { createKeyRing } from '../../shared/crypto/keys';
import { ensureIndexes } from '../../shared/indexes';
import { connectMongo } from '../../shared/storage/mongo';
import { closeRedis, createWorkerRedis } from '../../shared/storage/redis';
import { freePort } from '../services/child';
import { ensureServices } from '../services/embedded';
import { drive, formBody, registerBenchDevices, seedApp } from './exceptions-load';
import { runRole, type RoleMessage } from './exceptions-roles';
import { ratio, runBench, whole } from './lib/runner';
import type { Args as BenchArgs, Bench, BenchContext, Flags } from './lib/runner';

const RAW_QUEUE = 'bench-raw';

const ANY = [1, Number.MAX_SAFE_INTEGER] as const;
const FLAGS = {
  reports: whole(1000, ANY, '--reports takes a positive integer', 'reports sent per run'),
  concurrency: whole(64, ANY, '--concurrency takes a positive integer', 'requests in flight'),
} as const satisfies Flags;

type Args = BenchArgs<typeof FLAGS>;

async function waitFor(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 600_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function measure(args: Args, onExit: BenchContext['onExit']): Promise<Results> {
  const config = loadConfig(processEnv());
  const dataDir = await mkdtemp(path.join(tmpdir(), 'apkrelay-bench-exceptions-'));
  const services = await ensureServices({ ...config, dataDir });
  const id = randomBytes(4).toString('hex');
  const base = {
    redisUrl: services.redisUrl,
    mongoUrl: services.mongoUrl,
    database: `bench_${id}`,
    prefix: `bench-${id}`,
    masterKey: randomBytes(32).toString('base64'),
    rawQueue: RAW_QUEUE,
    rawConcurrency: 16,
  };
  const children = new Set<ChildProcess>();
  const spawnRole = async (
    role: RoleMessage['role'],
    ports: RoleMessage['ports'] = [0, 0, 0],
  ): Promise<ChildProcess> => {
    const child = fork(__filename, ['--role'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.add(child);
    const ready = new Promise<void>((resolve, reject) => {
      child.on('message', (m: { type: string; message?: string }) => {
        if (m.type === 'ready') resolve();
        if (m.type === 'failed') reject(new Error(`${role}: ${m.message ?? ''}`));
      });
      child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
    });
    child.send({ type: 'role', role, ports, ...base } satisfies RoleMessage);
    await ready;
    return child;
  };
  const stopChild = async (child: ChildProcess) => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.send({ type: 'stop' });
      await exited;
    }
    children.delete(child);
  };
  const mongo = await connectMongo(services.mongoUrl, base.database);
  const redis = createWorkerRedis(services.redisUrl, 'bench:driver');
  const results: Results = {};
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await Promise.all([...children].map((c) => stopChild(c).catch(() => c.kill('SIGKILL'))));
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.close();
      const keys = await redis.keys(`${base.prefix}:*`).catch(() => [] as string[]);
      if (keys.length > 0) await redis.del(...keys).catch(() => undefined);
      await closeRedis(redis);
      await services.stop();
      await rm(dataDir, { recursive: true, force: true });
    })());
  onExit(cleanup);
  await ensureIndexes(mongo.db);
  const accounts = createAccountsService(
    mongo.db,
    createKeyRing(Buffer.from(base.masterKey, 'base64')),
  );
  // limit = installations × 2, far above the reports sent: every one is admitted, all checked.
  const { account, apiKey } = await accounts.create({
    email: `bench-${id}@example.com`,
    password: 'bench-password',
    plan: { installations: 1_000_000 },
  });

  // BullMQ alone: add the same payload sizes with the same concurrency, a no-op processor.
  const sample = formBody(0, 'dev.bench.raw', 'x', 'y');
  const raw = await spawnRole('raw-worker');
  const queue = new Queue(RAW_QUEUE, { connection: redis, prefix: base.prefix });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: args.concurrency }, async () => {
      for (let i = next++; i < args.reports; i = next++)
        await queue.add('raw', { i, body: sample });
    }),
  );
  await waitFor(
    async () => (await queue.getJobCounts('completed')).completed! >= args.reports,
    'raw jobs',
  );
  results.raw = args.reports / ((performance.now() - started) / 1000);
  process.stderr.write(`  BullMQ raw: ${results.raw.toFixed(1)} jobs/s\n`);
  await queue.close();
  await stopChild(raw);

  const workers = await spawnRole('workers');
  for (const apiCount of [1, 4]) {
    const pkg = `dev.bench.app${apiCount}`;
    const { appId, md5 } = await seedApp(mongo.db, account.id, pkg);
    await registerBenchDevices(mongo.db, account, pkg);
    const apis: ChildProcess[] = [];
    const urls: string[] = [];
    for (let k = 0; k < apiCount; k++) {
      const port = await freePort();
      apis.push(await spawnRole('api', [port, await freePort(), await freePort()]));
      urls.push(`http://127.0.0.1:${port}`);
    }
    const bodies = Array.from({ length: args.reports }, (_, i) => formBody(i, pkg, apiKey, md5));
    process.stderr.write(`${apiCount} API process(es): sending ${args.reports} reports…\n`);
    const t0 = performance.now();
    const texts = await drive(urls, bodies, args.concurrency);
    const replied = performance.now();
    const wrong = texts.filter((t) => t !== 'Exception sent.');
    if (wrong.length > 0) throw new Error(`${wrong.length} reports not sent, e.g. "${wrong[0]}"`);
    // Counting the reports would scan them all on the embedded database and slow the run it
    // measures; the groups (20 per app here) sum to the reports stored and counted.
    const counted = async () => {
      const groups = await mongo.db
        .collection<{ count: number }>('exception_groups')
        .find({ appId: appId.toHexString() }, { projection: { count: 1 } })
        .toArray();
      return groups.reduce((sum, g) => sum + g.count, 0);
    };
    await waitFor(async () => (await counted()) >= args.reports, 'counted reports');
    // Groups are counted just before each report's insert: wait for the inserts too.
    const exact = () =>
      mongo.db.collection('exceptions').countDocuments({ appId: appId.toHexString() });
    await waitFor(async () => (await exact()) >= args.reports, 'inserted reports');
    const stored = await exact();
    if (stored !== args.reports) throw new Error(`${stored} reports stored, not ${args.reports}`);
    const inGroups = await counted();
    if (inGroups !== args.reports) throw new Error(`groups count ${inGroups}, not ${args.reports}`);
    const seconds = (performance.now() - t0) / 1000;
    results[`api${apiCount}`] = args.reports / seconds;
    results[`api${apiCount}Replies`] = args.reports / ((replied - t0) / 1000);
    process.stderr.write(
      `  ${apiCount} API: ${results[`api${apiCount}`]!.toFixed(1)} reports/s stored, ` +
        `${results[`api${apiCount}Replies`]!.toFixed(1)} replies/s\n`,
    );
    await Promise.all(apis.map(stopChild));
  }
  await stopChild(workers);
  return results;
}

type Results = Record<string, number>;

function report(args: Args, r: Results): string {
  const f = (n: number | undefined) => (n ?? 0).toFixed(0).padStart(7);
  const x = (n: number | undefined) => ratio(n ?? 0, r.raw ?? 1);
  return (
    `exception pipeline, ${args.reports} reports, ${args.concurrency} in flight\n` +
    `  BullMQ raw add+process          ${f(r.raw)} jobs/s\n` +
    `  1 API process  → Mongo          ${f(r.api1)} reports/s  (${x(r.api1)} raw; replies ${f(r.api1Replies)}/s)\n` +
    `  4 API processes → Mongo         ${f(r.api4)} reports/s  (${x(r.api4)} raw; replies ${f(r.api4Replies)}/s)`
  );
}

export const exceptionsBench: Bench<typeof FLAGS> = {
  usage:
    'Benchmark: sustained exception reports per second through the real pipeline, with 1 and 4 ' +
    "API processes, against BullMQ's raw add+process rate.\n" +
    '  npm run bench:exceptions [-- --reports 1000] [-- --concurrency 64] [-- --json]',
  flags: FLAGS,
  async run(args, { onExit }) {
    const results = await measure(args, onExit);
    return { json: { ...args, ...results }, text: report(args, results) };
  },
};

if (require.main === module) {
  // The API, worker and raw worker are this file again, forked with `--role`.
  if (process.argv[2] === '--role') runRole();
  else void runBench(exceptionsBench);
}
