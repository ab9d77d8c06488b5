/**
 * Benchmark: whole-file delta patches (docs/delta-updates.md) on real consecutive releases of
 * open-source apps whose APKs are published in npm packages (ops/bench/lib/npm-apks.ts, cached
 * under `.data/bench-delta/`): the patch's share of the full APK (median, p90), generation time
 * and the generator's peak memory (each pair generated in a child process, its peak RSS read by
 * the parent), and every patch applied back by the streaming applier (time, and the SHA-256
 * must be the new APK's).
 *
 *   npm run bench:delta [-- --pairs 7 --apps io.appium.settings,... --json]
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { applyPatch } from '../../device-client/protocol/delta/apply-patch';
import { inflatePatch } from '../../device-client/node/inflater';
import { buildPatch } from '../../shared/delta/build-patch';
import { jvmApplyFigures } from './lib/jvm-apply';
import { lastVersions, npmApk, NPM_APPS, type NpmApp } from './lib/npm-apks';
import { runBench, whole, type Bench, type BenchContext } from './lib/runner';

const run = promisify(execFile);
const CACHE = path.resolve('.data/bench-delta');

interface PairResult {
  readonly app: string;
  readonly from: string;
  readonly to: string;
  readonly newBytes: number;
  readonly patchBytes: number;
  readonly share: number;
  readonly generateMs: number;
  readonly peakRssMiB: number;
  readonly applyMs: number;
  readonly jvm: { readonly format: 1 | 2; oldFile: string; patchFile: string; newSha256: string };
}

/** In the child: generate one patch, write it, print its time. */
async function child(oldFile: string, newFile: string, out: string): Promise<void> {
  const [old, target] = [await readFile(oldFile), await readFile(newFile)];
  const start = process.hrtime.bigint();
  const patch = buildPatch(old, target);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  await writeFile(out, patch);
  process.stdout.write(JSON.stringify({ ms }));
}

async function applyMs(oldFile: string, patchFile: string, newSha256: string): Promise<number> {
  const [old, patch] = [await readFile(oldFile), await readFile(patchFile)];
  const sha = createHash('sha256');
  const start = process.hrtime.bigint();
  async function* once(): AsyncGenerator<Uint8Array> {
    yield await Promise.resolve(patch);
  }
  await applyPatch(
    inflatePatch(once()),
    { size: old.length, read: (at, n) => Promise.resolve(old.subarray(at, at + n)) },
    { write: () => Promise.resolve(), hashers: [sha] },
  );
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (sha.digest('hex') !== newSha256) throw new Error(`${patchFile}: applied, not the new APK`);
  return ms;
}

async function pair(app: NpmApp, from: string, to: string, files: [string, string]) {
  const out = path.join(
    CACHE,
    `${app.npmPackage}-${from}-${to}-${path.basename(files[1])}.ardelta`,
  );
  // A process of its own per pair, so its peak RSS is this generation's alone.
  const script = `require(${JSON.stringify(__filename)}).childMain(${JSON.stringify([...files, out])}).then(() => process.stdout.write(' ' + process.resourceUsage().maxRSS))`;
  const { stdout } = await run(process.execPath, ['-e', script], { maxBuffer: 1 << 20 });
  const [timing, maxRss] = stdout.split(' ');
  const target = await readFile(files[1]);
  const patchBytes = (await readFile(out)).length;
  const newSha = createHash('sha256').update(target).digest('hex');
  return {
    app: app.name,
    from,
    to,
    newBytes: target.length,
    patchBytes,
    share: patchBytes / target.length,
    generateMs: (JSON.parse(timing!) as { ms: number }).ms,
    peakRssMiB: Number(maxRss) / 1024,
    applyMs: await applyMs(files[0], out, newSha),
    jvm: { format: 1 as const, oldFile: files[0], patchFile: out, newSha256: newSha },
  };
}

/** The `p`-quantile (nearest rank) of `values`. */
function quantile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? NaN;
}

async function appPairs(app: NpmApp, count: number, ctx: BenchContext): Promise<PairResult[]> {
  const versions = await lastVersions(app.npmPackage, count + 1);
  const results: PairResult[] = [];
  for (let i = 0; i + 1 < versions.length; i++) {
    const [from, to] = [versions[i]!, versions[i + 1]!];
    const files = [await npmApk(CACHE, app, from), await npmApk(CACHE, app, to)];
    if (!files[0] || !files[1]) continue;
    const result = await pair(app, from, to, [files[0], files[1]]);
    ctx.say(
      `${app.name} ${from} → ${to}: ${(result.share * 100).toFixed(1)} % of ${(result.newBytes / 1e6).toFixed(1)} MB, ` +
        `${result.generateMs.toFixed(0)} ms, ${result.peakRssMiB.toFixed(0)} MiB peak, applied in ${result.applyMs.toFixed(0)} ms`,
    );
    results.push(result);
  }
  return results;
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

export const deltaBench: Bench<{
  pairs: ReturnType<typeof whole>;
  apps: ReturnType<typeof whole>;
}> = {
  usage:
    'Benchmark: whole-file delta patches on real consecutive releases from the npm registry.\n' +
    '  npm run bench:delta [-- --pairs 7 --apps 4 --json]',
  flags: {
    pairs: whole(7, [1, 50], '--pairs: a whole number from 1 to 50', 'consecutive pairs per app'),
    apps: whole(
      NPM_APPS.length,
      [1, NPM_APPS.length],
      `--apps: 1 to ${NPM_APPS.length}`,
      'how many of the apps (in the listed order)',
    ),
  },
  async run(args, ctx) {
    const results: PairResult[] = [];
    for (const app of NPM_APPS.slice(0, args.apps)) {
      results.push(...(await appPairs(app, args.pairs, ctx)));
    }
    const shares = results.map((r) => r.share);
    const summary = {
      pairs: results.length,
      apps: new Set(results.map((r) => r.app)).size,
      shareMedian: quantile(shares, 0.5),
      shareP90: quantile(shares, 0.9),
      generateMsMedian: quantile(
        results.map((r) => r.generateMs),
        0.5,
      ),
      generateMsMax: Math.max(...results.map((r) => r.generateMs)),
      peakRssMiBMax: Math.max(...results.map((r) => r.peakRssMiB)),
      applyMsMax: Math.max(...results.map((r) => r.applyMs)),
    };
    const jvm = await jvmApplyFigures(results.map((r) => r.jvm));
    const text = [
      `${summary.pairs} pairs of ${summary.apps} apps; every patch applied back to the new APK's SHA-256`,
      `patch share of the full APK: median ${pct(summary.shareMedian)}, p90 ${pct(summary.shareP90)}`,
      `generation: median ${summary.generateMsMedian.toFixed(0)} ms, max ${summary.generateMsMax.toFixed(0)} ms; peak RSS of a generation up to ${summary.peakRssMiBMax.toFixed(0)} MiB`,
      `apply (Node, streaming): max ${summary.applyMsMax.toFixed(0)} ms`,
      ...jvm.text,
    ].join('\n');
    return {
      json: { node: process.version, summary, jvmApply: jvm.formats, pairs: results },
      text,
    };
  },
};

/** The child's entry (see `pair`). */
export function childMain([oldFile, newFile, out]: readonly string[]): Promise<void> {
  return child(oldFile!, newFile!, out!);
}

if (require.main === module) void runBench(deltaBench);
