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
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { ObjectId, type Db } from 'mongodb';
import { createAccountsService } from '../../shared/accounts/service';
import { loadConfig, processEnv } from '../../shared/config';
import { createKeyRing } from '../../shared/crypto/keys';
import { ensureIndexes } from '../../shared/storage/indexes';
import { connectMongo } from '../../shared/storage/mongo';
import { closeRedis, createWorkerRedis } from '../../shared/storage/redis';
import { freePort } from '../services/child';
import { ensureServices } from '../services/embedded';
import { runRole, type RoleMessage } from './exceptions-roles';

const RAW_QUEUE = 'bench-raw';

function parseArgs(argv: readonly string[]) {
  const out = { reports: 1000, concurrency: 64, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') out.json = true;
    else if (arg === '--reports' || arg === '--concurrency') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${arg} takes a positive integer`);
      out[arg === '--reports' ? 'reports' : 'concurrency'] = n;
    } else throw new Error(`unknown argument ${arg ?? ''}`);
  }
  return out;
}

/** A realistic report: 30 stack lines, 50 log lines, 3 metadata pairs, no screenshot. */
function formBody(i: number, pkg: string, apiKey: string, md5: string): string {
  const p = new URLSearchParams();
  p.append('package', pkg);
  p.append('api_key', apiKey);
  p.append('hash', md5);
  p.append('deviceId', `bench-device-${i % 500}`);
  p.append('st[]', `java.lang.IllegalStateException: bench failure ${i}`);
  for (let f = 0; f < 29; f++)
    p.append('st[]', `\tat dev.bench.Module${i % 20}.step${f}(Module.java:${f + 1})`);
  for (let l = 0; l < 50; l++)
    p.append(
      'lc[]',
      `11-21 05:00:${String(l % 60).padStart(2, '0')}.000 I/Bench: line ${l} of ${i}`,
    );
  ['user', 'screen', 'build'].forEach((k, j) => {
    p.append(`userInfo${j}[]`, k);
    p.append(`userInfo${j}[]`, `${k}-${i}`);
  });
  p.append('handled', String(i % 2 === 0));
  return p.toString();
}

async function seedApp(
  db: Db,
  accountId: string,
  pkg: string,
): Promise<{ appId: ObjectId; md5: string }> {
  const appId = new ObjectId();
  const md5 = createHash('md5').update(pkg).digest('hex');
  const now = new Date();
  await db.collection('apps').insertOne({
    _id: appId,
    accountId,
    package: pkg,
    label: 'Bench',
    signerSha256: '0'.repeat(64),
    currentApkId: null,
    currentVersion: 0,
    createdAt: now,
    updatedAt: now,
  });
  await db.collection('apks').insertOne({
    _id: new ObjectId(),
    appId,
    accountId,
    package: pkg,
    versionCode: 1,
    versionName: '1.0',
    label: 'Bench',
    md5,
    sha256: md5,
    uploadedAt: now,
  });
  return { appId, md5 };
}

/** Sends every body with `concurrency` requests in flight over keep-alive; returns reply texts. */
async function drive(urls: string[], bodies: string[], concurrency: number): Promise<string[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const texts: string[] = new Array<string>(bodies.length);
  let next = 0;
  const post = (url: string, body: string) =>
    new Promise<string>((resolve, reject) => {
      const req = request(
        `${url}/exception`,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const loop = async () => {
    for (let i = next++; i < bodies.length; i = next++) {
      texts[i] = await post(urls[i % urls.length]!, bodies[i]!);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, loop));
  } finally {
    agent.destroy();
  }
  return texts;
}

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

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
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
  const spawnRole = async (role: RoleMessage['role'], port = 0): Promise<ChildProcess> => {
    const child = fork(__filename, ['--role'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.add(child);
    const ready = new Promise<void>((resolve, reject) => {
      child.on('message', (m: { type: string; message?: string }) => {
        if (m.type === 'ready') resolve();
        if (m.type === 'failed') reject(new Error(`${role}: ${m.message ?? ''}`));
      });
      child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
    });
    child.send({ type: 'role', role, port, ...base } satisfies RoleMessage);
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
  const results: Record<string, number> = {};
  try {
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
    await queue.close();
    await stopChild(raw);

    const workers = await spawnRole('workers');
    for (const apiCount of [1, 4]) {
      const pkg = `dev.bench.app${apiCount}`;
      const { appId, md5 } = await seedApp(mongo.db, account.id, pkg);
      const apis: ChildProcess[] = [];
      const urls: string[] = [];
      for (let k = 0; k < apiCount; k++) {
        const port = await freePort();
        apis.push(await spawnRole('api', port));
        urls.push(`http://127.0.0.1:${port}`);
      }
      const bodies = Array.from({ length: args.reports }, (_, i) => formBody(i, pkg, apiKey, md5));
      process.stderr.write(`${apiCount} API process(es): sending ${args.reports} reports…\n`);
      const t0 = performance.now();
      const texts = await drive(urls, bodies, args.concurrency);
      const replied = performance.now();
      const wrong = texts.filter((t) => t !== 'Exception sent.');
      if (wrong.length > 0) throw new Error(`${wrong.length} reports not sent, e.g. "${wrong[0]}"`);
      // Counting the reports would scan them all on FerretDB and slow the run it measures; the
      // groups (20 per app here) sum to the reports stored and counted.
      const stored = async () => {
        const groups = await mongo.db
          .collection<{ count: number }>('exception_groups')
          .find({ appId: appId.toHexString() }, { projection: { count: 1 } })
          .toArray();
        return groups.reduce((sum, g) => sum + g.count, 0);
      };
      await waitFor(async () => (await stored()) >= args.reports, 'stored reports');
      const exact = await mongo.db
        .collection('exceptions')
        .countDocuments({ appId: appId.toHexString() });
      if (exact !== args.reports) throw new Error(`${exact} reports stored, not ${args.reports}`);
      const seconds = (performance.now() - t0) / 1000;
      results[`api${apiCount}`] = args.reports / seconds;
      results[`api${apiCount}Replies`] = args.reports / ((replied - t0) / 1000);
      await Promise.all(apis.map(stopChild));
    }
    await stopChild(workers);
    print(args, results);
  } finally {
    await Promise.all([...children].map((c) => stopChild(c).catch(() => c.kill('SIGKILL'))));
    await mongo.db.dropDatabase().catch(() => undefined);
    await mongo.close();
    const keys = await redis.keys(`${base.prefix}:*`).catch(() => [] as string[]);
    if (keys.length > 0) await redis.del(...keys).catch(() => undefined);
    await closeRedis(redis);
    await services.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function print(args: ReturnType<typeof parseArgs>, r: Record<string, number>): void {
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ ...args, ...r })}\n`);
    return;
  }
  const f = (n: number | undefined) => (n ?? 0).toFixed(0).padStart(7);
  process.stdout.write(
    `exception pipeline, ${args.reports} reports, ${args.concurrency} in flight\n` +
      `  BullMQ raw add+process          ${f(r.raw)} jobs/s\n` +
      `  1 API process  → Mongo          ${f(r.api1)} reports/s  (${((r.api1 ?? 0) / (r.raw ?? 1)).toFixed(2)} × raw; replies ${f(r.api1Replies)}/s)\n` +
      `  4 API processes → Mongo         ${f(r.api4)} reports/s  (${((r.api4 ?? 0) / (r.raw ?? 1)).toFixed(2)} × raw; replies ${f(r.api4Replies)}/s)\n`,
  );
}

if (process.argv[2] === '--role') runRole();
else {
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  });
}
