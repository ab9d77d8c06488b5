/**
 * Benchmark: end-to-end ingest of large APKs through the real pipeline (API process -> encrypted
 * GridFS staging -> ingest worker verification -> verdict), timed from the first byte sent to the
 * synchronous `deploy successful` reply of `POST /apps/api_upload`, against one in-process pass of
 * SHA-256 + AES-256-GCM over the same bytes in the same run; and the API process's peak RSS growth
 * during each upload (VmRSS sampled every 50 ms), for two sizes to show it does not grow with size.
 *
 *   npm run bench:ingest [-- --sizes 20,100] [-- --repeat 4] [-- --json]
 *
 * The API and the workers run as their own processes (`apkrelay start --only api|workers`) on
 * embedded services for a temporary DATA_DIR; everything is stopped at the end, also on error.
 * A second table says where the time went: body sent vs waiting for the verdict, and the CPU
 * seconds each process (API, workers, MongoDB-protocol server, Redis) used during the upload.
 * The store's own floor is measured in the same run, just before each upload: a raw GridFS put and
 * get of the same file through the driver at the blob store's chunk size (lib/store-floor.ts);
 * ingest is reported as a ratio to that put.
 * Should the server's synchronous wait run out (202 + status URL), the job is polled to its end.
 * Whether the API's memory is bounded: `--repeat N` uploads N distinct APKs of each size in a row,
 * and the API's memory parts (RSS, V8 heap, external, array buffers: its `/metrics`) are read
 * before and after each upload, so memory that grows with every upload shows from one that
 * plateaus (lib/ingest-memory.ts).
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Agent } from 'node:https';
import { stat } from 'node:fs/promises';
import { exchange, type TlsTrust } from '../cli/upload/http-client';
import { streamedForm } from '../cli/upload/multipart-stream';
import { pollStatus } from '../cli/upload/poll-status';
import { jobOf, statusTarget } from '../cli/upload/upload-file';
import { createBenchAccount, startDeployment, type Deployment } from '../dev/deployment';
import { cpuSnapshot } from './lib/cpu-time';
import { breakdownTable, mainTable, MiB, rssVerdict, type Measurement } from './lib/ingest-report';
import { apiMemory, type MemoryProbe } from './lib/api-memory';
import { memoryTable, memoryTrend } from './lib/ingest-memory';
import { rssBytes, sampleRss, type RssPeak } from './lib/rss';
import { runBench, whole, wholes, type Bench, type Flags } from './lib/runner';
import { benchApk } from './lib/signed-apk';
import { measureStoreFloor } from './lib/store-floor';

const REFERENCE_RUNS = 3;
const SAMPLE_MS = 50;
const RSS_TARGET = 64 * MiB;
/** The deployment's METRICS_TOKEN: the bench reads the API's memory parts from its `/metrics`. */
const METRICS_TOKEN = randomBytes(18).toString('base64url');

const FLAGS = {
  sizes: wholes(
    [20, 100],
    [1, 2048],
    '--sizes takes MiB values from 1 to 2048, e.g. --sizes 20,100',
    'APK payload sizes in MiB, comma-separated',
  ),
  repeat: whole(
    1,
    [1, 20],
    '--repeat takes 1 to 20, e.g. --repeat 4',
    'uploads of each size in a row (distinct APKs): does the API memory plateau',
  ),
} as const satisfies Flags;

/** One pass of SHA-256 and AES-256-GCM over a file, as the pipeline's floor; best of N, warm cache. */
async function referencePass(file: string): Promise<number> {
  let best = Infinity;
  for (let run = 0; run < REFERENCE_RUNS; run++) {
    const start = process.hrtime.bigint();
    const hash = createHash('sha256');
    const cipher = createCipheriv('aes-256-gcm', randomBytes(32), randomBytes(12));
    for await (const chunk of createReadStream(file, {
      highWaterMark: MiB,
    }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      cipher.update(chunk);
    }
    hash.digest();
    cipher.final();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  return best;
}

/** Sync-mode legacy upload, streamed from disk: seconds to the verdict, and to the last byte sent. */
async function uploadSync(
  d: Deployment,
  apiKey: string,
  file: string,
): Promise<{ seconds: number; sentSeconds: number }> {
  const tls: TlsTrust = { ca: d.ca };
  const form = await streamedForm([['apiKey', apiKey]], { field: 'apk', path: file });
  const start = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - start) / 1e9;
  let sentSeconds = NaN;
  let sent = 0;
  const body = form.open((n) => {
    sent += n;
    if (sent === form.fileSize) sentSeconds = elapsed();
  });
  const reply = await exchange({
    method: 'POST',
    url: new URL(`${d.adminUrl}/apps/api_upload`),
    headers: { 'content-type': form.contentType, 'content-length': String(form.length) },
    body,
    tls,
  });
  if (reply.status === 200) return { seconds: elapsed(), sentSeconds };
  // The server's synchronous wait ran out: follow the job to its verdict instead.
  const job = jobOf(reply);
  if (!job) throw new Error(`upload of ${file} refused: ${reply.status} ${reply.text}`);
  const decided = await pollStatus(statusTarget(d.adminUrl, job.jobId, job.statusUrl), {
    apiKey,
    tls,
    timeoutMs: 2 * 3_600_000,
  });
  if (decided.status !== 'done') {
    throw new Error(`upload of ${file} rejected: ${JSON.stringify(decided.verdict)}`);
  }
  return { seconds: elapsed(), sentSeconds };
}

async function measure(
  d: Deployment,
  apiKey: string,
  payloadMiB: number,
  file: string,
  probe: MemoryProbe,
): Promise<Measurement> {
  const apkBytes = (await stat(file)).size;
  const referenceSeconds = await referencePass(file);
  const store = await measureStoreFloor(d.mongoUrl, file);
  const memoryBefore = await apiMemory(probe);
  const apiBaseline = (await rssBytes(d.apiPid)) ?? 0;
  const workersBaseline = (await rssBytes(d.workersPid)) ?? 0;
  const samplers = [sampleRss(d.apiPid, SAMPLE_MS), sampleRss(d.workersPid, SAMPLE_MS)];
  const stopSampling = () => Promise.all(samplers.map((s) => s.stop()));
  const pids: Record<string, number> = { api: d.apiPid, workers: d.workersPid };
  if (d.servicePids.mongo !== null) pids.mongo = d.servicePids.mongo;
  if (d.servicePids.redis !== null) pids.redis = d.servicePids.redis;
  const cpuUsed = await cpuSnapshot(pids);
  let timing: { seconds: number; sentSeconds: number };
  try {
    timing = await uploadSync(d, apiKey, file);
  } catch (err) {
    await stopSampling();
    throw err;
  }
  const [apiRss, workersRss] = (await stopSampling()) as [RssPeak, RssPeak];
  const cpuSeconds = await cpuUsed();
  const memoryAfter = await apiMemory(probe);
  const { seconds, sentSeconds } = timing;
  const mib = apkBytes / MiB;
  return {
    payloadMiB,
    apkBytes,
    seconds,
    sentSeconds,
    mibPerSecond: mib / seconds,
    reference: { seconds: referenceSeconds, mibPerSecond: mib / referenceSeconds },
    ratio: seconds / referenceSeconds,
    store,
    storeRatio: seconds / store.putSeconds,
    api: { baselineRss: apiBaseline, peakRss: apiRss.peak, growth: apiRss.peak - apiBaseline },
    workers: { baselineRss: workersBaseline, peakRss: workersRss.peak },
    rssSamples: apiRss.samples,
    cpuSeconds,
    memory: { before: memoryBefore, after: memoryAfter },
  };
}

/** The APKs, built before any timing: one app, a versionCode per upload (and a warm-up one). */
async function buildApks(sizes: readonly number[], repeat: number) {
  const warmUp = await benchApk({
    payloadBytes: MiB,
    package: 'dev.apkrelay.bench.ingest',
    versionCode: 1,
  });
  const files: Array<[number, string]> = [];
  for (const [i, size] of sizes.entries()) {
    for (let r = 0; r < repeat; r++) {
      const file = await benchApk({
        payloadBytes: size * MiB,
        package: 'dev.apkrelay.bench.ingest',
        versionCode: 100 + i * repeat + r,
      });
      files.push([size, file]);
    }
  }
  const largest = Math.max(
    ...(await Promise.all(files.map(async ([, f]) => (await stat(f)).size))),
  );
  return { warmUp, files, largest };
}

function report(rows: readonly Measurement[]): string {
  return [
    '',
    mainTable(rows),
    '',
    breakdownTable(rows),
    '',
    'e2e: first byte sent -> synchronous "deploy successful" (API streams + encrypts into GridFS, ' +
      'worker decrypts and verifies v1/v2/v3, records); ref: one in-process SHA-256 + AES-256-GCM ' +
      `pass over the same file (best of ${REFERENCE_RUNS}, page cache warm); store put/get: the ` +
      "same file through the driver's GridFSBucket at the blob store's chunk size, same run " +
      '(e2e/put: the ratio the target "ingest <= 2x the raw put" is about).',
    `RSS: VmRSS of the API process sampled every ${SAMPLE_MS} ms; growth = peak - RSS just before the upload.`,
    rssVerdict(rows, RSS_TARGET),
    '',
    memoryTable(rows),
    '',
    'API memory from its /metrics just before each upload (after the store floor) and just ' +
      'after its verdict, without a forced GC (heap figures include garbage not yet collected).',
    memoryTrend(rows),
  ].join('\n');
}

export const ingestBench: Bench<typeof FLAGS> = {
  usage:
    'Benchmark: end-to-end ingest of large APKs, against one SHA-256 + AES-256-GCM pass.\n' +
    '  npm run bench:ingest [-- --sizes 20,100] [-- --repeat 4] [-- --json]',
  flags: FLAGS,
  async run({ sizes, repeat }, { say, onExit }) {
    say(`APKs: ${sizes.join(', ')} MiB of random stored assets (built once, cached in the tmpdir)`);
    const { warmUp, files, largest } = await buildApks(sizes, repeat);
    say('starting services, API and workers (separate processes) ...');
    const deployment = await startDeployment({
      maxApkBytes: Math.max(64 * MiB, 2 * largest),
      env: { METRICS_TOKEN },
    });
    onExit(() => deployment.stop());
    const agent = new Agent({ keepAlive: false });
    const probe = { agent, ca: deployment.ca, adminUrl: deployment.adminUrl, token: METRICS_TOKEN };
    const apiKey = await createBenchAccount(deployment);
    await uploadSync(deployment, apiKey, warmUp); // load every code path before measuring
    const rows: Measurement[] = [];
    for (const [size, file] of files) {
      say(`uploading ${size} MiB ...`);
      rows.push(await measure(deployment, apiKey, size, file, probe));
    }
    const json = { node: process.version, sampleMs: SAMPLE_MS, rssTarget: RSS_TARGET, runs: rows };
    return { json, text: report(rows) };
  },
};

if (require.main === module) void runBench(ingestBench);
