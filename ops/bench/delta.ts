/**
 * Benchmark: delta patches (docs/delta-updates.md) on real consecutive releases of open-source
 * apps whose APKs are published in npm packages (ops/bench/lib/npm-apks.ts, cached under
 * `.data/bench-delta/`): for each format, ARDELTA1 (whole file) and ARDELTA2 (file by file), the
 * patch's share of the full APK (median, p90), generation time and the generator's peak memory
 * (each patch generated in a child process, its peak RSS read by the parent), ARDELTA2's share
 * of changed deflated entries reproduced, and every patch applied back by the streaming applier
 * (time, and the SHA-256 must be the new APK's).
 *
 *   npm run bench:delta [-- --pairs 7 --apps io.appium.settings,... --json]
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { applyPatch, type OldFile } from '../../device-client/protocol/delta/apply-patch';
import { applyPatch2 } from '../../device-client/protocol/delta/apply-patch2';
import { inflatePatch } from '../../device-client/node/inflater';
import { buildPatch } from '../../shared/delta/build-patch';
import { buildPatch2 } from '../../shared/delta/build-patch2';
import { jvmApplyFigures, type JvmApplyInput } from './lib/jvm-apply';
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
  /** ARDELTA2 (null when none can be made for the pair: ARDELTA1 serves it). */
  readonly v2: {
    readonly patchBytes: number;
    readonly share: number;
    readonly generateMs: number;
    readonly peakRssMiB: number;
    readonly applyMs: number;
  } | null;
  /** Changed deflated entries of the new APK, and how many pako reproduced. */
  readonly changedEntries: number;
  readonly reproducedEntries: number;
  /** The pair's patches, for the JVM applier (ops/bench/lib/jvm-apply.ts). */
  readonly jvm: readonly JvmApplyInput[];
}

interface ChildTiming {
  readonly ms: number;
  readonly made: boolean;
  readonly changed?: number;
  readonly reproduced?: number;
}

/** In the child: generate one patch of `format`, write it, print its time. */
async function child(oldFile: string, newFile: string, out: string, format: string) {
  const [old, target] = [await readFile(oldFile), await readFile(newFile)];
  const start = process.hrtime.bigint();
  const made = format === '2' ? await buildPatch2(old, target) : { patch: buildPatch(old, target) };
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (made?.patch != null) await writeFile(out, made.patch);
  const timing: ChildTiming = {
    ms,
    made: made?.patch != null,
    ...(made !== null && 'changed' in made
      ? { changed: made.changed, reproduced: made.reproduced }
      : {}),
  };
  process.stdout.write(JSON.stringify(timing));
}

const oldFileOf = (old: Buffer): OldFile => ({
  size: old.length,
  read: (at, n) => Promise.resolve(old.subarray(at, at + n)),
});

/** Applies a patch file back (ARDELTA2's dfOld in memory); its time; throws unless the new APK. */
async function applyMs(oldFile: string, patchFile: string, newSha256: string, format: 1 | 2) {
  const [old, patch] = [await readFile(oldFile), await readFile(patchFile)];
  const sha = createHash('sha256');
  const start = process.hrtime.bigint();
  async function* once(): AsyncGenerator<Uint8Array> {
    yield await Promise.resolve(patch);
  }
  const target = { write: () => Promise.resolve(), hashers: [sha] };
  if (format === 1) await applyPatch(inflatePatch(once()), oldFileOf(old), target);
  else {
    const parts: Buffer[] = [];
    const scratch = {
      append: (c: Uint8Array) => Promise.resolve(void parts.push(Buffer.from(c))),
      finish: () => Promise.resolve(oldFileOf(Buffer.concat(parts))),
    };
    await applyPatch2(inflatePatch(once()), oldFileOf(old), scratch, target);
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (sha.digest('hex') !== newSha256) throw new Error(`${patchFile}: applied, not the new APK`);
  return ms;
}

/** One patch of `format` made in a process of its own, so its peak RSS is this generation's. */
async function generated(files: [string, string], out: string, format: 1 | 2) {
  const args = JSON.stringify([...files, out, String(format)]);
  const script = `require(${JSON.stringify(__filename)}).childMain(${args}).then(() => process.stdout.write(' ' + process.resourceUsage().maxRSS))`;
  const { stdout } = await run(process.execPath, ['-e', script], { maxBuffer: 1 << 20 });
  const [timing, maxRss] = stdout.split(' ');
  return { timing: JSON.parse(timing!) as ChildTiming, peakRssMiB: Number(maxRss) / 1024 };
}

async function pair(app: NpmApp, from: string, to: string, files: [string, string]) {
  const out = path.join(CACHE, `${app.npmPackage}-${from}-${to}-${path.basename(files[1])}`);
  const target = await readFile(files[1]);
  const newSha = createHash('sha256').update(target).digest('hex');
  const one = await generated(files, `${out}.ardelta`, 1);
  const two = await generated(files, `${out}.ardelta2`, 2);
  const patchBytes = (await readFile(`${out}.ardelta`)).length;
  const v2Bytes = two.timing.made ? (await readFile(`${out}.ardelta2`)).length : 0;
  return {
    app: app.name,
    from,
    to,
    newBytes: target.length,
    patchBytes,
    share: patchBytes / target.length,
    generateMs: one.timing.ms,
    peakRssMiB: one.peakRssMiB,
    applyMs: await applyMs(files[0], `${out}.ardelta`, newSha, 1),
    v2: two.timing.made
      ? {
          patchBytes: v2Bytes,
          share: v2Bytes / target.length,
          generateMs: two.timing.ms,
          peakRssMiB: two.peakRssMiB,
          applyMs: await applyMs(files[0], `${out}.ardelta2`, newSha, 2),
        }
      : null,
    changedEntries: two.timing.changed ?? 0,
    reproducedEntries: two.timing.reproduced ?? 0,
    jvm: [
      { format: 1 as const, oldFile: files[0], patchFile: `${out}.ardelta`, newSha256: newSha },
      ...(two.timing.made
        ? [
            {
              format: 2 as const,
              oldFile: files[0],
              patchFile: `${out}.ardelta2`,
              newSha256: newSha,
            },
          ]
        : []),
    ],
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
        `${result.generateMs.toFixed(0)} ms, ${result.peakRssMiB.toFixed(0)} MiB peak, applied in ${result.applyMs.toFixed(0)} ms; ` +
        v2Line(result),
    );
    results.push(result);
  }
  return results;
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

function v2Line(r: PairResult): string {
  const entries = `${r.reproducedEntries}/${r.changedEntries} changed deflated entries reproduced`;
  if (r.v2 === null) return `ARDELTA2: none (${entries})`;
  return (
    `ARDELTA2 ${pct(r.v2.share)}, ${r.v2.generateMs.toFixed(0)} ms, ${r.v2.peakRssMiB.toFixed(0)} MiB peak, ` +
    `applied in ${r.v2.applyMs.toFixed(0)} ms (${entries})`
  );
}

/** One format's patches: share, generation time, peak RSS and apply time. */
interface Figures {
  readonly share: number;
  readonly generateMs: number;
  readonly peakRssMiB: number;
  readonly applyMs: number;
}

function figures(list: readonly Figures[]) {
  const of = (pick: (f: Figures) => number) => list.map(pick);
  return {
    shareMedian: quantile(
      of((f) => f.share),
      0.5,
    ),
    shareP90: quantile(
      of((f) => f.share),
      0.9,
    ),
    generateMsMedian: quantile(
      of((f) => f.generateMs),
      0.5,
    ),
    generateMsMax: Math.max(...of((f) => f.generateMs)),
    peakRssMiBMax: Math.max(...of((f) => f.peakRssMiB)),
    applyMsMax: Math.max(...of((f) => f.applyMs)),
  };
}

/** ARDELTA2's figures over the pairs; a pair without one counts with its ARDELTA1 share. */
function v2Summary(results: readonly PairResult[]) {
  const made = results.flatMap((r) => (r.v2 === null ? [] : [r.v2]));
  const served = results.map((r) => Math.min(r.share, r.v2?.share ?? Infinity));
  const changed = results.reduce((n, r) => n + r.changedEntries, 0);
  const reproduced = results.reduce((n, r) => n + r.reproducedEntries, 0);
  return {
    made: made.length,
    ...figures(made),
    servedShareMedian: quantile(served, 0.5),
    servedShareP90: quantile(served, 0.9),
    reproducedShare: changed === 0 ? NaN : reproduced / changed,
    changedEntries: changed,
    reproducedEntries: reproduced,
  };
}

function v2Text(pairs: number, v2: ReturnType<typeof v2Summary>): string[] {
  return [
    `ARDELTA2 made for ${v2.made} of ${pairs} pairs, every one applied back to the new APK's SHA-256; ` +
      `share: median ${pct(v2.shareMedian)}, p90 ${pct(v2.shareP90)} (goal ≤ 15 %)`,
    `smaller of the two formats per pair: median ${pct(v2.servedShareMedian)}, p90 ${pct(v2.servedShareP90)}`,
    `ARDELTA2 generation: median ${v2.generateMsMedian.toFixed(0)} ms, max ${v2.generateMsMax.toFixed(0)} ms; ` +
      `peak RSS up to ${v2.peakRssMiBMax.toFixed(0)} MiB; apply (Node, dfOld in memory) max ${v2.applyMsMax.toFixed(0)} ms`,
    `changed deflated entries reproduced by pako: ${v2.reproducedEntries} of ${v2.changedEntries} (${pct(v2.reproducedShare)})`,
  ];
}

export const deltaBench: Bench<{
  pairs: ReturnType<typeof whole>;
  apps: ReturnType<typeof whole>;
}> = {
  usage:
    'Benchmark: delta patches (ARDELTA1 and ARDELTA2) on real consecutive releases from the npm registry.\n' +
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
    const summary = {
      pairs: results.length,
      apps: new Set(results.map((r) => r.app)).size,
      ...figures(results),
      ardelta2: v2Summary(results),
    };
    const jvm = await jvmApplyFigures(results.flatMap((r) => r.jvm));
    const text = [
      `${summary.pairs} pairs of ${summary.apps} apps; every patch applied back to the new APK's SHA-256`,
      `patch share of the full APK: median ${pct(summary.shareMedian)}, p90 ${pct(summary.shareP90)}`,
      `generation: median ${summary.generateMsMedian.toFixed(0)} ms, max ${summary.generateMsMax.toFixed(0)} ms; peak RSS of a generation up to ${summary.peakRssMiBMax.toFixed(0)} MiB`,
      `apply (Node, streaming): max ${summary.applyMsMax.toFixed(0)} ms`,
      ...v2Text(summary.pairs, summary.ardelta2),
      ...jvm.text,
    ].join('\n');
    return {
      json: { node: process.version, summary, jvmApply: jvm.formats, pairs: results },
      text,
    };
  },
};

/** The child's entry (see `pair`). */
export function childMain([oldFile, newFile, out, format]: readonly string[]): Promise<void> {
  return child(oldFile!, newFile!, out!, format ?? '1');
}

if (require.main === module) void runBench(deltaBench);
