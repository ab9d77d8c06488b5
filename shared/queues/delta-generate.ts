/**
 * Queue `delta-generate`: after an app's targets change (an APK made current, a rollout started:
 * every change that sends a version notice, shared/delta/requests.ts), the patches its fleet will
 * ask for are made from the versions it runs (shared/delta/generate-delta.ts). One job per
 * (app, currentVersion): re-adding the same change is a no-op.
 */
import { MINUTE_MS } from './budget';
import { asRecord, defineQueue } from './definition';
import { PayloadInvalid } from '../errors';

export interface DeltaGeneratePayload {
  readonly accountId: string;
  readonly appId: string;
  readonly currentVersion: number;
}

export interface DeltaGenerateResult {
  readonly ready: number;
  readonly tooLarge: number;
  readonly unproven: number;
  /** Pairs tried before (any outcome): not tried again. */
  readonly known: number;
}

export const deltaGenerateQueue = defineQueue<
  DeltaGeneratePayload,
  DeltaGenerateResult,
  'delta-generate'
>({
  name: 'delta-generate',
  // One at a time per worker: a generation holds both APKs and a suffix array in memory, and
  // its thread takes one of the 2 cores (build-off-thread.ts also runs one thread at a time).
  concurrency: 1,
  // Whole-job budget (workers/runtime.ts): up to DELTA_MAX_SOURCES patches for two targets.
  budgetMs: 30 * MINUTE_MS,
  // Raised when one generation was synchronous work on the event loop (105 s for an 18 MB APK
  // on the 2-core VM, docs/benchmarks.md): the lock expired meanwhile, the job looked crashed.
  // Generation now runs on a thread (shared/delta/build-off-thread.ts) and the lock is renewed
  // on time; the floor is kept until a fleet bench shows the default lock holds throughout.
  lockMs: 5 * MINUTE_MS,
  // A generation takes minutes: a closing worker terminates it rather than wait (the retry
  // makes the pair; nothing is published before its proof).
  abortOnClose: true,
  parse(data) {
    const p = asRecord(data, 'delta-generate');
    if (typeof p.accountId !== 'string' || typeof p.appId !== 'string') {
      throw new PayloadInvalid('delta-generate', 'accountId and appId must be strings');
    }
    if (!/^[0-9a-f]{24}$/.test(p.appId)) throw new PayloadInvalid('delta-generate', 'bad appId');
    if (!Number.isSafeInteger(p.currentVersion)) {
      throw new PayloadInvalid('delta-generate', 'currentVersion must be an integer');
    }
    return { accountId: p.accountId, appId: p.appId, currentVersion: p.currentVersion as number };
  },
  jobId: (p) => `delta-${p.appId}-${p.currentVersion}`,
  jobOptions: {
    attempts: 5,
    backoff: { type: 'exponential', delay: 5_000 },
    removeOnComplete: { count: 100 },
    removeOnFail: { count: 100 },
  },
});
