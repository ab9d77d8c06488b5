/**
 * Benchmark: end-to-end ingest of large APKs through the real pipeline (API process -> encrypted
 * GridFS staging -> ingest worker verification -> verdict), timed from the first byte sent to the
 * synchronous `deploy successful` reply of `POST /apps/api_upload`, against one in-process pass of
 * SHA-256 + AES-256-GCM over the same bytes in the same run; and the API process's peak RSS growth
 * during each upload (VmRSS sampled every 50 ms), for two sizes to show it does not grow with size.
 *
 *   npm run bench:ingest [-- --sizes 20,100] [-- --json]
 *
 * The API and the workers run as their own processes (`apkrelay start --only api|workers`) on
 * embedded services for a temporary DATA_DIR; everything is stopped at the end, also on error.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { exchange, type TlsTrust } from '../cli/upload/http-client';
import { streamedForm } from '../cli/upload/multipart-stream';
import { startDeployment, type Deployment } from './lib/deployment';
import { rssBytes, sampleRss, type RssPeak } from './lib/rss';
import { benchApk } from './lib/signed-apk';

const MiB = 1024 * 1024;
const REFERENCE_RUNS = 3;
const SAMPLE_MS = 50;
const RSS_TARGET = 64 * MiB;

interface Measurement {
  readonly payloadMiB: number;
  readonly apkBytes: number;
  readonly seconds: number;
  readonly mibPerSecond: number;
  readonly reference: { readonly seconds: number; readonly mibPerSecond: number };
  /** End-to-end time over the reference pass time. */
  readonly ratio: number;
  readonly api: { readonly baselineRss: number; readonly peakRss: number; readonly growth: number };
  readonly workers: { readonly baselineRss: number; readonly peakRss: number };
  readonly rssSamples: number;
}

function parseArgs(argv: readonly string[]): { sizes: number[]; json: boolean } {
  let sizes = [20, 100];
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') json = true;
    else if (arg === '--sizes') {
      sizes = (argv[++i] ?? '').split(',').map(Number);
      if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 2048)) {
        throw new Error('--sizes takes MiB values from 1 to 2048, e.g. --sizes 20,100');
      }
    } else throw new Error(`unknown argument ${arg ?? ''} (use --sizes 20,100 and/or --json)`);
  }
  return { sizes, json };
}

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

async function createAccount(d: Deployment): Promise<string> {
  const body = Buffer.from(
    JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: 'bench-password-1' }),
  );
  const reply = await exchange({
    method: 'POST',
    url: new URL(`${d.adminUrl}/api/v2/accounts`),
    headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
    body: Readable.from([body]),
    tls: { ca: d.ca },
  });
  if (reply.status !== 201) throw new Error(`account creation failed: HTTP ${reply.status}`);
  return (JSON.parse(reply.text) as { apiKey: string }).apiKey;
}

/** Sync-mode legacy upload, streamed from disk; resolves with the seconds to the verdict. */
async function uploadSync(d: Deployment, apiKey: string, file: string): Promise<number> {
  const tls: TlsTrust = { ca: d.ca };
  const form = await streamedForm([['apiKey', apiKey]], { field: 'apk', path: file });
  const start = process.hrtime.bigint();
  const reply = await exchange({
    method: 'POST',
    url: new URL(`${d.adminUrl}/apps/api_upload`),
    headers: { 'content-type': form.contentType, 'content-length': String(form.length) },
    body: form.open(),
    tls,
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (reply.status !== 200)
    throw new Error(`upload of ${file} refused: ${reply.status} ${reply.text}`);
  return seconds;
}

async function measure(
  d: Deployment,
  apiKey: string,
  payloadMiB: number,
  file: string,
): Promise<Measurement> {
  const apkBytes = (await stat(file)).size;
  const referenceSeconds = await referencePass(file);
  const apiBaseline = (await rssBytes(d.apiPid)) ?? 0;
  const workersBaseline = (await rssBytes(d.workersPid)) ?? 0;
  const samplers = [sampleRss(d.apiPid, SAMPLE_MS), sampleRss(d.workersPid, SAMPLE_MS)];
  const stopSampling = () => Promise.all(samplers.map((s) => s.stop()));
  let seconds: number;
  try {
    seconds = await uploadSync(d, apiKey, file);
  } catch (err) {
    await stopSampling();
    throw err;
  }
  const [apiRss, workersRss] = (await stopSampling()) as [RssPeak, RssPeak];
  const mib = apkBytes / MiB;
  return {
    payloadMiB,
    apkBytes,
    seconds,
    mibPerSecond: mib / seconds,
    reference: { seconds: referenceSeconds, mibPerSecond: mib / referenceSeconds },
    ratio: seconds / referenceSeconds,
    api: { baselineRss: apiBaseline, peakRss: apiRss.peak, growth: apiRss.peak - apiBaseline },
    workers: { baselineRss: workersBaseline, peakRss: workersRss.peak },
    rssSamples: apiRss.samples,
  };
}

function table(rows: readonly Measurement[]): string {
  const mb = (bytes: number) => `${(bytes / MiB).toFixed(1)}`;
  const header = [
    'APK MiB',
    'e2e s',
    'e2e MiB/s',
    'ref s',
    'ref MiB/s',
    'e2e/ref',
    'API RSS base',
    'API RSS peak',
    'API growth',
    'workers peak',
  ];
  const body = rows.map((m) => [
    mb(m.apkBytes),
    m.seconds.toFixed(2),
    m.mibPerSecond.toFixed(1),
    m.reference.seconds.toFixed(3),
    m.reference.mibPerSecond.toFixed(0),
    `${m.ratio.toFixed(1)}x`,
    `${mb(m.api.baselineRss)} MiB`,
    `${mb(m.api.peakRss)} MiB`,
    `${mb(m.api.growth)} MiB`,
    `${mb(m.workers.peakRss)} MiB`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

function verdictOnRss(rows: readonly Measurement[]): string {
  const worst = Math.max(...rows.map((m) => m.api.growth));
  const ok = worst < RSS_TARGET;
  return `API peak RSS growth: at most ${(worst / MiB).toFixed(1)} MiB (target < ${RSS_TARGET / MiB} MiB): ${ok ? 'met' : 'NOT met'}`;
}

async function main(argv: readonly string[]): Promise<void> {
  const { sizes, json } = parseArgs(argv);
  const say = (text: string) => {
    if (!json) process.stdout.write(`${text}\n`);
  };
  // Build (or find) the APKs before any timing: one app, one versionCode per size.
  say(`APKs: ${sizes.join(', ')} MiB of random stored assets (built once, cached in the tmpdir)`);
  const warmUp = await benchApk({
    payloadBytes: MiB,
    package: 'dev.apkrelay.bench.ingest',
    versionCode: 1,
  });
  const files: Array<[number, string]> = [];
  for (const [i, size] of sizes.entries()) {
    const file = await benchApk({
      payloadBytes: size * MiB,
      package: 'dev.apkrelay.bench.ingest',
      versionCode: 100 + i,
    });
    files.push([size, file]);
  }
  const largest = Math.max(
    ...(await Promise.all(files.map(async ([, f]) => (await stat(f)).size))),
  );
  say('starting services, API and workers (separate processes) ...');
  const deployment = await startDeployment({ maxApkBytes: Math.max(64 * MiB, 2 * largest) });
  const onSignal = () => void deployment.stop().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const apiKey = await createAccount(deployment);
    await uploadSync(deployment, apiKey, warmUp); // load every code path before measuring
    const rows: Measurement[] = [];
    for (const [size, file] of files) {
      say(`uploading ${size} MiB ...`);
      rows.push(await measure(deployment, apiKey, size, file));
    }
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ node: process.version, sampleMs: SAMPLE_MS, rssTarget: RSS_TARGET, runs: rows })}\n`,
      );
    } else {
      say('');
      say(table(rows));
      say('');
      say(
        'e2e: first byte sent -> synchronous "deploy successful" (API streams + encrypts into GridFS, ' +
          'worker decrypts and verifies v1/v2/v3, records); ref: one in-process SHA-256 + AES-256-GCM ' +
          `pass over the same file (best of ${REFERENCE_RUNS}, page cache warm).`,
      );
      say(
        `RSS: VmRSS of the API process sampled every ${SAMPLE_MS} ms; growth = peak - RSS just before the upload.`,
      );
      say(verdictOnRss(rows));
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await deployment.stop();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
