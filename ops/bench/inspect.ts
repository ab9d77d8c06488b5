/**
 * Benchmark: `inspect` throughput on a ~100 MB signed APK, against one plain SHA-256 pass over
 * the same bytes and against `apksigner verify`, measured in the same run.
 *
 *   npm run bench:inspect [-- --json]   (or: npm run build:bench && node dist/ops/bench/inspect.js)
 *
 * The APK is built once (ops/bench/lib/signed-apk.ts: aapt with a large stored asset, zipalign,
 * apksigner with the fixture key) and cached under the OS temporary directory.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { inspectApk } from '../../shared/apk';
import { ratio, runBench, type Bench, type Flag } from './lib/runner';
import { manifestScaling } from './lib/manifest-scaling';
import { benchApk } from './lib/signed-apk';

const run = promisify(execFile);
const ASSET_BYTES = 100 * 1024 * 1024;
const RUNS = 3;

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

async function best<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  let result = await timed(fn);
  for (let i = 1; i < RUNS; i++) {
    const next = await timed(fn);
    if (next.ms < result.ms) result = next;
  }
  return result;
}

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file, { highWaterMark: 1024 * 1024 })
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

export const inspectBench: Bench<Record<never, Flag>> = {
  usage:
    'Benchmark: inspect throughput on a ~100 MB signed APK, against one SHA-256 pass and ' +
    'apksigner verify.\n  npm run bench:inspect [-- --json]',
  flags: {},
  async run() {
    const APK = await benchApk({ payloadBytes: ASSET_BYTES });
    const size = (await stat(APK)).size;
    const mb = size / (1024 * 1024);
    await sha256File(APK); // warm the page cache
    const sha = await best(() => sha256File(APK));
    const inspect = await best(() => inspectApk(APK));
    if (!inspect.value.valid)
      throw new Error(`bench APK did not verify: ${JSON.stringify(inspect.value.errors)}`);
    if (inspect.value.sha256 !== sha.value)
      throw new Error('inspect and the reference SHA-256 disagree');
    const apksigner = await best(() => run('apksigner', ['verify', APK]));
    const scaling = manifestScaling();
    const rate = (ms: number): string => `${(mb / (ms / 1000)).toFixed(1)} MB/s`;
    const rows: Array<[string, number]> = [
      ['sha256 (one pass)', sha.ms],
      ['inspect', inspect.ms],
      ['apksigner verify', apksigner.ms],
    ];
    const text = [
      `APK ${APK}: ${mb.toFixed(1)} MB, schemes ${JSON.stringify(inspect.value.schemes)}`,
      `best of ${RUNS} runs each, page cache warm`,
      ...rows.map(
        ([name, ms]) =>
          `  ${name.padEnd(18)} ${ms.toFixed(0).padStart(6)} ms  ${rate(ms).padStart(12)}`,
      ),
      `  inspect / sha256 time: ${ratio(inspect.ms, sha.ms)}   apksigner / inspect time: ${ratio(apksigner.ms, inspect.ms)}`,
      'v1 manifest parser on hostile input, 10x the input (linear: about 10x the time):',
      ...scaling.map(
        (r) =>
          `  ${r.input.padEnd(34)} ${r.smallMs.toFixed(1).padStart(8)} ms -> ${r.largeMs.toFixed(1).padStart(8)} ms  growth ${r.growth.toFixed(1)}x`,
      ),
    ].join('\n');
    const json = {
      node: process.version,
      apkBytes: size,
      runs: RUNS,
      ms: { sha256: sha.ms, inspect: inspect.ms, apksigner: apksigner.ms },
      manifestScaling: scaling,
    };
    return { json, text };
  },
};

if (require.main === module) void runBench(inspectBench);
