/**
 * The body shared by the fuzz test files: run one target, print the summary, record the figures
 * for the resilience report, and fail on any crash, hang, broken memory bound or wrong verdict,
 * naming each failing input and the file it was saved to.
 */
import { recordFigures } from '../../report';
import { fuzzDefaults, runFuzz, type FuzzResult } from './harness';
import { describeResult, fuzzCount, fuzzHangMs, fuzzSeed, fuzzWorkers } from './settings';
import type { TargetName } from './targets';

export async function fuzzTarget(
  target: TargetName,
  baseInputs: number,
  testFile: string,
): Promise<FuzzResult> {
  const seed = fuzzSeed();
  const inputs = fuzzCount(baseInputs);
  process.stdout.write(
    `fuzz ${target}: seed ${seed} (FUZZ_SEED=${seed} replays this run), ${inputs} inputs\n`,
  );
  const result = await runFuzz({
    ...fuzzDefaults(target, seed, inputs),
    workers: fuzzWorkers(),
    hangMs: fuzzHangMs(),
  });
  process.stdout.write(`${describeResult(result, testFile)}\n`);
  recordFigures(`fuzz:${target}`, {
    inputsFuzzed: result.inputsFuzzed,
    crashes: result.crashes,
    hangs: result.hangs,
    wrongVerdicts: result.undeserved,
  });
  return result;
}

/** What a failed run reports: one line per failing input. */
export function failureLines(r: FuzzResult): string[] {
  return r.failures.map((f) => `${f.kind} #${f.index} ${f.how}: ${f.message} (saved: ${f.file})`);
}
