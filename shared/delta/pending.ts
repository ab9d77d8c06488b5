/**
 * "Not ready yet" (docs/delta-updates.md): the version notice goes out before its patches exist,
 * so a pair is pending, and `/download/delta` answers 503 with Retry-After instead of 404, while
 * the app's `delta-generate` job that can make it is alive and the pair has no document yet. The
 * job lists the pairs it will try (its progress) when it starts; before that, any pair between
 * two of the app's stored APKs counts. The rule is tied to the live job: a job that finished,
 * failed for good, or whose worker died (active with no lock) holds no pair, so a crash never
 * keeps devices waiting. Pure: the endpoint reads the job's state and the catalogue, this decides.
 */

/** Seconds a device is told to wait before asking again (the contract allows 1 to 60). */
export const NOT_READY_RETRY_AFTER_S = 5;

/** The job's progress while it runs: the pairs it will try, as `pendingPair` keys. */
export interface PendingPlan {
  readonly deltaPairs: readonly string[];
}

export const pendingPair = (fromMd5: string, toSha256: string): string => `${fromMd5}/${toSha256}`;

/** What the endpoint reads of the app's current generation job (BullMQ state names). */
export interface JobView {
  /** `unknown`: no such job (never added, or removed). */
  readonly state: string;
  /** Whether a worker holds the job's lock (it expires when the worker dies). */
  readonly locked: boolean;
  /** The job's progress as stored (a PendingPlan once it started), or null. */
  readonly progress: unknown;
}

const QUEUED = new Set(['waiting', 'wait', 'paused', 'delayed', 'prioritized', 'waiting-children']);

/** Whether the job will still run (queued, or waiting for a retry) or is running right now. */
export function jobAlive(job: JobView): boolean {
  return QUEUED.has(job.state) || (job.state === 'active' && job.locked);
}

/** The pairs a started job listed; null when it has not listed them (not started yet). */
export function plannedPairs(progress: unknown): ReadonlySet<string> | null {
  if (typeof progress !== 'object' || progress === null) return null;
  const pairs = (progress as { deltaPairs?: unknown }).deltaPairs;
  if (!Array.isArray(pairs)) return null;
  return new Set(pairs.filter((p): p is string => typeof p === 'string'));
}

/**
 * Whether the pair is pending, for a pair with no document: the job is alive and either listed
 * it or has not listed anything yet and `bothStored` (the app has an APK of each hash).
 */
export function pairPending(job: JobView, pair: string, bothStored: () => Promise<boolean>) {
  if (!jobAlive(job)) return Promise.resolve(false);
  const planned = plannedPairs(job.progress);
  return planned ? Promise.resolve(planned.has(pair)) : bothStored();
}
