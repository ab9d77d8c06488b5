/**
 * One fuzz worker thread: builds its share of the inputs (every `step`-th index from `start`),
 * runs each through the target and reports failures and figures to the parent. Before each input
 * it publishes the input's index, start time and bytes in shared memory, so the parent can name,
 * save and kill an input that hangs or brings the thread down.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { loadCorpus } from './corpus';
import { Rng } from './random';
import { TARGETS, type TargetName } from './targets';
import { allocationTracker } from './allocations';

export interface WorkerConfig {
  readonly entry: string;
  readonly target: TargetName;
  readonly seed: number;
  readonly start: number;
  readonly end: number;
  readonly step: number;
  readonly failureDir: string;
  /** Largest single Buffer allocation one input may cause. */
  readonly allocationBound: number;
  /** Largest growth of heap + array buffers across one input. */
  readonly growthBound: number;
  readonly shared: SharedState;
}

/**
 * Shared with the parent: [state, index, input length, inputs completed, label length] + start
 * time of the running input + its bytes and label.
 */
export interface SharedState {
  readonly control: SharedArrayBuffer;
  readonly clock: SharedArrayBuffer;
  readonly input: SharedArrayBuffer;
  /** UTF-8 of the running input's `how`, its length in control[4]. */
  readonly label: SharedArrayBuffer;
}

/** The last input returned (an error now comes from work it left behind). */
export const STATE_IDLE = 0;
export const STATE_RUNNING = 1;
/** Loading the corpus or building an input: an error now is the fuzzer's own. */
export const STATE_GENERATING = 2;

export interface FailureReport {
  readonly type: 'failure';
  readonly kind: 'crash' | 'memory' | 'undeserved';
  readonly index: number;
  readonly how: string;
  readonly message: string;
  readonly file: string;
}

export interface DoneReport {
  readonly type: 'done';
  readonly inputs: number;
  readonly totalMs: number;
  readonly maxMs: number;
  readonly slowest: { index: number; how: string } | null;
  readonly maxGrowth: number;
  readonly maxAllocation: number;
  readonly verdicts: Record<string, number>;
  /** Inputs the target's oracle said must be refused. */
  readonly refusalsRequired: number;
}

export function failurePath(dir: string, target: string, seed: number, index: number): string {
  return path.join(dir, `${target}-seed${seed}-input${index}.bin`);
}

export function saveFailure(
  dir: string,
  info: {
    target: string;
    seed: number;
    index: number;
    kind: string;
    how: string;
    message: string;
    stack?: string;
  },
  bytes: Buffer,
): string {
  const file = failurePath(dir, info.target, info.seed, info.index);
  writeFileSync(file, bytes);
  writeFileSync(`${file.slice(0, -4)}.json`, `${JSON.stringify(info, null, 2)}\n`);
  return file;
}

/** This thread's JS heap plus the external memory (ArrayBuffers) it holds. */
const memory = (): number => {
  const h = getHeapStatistics();
  return h.used_heap_size + h.external_memory;
};

async function main(cfg: WorkerConfig): Promise<void> {
  const target = TARGETS[cfg.target];
  const corpus = loadCorpus({ keys: target.needsKeys });
  const control = new Int32Array(cfg.shared.control);
  const clock = new Float64Array(cfg.shared.clock);
  const sharedInput = new Uint8Array(cfg.shared.input);
  const allocations = allocationTracker();
  const verdicts: Record<string, number> = {};
  let inputs = 0;
  let totalMs = 0;
  let maxMs = 0;
  let slowest: DoneReport['slowest'] = null;
  let maxGrowth = 0;
  let maxAllocation = 0;
  let refusalsRequired = 0;
  for (let i = cfg.start; i < cfg.end; i += cfg.step) {
    Atomics.store(control, 0, STATE_GENERATING);
    const input = target.generate(Rng.forInput(cfg.seed, cfg.target, i), corpus, i);
    const fits = input.bytes.length <= sharedInput.length;
    if (fits) sharedInput.set(input.bytes);
    Atomics.store(control, 1, i);
    Atomics.store(control, 2, fits ? input.bytes.length : -1);
    Atomics.store(control, 4, Buffer.from(cfg.shared.label).write(input.how));
    const before = memory();
    allocations.reset();
    clock[0] = performance.timeOrigin + performance.now();
    Atomics.store(control, 0, STATE_RUNNING);
    const outcome = await target.run(input.bytes, input);
    const ms = performance.timeOrigin + performance.now() - (clock[0] ?? 0);
    Atomics.store(control, 0, STATE_IDLE);
    Atomics.add(control, 3, 1);
    const growth = memory() - before;
    const allocated = allocations.largest();
    inputs++;
    totalMs += ms;
    if (ms > maxMs) {
      maxMs = ms;
      slowest = { index: i, how: input.how };
    }
    maxGrowth = Math.max(maxGrowth, growth);
    maxAllocation = Math.max(maxAllocation, allocated);
    verdicts[outcome.verdict] = (verdicts[outcome.verdict] ?? 0) + 1;
    if (outcome.mustRefuse) refusalsRequired++;
    let kind: FailureReport['kind'] | null = null;
    let message = '';
    if (outcome.crash) {
      kind = 'crash';
      message = outcome.crash.message;
    } else if (allocated > cfg.allocationBound || growth > cfg.growthBound) {
      kind = 'memory';
      message = `allocated ${allocated} bytes at once, memory grew by ${growth} bytes`;
    } else if (outcome.undeserved) {
      kind = 'undeserved';
      message = outcome.undeserved;
    }
    if (kind !== null) {
      const file = saveFailure(
        cfg.failureDir,
        {
          target: cfg.target,
          seed: cfg.seed,
          index: i,
          kind,
          how: input.how,
          message,
          ...(outcome.crash?.stack ? { stack: outcome.crash.stack } : {}),
        },
        input.bytes,
      );
      const report: FailureReport = {
        type: 'failure',
        kind,
        index: i,
        how: input.how,
        message,
        file,
      };
      parentPort?.postMessage(report);
    }
  }
  const done: DoneReport = {
    type: 'done',
    inputs,
    totalMs,
    maxMs,
    slowest,
    maxGrowth,
    maxAllocation,
    verdicts,
    refusalsRequired,
  };
  parentPort?.postMessage(done);
}

if (parentPort !== null && (workerData as WorkerConfig | null)?.target !== undefined) {
  void main(workerData as WorkerConfig);
}
