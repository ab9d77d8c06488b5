/**
 * The JVM side of `bench:delta` (issue 37: "apply time and memory on the JVM at a 16 MB heap",
 * goal p95 < 10 s for APKs up to 50 MB): runs the Android library's ApplyBench (its Maven test
 * classes) at -Xmx16m over the patches the bench made, one JSON line per patch (time, peak heap,
 * SHA-256 check), and sums them up per format. Skipped when Maven has not built the classes
 * (device-client/android/build.sh or `mvn test-compile` there), so the bench runs without Java.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { percentile } from './download-load';

const run = promisify(execFile);
const MIB = 1024 * 1024;
/** The bound on applying a patch for an APK up to 50 MB, at the 95th percentile. */
export const JVM_APPLY_P95_TARGET_MS = 10_000;

export interface JvmApplyInput {
  readonly format: 1 | 2;
  readonly oldFile: string;
  readonly patchFile: string;
  readonly newSha256: string;
}

export interface JvmApplyResult {
  readonly patch: string;
  readonly format: number;
  readonly newBytes: number;
  readonly ms: number;
  readonly peakHeapBytes: number;
  readonly maxHeapBytes: number;
  /** ARDELTA2's deflater: `bundled` (the library's own); `none` for ARDELTA1. */
  readonly recompressor: string;
  readonly sha256Matches: boolean;
}

export interface JvmApplyFormat {
  readonly format: number;
  readonly patches: number;
  readonly msP95: number;
  readonly msMax: number;
  readonly peakHeapMiBMax: number;
  readonly maxHeapMiB: number;
  readonly recompressors: readonly string[];
  readonly allMatch: boolean;
}

/** The class path of ApplyBench under `target` (Maven's output), or null when it is not built. */
export function applyBenchClassPath(target: string): string | null {
  const bench = path.join(target, 'test-classes/dev/apkrelay/client/core/delta/ApplyBench.class');
  return existsSync(bench)
    ? [path.join(target, 'classes'), path.join(target, 'test-classes')].join(path.delimiter)
    : null;
}

const NUMBERS = ['format', 'newBytes', 'ms', 'peakHeapBytes', 'maxHeapBytes'] as const;

/** ApplyBench's output: one JSON object a line; anything else is an error naming the line. */
export function parseApplyLines(stdout: string): JvmApplyResult[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const o = JSON.parse(line) as Record<string, unknown>;
      const ok =
        NUMBERS.every((k) => typeof o[k] === 'number') &&
        typeof o['patch'] === 'string' &&
        typeof o['recompressor'] === 'string' &&
        typeof o['sha256Matches'] === 'boolean';
      if (!ok) throw new Error(`ApplyBench printed an unexpected line: ${line}`);
      return o as unknown as JvmApplyResult;
    });
}

/** Per format: how many, time p95 and max, the largest peak heap, and whether every output matched. */
export function summariseJvmApply(results: readonly JvmApplyResult[]): JvmApplyFormat[] {
  const formats = [...new Set(results.map((r) => r.format))].sort((a, b) => a - b);
  return formats.map((format) => {
    const of = results.filter((r) => r.format === format);
    const ms = of.map((r) => r.ms).sort((a, b) => a - b);
    return {
      format,
      patches: of.length,
      msP95: percentile(ms, 95),
      msMax: ms[ms.length - 1] ?? NaN,
      peakHeapMiBMax: Math.max(...of.map((r) => r.peakHeapBytes)) / MIB,
      maxHeapMiB: Math.max(...of.map((r) => r.maxHeapBytes)) / MIB,
      recompressors: [...new Set(of.map((r) => r.recompressor))],
      allMatch: of.every((r) => r.sha256Matches),
    };
  });
}

/** One line per format, with the p95 target. */
export function jvmApplyText(formats: readonly JvmApplyFormat[]): string[] {
  return formats.map(
    (f) =>
      `apply (JVM, -Xmx${f.maxHeapMiB.toFixed(0)}m) ARDELTA${f.format}: ${f.patches} patches, ` +
      `p95 ${f.msP95.toFixed(0)} ms (target < ${JVM_APPLY_P95_TARGET_MS} ms: ${f.msP95 < JVM_APPLY_P95_TARGET_MS ? 'met' : 'NOT met'}), ` +
      `max ${f.msMax.toFixed(0)} ms, peak heap up to ${f.peakHeapMiBMax.toFixed(1)} MiB` +
      (f.format === 2 ? `, recompressor ${f.recompressors.join('/')}` : '') +
      (f.allMatch ? '' : '; SOME OUTPUTS DID NOT MATCH'),
  );
}

/** Applies every patch in one JVM at -Xmx16m (each after a GC, its peak heap measured alone). */
export async function jvmApply(
  classPath: string,
  inputs: readonly JvmApplyInput[],
): Promise<JvmApplyResult[]> {
  if (inputs.length === 0) return [];
  const args = inputs.flatMap((i) => [String(i.format), i.oldFile, i.patchFile, i.newSha256]);
  const { stdout } = await run(
    'java',
    ['-Xmx16m', '-cp', classPath, 'dev.apkrelay.client.core.delta.ApplyBench', ...args],
    { maxBuffer: 16 << 20 },
  );
  return parseApplyLines(stdout);
}

/** The bench's JVM figures: per format and as text lines; skipped (and said) without Maven's classes. */
export async function jvmApplyFigures(
  inputs: readonly JvmApplyInput[],
): Promise<{ formats: JvmApplyFormat[] | null; text: string[] }> {
  const classPath = applyBenchClassPath(path.resolve('device-client/android/target'));
  if (classPath === null) {
    return {
      formats: null,
      text: ['apply (JVM): skipped, ApplyBench is not built (device-client/android/build.sh)'],
    };
  }
  const formats = summariseJvmApply(await jvmApply(classPath, inputs));
  return { formats, text: jvmApplyText(formats) };
}
