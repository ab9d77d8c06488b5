/**
 * Benchmark: the Android library's bundled deflater (RawDeflaterStream, docs/delta-updates.md)
 * against the JDK's zlib 1.2.13 over every deflated entry of real APKs, the npm releases of
 * ops/bench/lib/npm-apks.ts (cached under `.data/bench-delta/`, never committed). It compiles the
 * library's test classes (`mvn test-compile` in device-client/android) and runs their
 * DeflateIdentity main class, which recompresses each entry at every level 0-9 with each strategy
 * the JDK sets (default, filtered, huffman-only) both ways, compares the bytes and times both.
 * Prints the counts (APKs, entries, pairs compared, identical, different) and the MB/s of both
 * (inflated bytes per second, same run), with the load average before and after.
 *
 *   npm run bench:deflate [-- --versions 1 --json]
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { lastVersions, npmApk, NPM_APPS } from './lib/npm-apks';
import { runBench, whole, type Bench } from './lib/runner';

const run = promisify(execFile);
const CACHE = path.resolve('.data/bench-delta');
const ANDROID = path.resolve('device-client/android');

/** The APKs of the last `versions` releases of every app, fetched when missing. */
async function corpus(versions: number): Promise<string[]> {
  const files = new Set<string>();
  for (const app of NPM_APPS) {
    for (const version of await lastVersions(app.npmPackage, versions)) {
      const apk = await npmApk(CACHE, app, version);
      if (apk) files.add(apk);
    }
  }
  return [...files];
}

/** DeflateIdentity's summary line as numbers (`key value` pairs). */
function parseSummary(stdout: string): Record<string, number> {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  const words = line.split(' ');
  const out: Record<string, number> = {};
  for (let i = 0; i + 1 < words.length; i += 2) out[words[i]!] = Number(words[i + 1]);
  return out;
}

export const deflateBench: Bench<{
  versions: ReturnType<typeof whole>;
}> = {
  usage:
    "Benchmark: the Android library's bundled deflater against the JDK's zlib over real APKs.\n" +
    '  npm run bench:deflate [-- --versions 1 --json]',
  flags: {
    versions: whole(1, [1, 20], '--versions: a whole number from 1 to 20', 'releases per app'),
  },
  async run(args, ctx) {
    const apks = await corpus(args.versions);
    ctx.say(`${apks.length} APKs; compiling the library's test classes`);
    await run('mvn', ['-B', '-q', '-ntp', 'test-compile'], { cwd: ANDROID, maxBuffer: 1 << 24 });
    const loadBefore = loadavg()[0]!;
    const main = 'dev.apkrelay.client.core.deflate.DeflateIdentity';
    // Exit status 1 means some pair differs: its summary is still printed and reported.
    const { stdout, stderr } = await run(
      'java',
      ['-cp', 'target/classes:target/test-classes', main, ...apks],
      { cwd: ANDROID, maxBuffer: 1 << 24 },
    ).catch((e: { stdout?: string; stderr?: string }) => ({
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? '',
    }));
    const summary = parseSummary(stdout);
    if (summary.pairs === undefined) throw new Error(`DeflateIdentity gave no summary: ${stderr}`);
    const loadAfter = loadavg()[0]!;
    const text = [
      ...stdout.trim().split('\n').slice(0, -1),
      `${summary.apks} APKs (${summary.unreadable} unreadable), ${summary.entries} deflated entries (${summary['inflated-MB']} MB inflated)`,
      `${summary.pairs} entry × setting pairs compared: ${summary.identical} identical, ${summary.different} different`,
      `${summary.reproduced} entries whose stored bytes one of these settings reproduces`,
      `MB/s (inflated bytes): RawDeflaterStream ${summary['ours-MBps']}, JDK Deflater ${summary['jdk-MBps']}`,
      `load average: ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
    ].join('\n');
    return { json: { apks, summary, loadBefore, loadAfter }, text };
  },
};

if (require.main === module) void runBench(deflateBench);
