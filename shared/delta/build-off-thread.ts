/**
 * Builds a patch on a `worker_threads` thread (patch-thread.ts), never on the worker process's
 * main thread: one generation is seconds to minutes of CPU (suffix array, records, level-9
 * deflate; ARDELTA2's recompression search), and the main thread runs every other queue's jobs,
 * BullMQ's lock renewals and stalled-job checks, the overdue watchdog and the shutdown path.
 * - One thread at a time per process: a call waits for the previous thread to have exited
 *   (and rejects at once if its signal aborts meanwhile).
 * - Memory: the two APKs are passed in SharedArrayBuffers (readSealed makes them so), shared
 *   with the thread rather than copied; the patch comes back transferred, not copied.
 * - The signal (the worker closing, the job's budget spent) terminates the thread at once and
 *   the call rejects with the signal's reason; a thread that throws or exits without a result
 *   rejects with DELTA_GENERATION_FAILED naming the pair and format. Every outcome settles only
 *   once the thread has exited: none is left running.
 */
import { isSharedArrayBuffer } from 'node:util/types';
import type { Worker } from 'node:worker_threads';
import { AppError, coerceError } from '../errors';
import type { Patch2 } from './build-patch2';
import { startModuleThread } from './module-thread';
import type { PatchThreadInput, PatchThreadResult } from './patch-thread';

/** One generation: the pair's name (for errors), both files, and what stops it. */
export interface OffThreadBuild {
  readonly pair: string;
  readonly old: Uint8Array;
  readonly target: Uint8Array;
  readonly signal: AbortSignal;
}

let live = 0;
/** Generation threads of this process that have not exited yet (tests watch it). */
export const generationThreads = (): number => live;

/** Resolves when the thread before has exited: one thread at a time per process. */
let turn: Promise<void> = Promise.resolve();

/** `bytes` in shared memory (no copy when they already are). */
function shared(bytes: Uint8Array): Uint8Array {
  if (isSharedArrayBuffer(bytes.buffer)) return bytes;
  const copy = new Uint8Array(new SharedArrayBuffer(bytes.length));
  copy.set(bytes);
  return copy;
}

const failed = (build: OffThreadBuild, format: 1 | 2, what: string, cause?: unknown) =>
  new AppError('DELTA_GENERATION_FAILED', {
    message: `ARDELTA${format} patch ${build.pair}: ${what}`,
    details: { pair: build.pair, format },
    cause,
  });

type Outcome = { readonly value: PatchThreadResult | null } | { readonly error: Error };

/** Runs one thread to its exit; settles with its result or what went wrong. */
function runThread(build: OffThreadBuild, format: 1 | 2): Promise<PatchThreadResult | null> {
  const input: PatchThreadInput = { format, old: shared(build.old), target: shared(build.target) };
  const thread: Worker = startModuleThread('patch-thread', { workerData: { ...input } });
  live++;
  let outcome: Outcome | null = null;
  const settle = (first: Outcome) => {
    outcome ??= first;
    void thread.terminate();
  };
  const onAbort = () => settle({ error: coerceError(build.signal.reason) });
  build.signal.addEventListener('abort', onAbort, { once: true });
  thread.on('message', (value: PatchThreadResult | null) => settle({ value }));
  thread.on('messageerror', (err) => settle({ error: failed(build, format, 'unreadable', err) }));
  thread.on('error', (err: Error) => {
    settle({ error: failed(build, format, `the generation thread failed: ${err.message}`, err) });
  });
  return new Promise((resolve, reject) => {
    thread.once('exit', (code) => {
      live--;
      build.signal.removeEventListener('abort', onAbort);
      const done = outcome ?? {
        error: failed(build, format, `the generation thread exited (code ${code}) without a patch`),
      };
      if ('error' in done) reject(done.error);
      else resolve(done.value);
    });
  });
}

/** Resolves when `previous` does; rejects with the signal's reason as soon as it aborts. */
function myTurn(previous: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(coerceError(signal.reason));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void previous.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/**
 * Runs `format`'s generation on a thread once the previous thread has exited. A call aborted
 * while it waits rejects at once; the next call still waits for the thread before it.
 */
export async function offThread(build: OffThreadBuild, format: 1 | 2) {
  const previous = turn;
  let release = () => {};
  const mine = new Promise<void>((resolve) => (release = resolve));
  turn = previous.then(() => mine);
  try {
    await myTurn(previous, build.signal);
    return await runThread(build, format);
  } finally {
    release();
  }
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

/** ARDELTA1 (build-patch.ts), made on a thread. */
export async function buildPatchOffThread(build: OffThreadBuild): Promise<Buffer> {
  const made = await offThread(build, 1);
  if (made?.patch == null) throw failed(build, 1, 'the generation thread gave no patch');
  return asBuffer(made.patch);
}

/** ARDELTA2 (build-patch2.ts), made on a thread: null when the archives do not allow it. */
export async function buildPatch2OffThread(build: OffThreadBuild): Promise<Patch2 | null> {
  const made = await offThread(build, 2);
  if (made === null) return null;
  const patch = made.patch === null ? null : asBuffer(made.patch);
  return { patch, changed: made.changed, reproduced: made.reproduced };
}
