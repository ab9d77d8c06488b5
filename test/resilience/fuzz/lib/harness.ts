/**
 * Runs one fuzz target over `inputs` seeded inputs in worker threads and watches them: an input
 * that runs past the time bound is a hang (its worker is killed, the input saved, a new worker
 * continues after it); a worker that dies (uncaught exception, heap limit) is a crash of the
 * input it was running. Returns the figures and every failing input, saved for replay.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  saveFailure,
  STATE_GENERATING,
  STATE_IDLE,
  STATE_RUNNING,
  type DoneReport,
  type FailureReport,
  type SharedState,
  type WorkerConfig,
} from './fuzz-worker';
import type { TargetName } from './targets';

const MiB = 1024 * 1024;
const REPO = path.resolve(__dirname, '../../../..');

export interface FuzzOptions {
  readonly target: TargetName;
  readonly seed: number;
  readonly inputs: number;
  readonly workers: number;
  /** Per-input time bound; an input running longer is a hang. */
  readonly hangMs: number;
  readonly allocationBound: number;
  readonly growthBound: number;
  /** Heap limit of each worker thread (an input exceeding it is a crash). */
  readonly workerHeapMiB: number;
  readonly failureDir: string;
}

export interface Failure {
  /** `undeserved`: a verdict of `ok` for an input that must be refused (lib/signed-bytes.ts). */
  readonly kind: 'crash' | 'hang' | 'memory' | 'undeserved';
  readonly index: number;
  readonly how: string;
  readonly message: string;
  readonly file: string;
}

export interface FuzzResult {
  readonly target: TargetName;
  readonly seed: number;
  readonly inputsRequested: number;
  readonly inputsFuzzed: number;
  readonly failures: Failure[];
  readonly crashes: number;
  readonly hangs: number;
  /** Inputs the target's oracle said must be refused, and of those, how many were accepted. */
  readonly refusalsRequired: number;
  readonly undeserved: number;
  readonly wallMs: number;
  readonly maxInputMs: number;
  readonly meanInputMs: number;
  readonly slowest: { index: number; how: string } | null;
  readonly maxGrowth: number;
  readonly maxAllocation: number;
  /** Process-wide peaks sampled while the target ran. */
  readonly peakRss: number;
  readonly peakArrayBuffers: number;
  readonly verdicts: Record<string, number>;
}

export function fuzzDefaults(target: TargetName, seed: number, inputs: number): FuzzOptions {
  return {
    target,
    seed,
    inputs,
    workers: 2,
    hangMs: 2000,
    allocationBound: 64 * MiB,
    growthBound: 128 * MiB,
    workerHeapMiB: 512,
    failureDir: path.join(REPO, '.data', 'resilience', 'fuzz-failures'),
  };
}

function sharedState(): SharedState {
  return {
    control: new SharedArrayBuffer(5 * 4),
    clock: new SharedArrayBuffer(8),
    input: new SharedArrayBuffer(32 * MiB),
    label: new SharedArrayBuffer(4096),
  };
}

/** Runs worker `slot`'s share from `start`; resolves when it has finished its share. */
function runSlot(
  opts: FuzzOptions,
  slot: number,
  onReport: (r: DoneReport) => void,
  onFailure: (f: Failure) => void,
  onCount: (n: number) => void,
): Promise<void> {
  const shared = sharedState();
  const control = new Int32Array(shared.control);
  const clock = new Float64Array(shared.clock);
  const input = new Uint8Array(shared.input);
  const saveCurrent = (kind: 'hang' | 'crash', message: string): void => {
    const index = Atomics.load(control, 1);
    const length = Atomics.load(control, 2);
    const bytes = length >= 0 ? Buffer.from(input.subarray(0, length)) : Buffer.alloc(0);
    const label = Buffer.from(shared.label).toString('utf8', 0, Atomics.load(control, 4));
    const how = length >= 0 ? label : `${label} (too large to keep: rebuild it from the seed)`;
    const file = saveFailure(
      opts.failureDir,
      { target: opts.target, seed: opts.seed, index, kind, how, message },
      bytes,
    );
    onFailure({ kind, index, how, message, file });
  };

  const start = (from: number): Promise<number | null> =>
    new Promise((resolve, reject) => {
      const cfg: WorkerConfig = {
        entry: path.join(__dirname, 'fuzz-worker.ts'),
        target: opts.target,
        seed: opts.seed,
        start: from,
        end: opts.inputs,
        step: opts.workers,
        failureDir: opts.failureDir,
        allocationBound: opts.allocationBound,
        growthBound: opts.growthBound,
        shared,
      };
      Atomics.store(control, 0, STATE_GENERATING);
      Atomics.store(control, 1, -1);
      Atomics.store(control, 3, 0);
      const worker = new Worker(path.join(__dirname, 'worker-bootstrap.js'), {
        workerData: cfg,
        resourceLimits: { maxOldGenerationSizeMb: opts.workerHeapMiB },
        stdout: false,
        stderr: false,
      });
      let settled = false;
      const finish = (next: number | null, err?: Error, killedWhileRunning = false): void => {
        if (settled) return;
        settled = true;
        clearInterval(watch);
        // Inputs this worker completed, plus the one it was killed on or died in.
        onCount(Atomics.load(control, 3) + (killedWhileRunning ? 1 : 0));
        if (err) reject(err);
        else resolve(next);
      };
      const watch = setInterval(() => {
        if (Atomics.load(control, 0) !== STATE_RUNNING) return;
        const elapsed = performance.timeOrigin + performance.now() - (clock[0] ?? 0);
        if (elapsed <= opts.hangMs) return;
        const index = Atomics.load(control, 1);
        saveCurrent(
          'hang',
          `still running after ${Math.round(elapsed)} ms (bound ${opts.hangMs} ms)`,
        );
        void worker.terminate();
        finish(index + opts.workers, undefined, true);
      }, 100);
      worker.on('message', (m: DoneReport | FailureReport) => {
        if (m.type === 'done') {
          onReport(m);
          finish(null);
        } else {
          onFailure({ kind: m.kind, index: m.index, how: m.how, message: m.message, file: m.file });
        }
      });
      worker.on('error', (err: Error) => {
        if (settled) return;
        const state = Atomics.load(control, 0);
        const index = Atomics.load(control, 1);
        if (state === STATE_GENERATING || index < 0) {
          finish(
            null,
            new Error(`fuzz worker failed outside an input: ${err.stack ?? err.message}`),
          );
          return;
        }
        const when = state === STATE_IDLE ? ' after the input returned' : '';
        saveCurrent('crash', `worker died${when}: ${err.name}: ${err.message}`);
        finish(index + opts.workers, undefined, state === STATE_RUNNING);
      });
      worker.on('exit', (code) => {
        if (settled) return;
        if (Atomics.load(control, 0) === STATE_RUNNING) {
          // The event loop emptied while the input's promise was pending: it never settles.
          const index = Atomics.load(control, 1);
          saveCurrent('hang', `never settled (worker exited with code ${code} while waiting)`);
          finish(index + opts.workers, undefined, true);
          return;
        }
        finish(null, new Error(`fuzz worker exited with code ${code} before finishing`));
      });
    });

  return (async () => {
    let from: number | null = slot;
    while (from !== null && from < opts.inputs) from = await start(from);
  })();
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzResult> {
  mkdirSync(opts.failureDir, { recursive: true });
  const began = Date.now();
  const failures: Failure[] = [];
  const reports: DoneReport[] = [];
  let inputsFuzzed = 0;
  let peakRss = 0;
  let peakArrayBuffers = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakArrayBuffers = Math.max(peakArrayBuffers, m.arrayBuffers);
  }, 50);
  try {
    await Promise.all(
      Array.from({ length: opts.workers }, (_, slot) =>
        runSlot(
          opts,
          slot,
          (r) => reports.push(r),
          (f) => failures.push(f),
          (n) => (inputsFuzzed += n),
        ),
      ),
    );
  } finally {
    clearInterval(sampler);
  }
  const crashes = failures.filter((f) => f.kind === 'crash' || f.kind === 'memory').length;
  const hangs = failures.filter((f) => f.kind === 'hang').length;
  const undeserved = failures.filter((f) => f.kind === 'undeserved').length;
  const done = reports.reduce((n, r) => n + r.inputs, 0);
  const verdicts: Record<string, number> = {};
  for (const r of reports)
    for (const [k, v] of Object.entries(r.verdicts)) verdicts[k] = (verdicts[k] ?? 0) + v;
  const slowestReport = reports.reduce<DoneReport | null>(
    (a, r) => (a === null || r.maxMs > a.maxMs ? r : a),
    null,
  );
  return {
    target: opts.target,
    seed: opts.seed,
    inputsRequested: opts.inputs,
    inputsFuzzed,
    failures,
    crashes,
    hangs,
    refusalsRequired: reports.reduce((n, r) => n + r.refusalsRequired, 0),
    undeserved,
    wallMs: Date.now() - began,
    maxInputMs: slowestReport?.maxMs ?? 0,
    meanInputMs: reports.reduce((n, r) => n + r.totalMs, 0) / Math.max(1, done),
    slowest: slowestReport?.slowest ?? null,
    maxGrowth: Math.max(0, ...reports.map((r) => r.maxGrowth)),
    maxAllocation: Math.max(0, ...reports.map((r) => r.maxAllocation)),
    peakRss,
    peakArrayBuffers,
    verdicts,
  };
}
