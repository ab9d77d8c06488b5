/**
 * Run settings of the fuzz tests, from the environment (test code, not the service):
 * `FUZZ_SEED` replays a run (default: a fresh seed, printed), `FUZZ_SCALE` multiplies the number
 * of inputs (0.1 for a quick look, 10 for a long campaign), `FUZZ_WORKERS` sets the threads per
 * target (default 2), `FUZZ_HANG_MS` the per-input time bound (default 2000).
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { FuzzResult } from './harness';

export function fuzzSeed(): number {
  const given = process.env.FUZZ_SEED;
  if (given !== undefined && given !== '') {
    const n = Number(given);
    if (!Number.isSafeInteger(n) || n < 0 || n > 0xffffffff)
      throw new Error(`FUZZ_SEED must be a uint32, got ${given}`);
    return n;
  }
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

export function fuzzCount(base: number): number {
  const scale = Number(process.env.FUZZ_SCALE ?? '1');
  if (!(scale > 0))
    throw new Error(`FUZZ_SCALE must be a positive number, got ${process.env.FUZZ_SCALE}`);
  return Math.max(1, Math.round(base * scale));
}

/** The per-input time bound (FUZZ_HANG_MS, default 2000): raise it on a much slower machine. */
export function fuzzHangMs(): number {
  const given = Number(process.env.FUZZ_HANG_MS ?? '');
  return Number.isInteger(given) && given > 0 ? given : 2000;
}

export function fuzzWorkers(): number {
  const given = Number(process.env.FUZZ_WORKERS ?? '');
  return Number.isInteger(given) && given > 0
    ? given
    : Math.max(1, Math.min(2, availableParallelism()));
}

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** A summary for the log: figures, bounds reached, verdicts, and how to replay any failure. */
export function describeResult(r: FuzzResult, file: string): string {
  const verdicts = Object.entries(r.verdicts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const lines = [
    `fuzz ${r.target}: seed ${r.seed}, ${r.inputsFuzzed} inputs in ${(r.wallMs / 1000).toFixed(1)} s, ` +
      `${r.crashes} crashes, ${r.hangs} hangs` +
      (r.refusalsRequired > 0
        ? `, ${r.undeserved} of ${r.refusalsRequired} inputs that must be refused accepted`
        : ''),
    `  per input: mean ${r.meanInputMs.toFixed(2)} ms, max ${r.maxInputMs.toFixed(0)} ms` +
      (r.slowest ? ` (#${r.slowest.index} ${r.slowest.how})` : ''),
    `  memory: largest single allocation ${mib(r.maxAllocation)}, largest growth during one input ` +
      `${mib(r.maxGrowth)}; process peaks rss ${mib(r.peakRss)}, arrayBuffers ${mib(r.peakArrayBuffers)}`,
    `  verdicts: ${verdicts}`,
    ...r.failures.map(
      (f) =>
        `  ${f.kind.toUpperCase()} #${f.index} (${f.how}): ${f.message}\n    saved: ${f.file}\n` +
        `    replay: node ${path.relative(process.cwd(), path.join(__dirname, '..', 'replay.js'))} ${f.file}` +
        `   or rerun: FUZZ_SEED=${r.seed} npm run test:resilience -- ${file}`,
    ),
  ];
  return lines.join('\n');
}
