/**
 * Coalescing for writes that are cheaper in bulk (one `insertMany` of many documents costs the
 * MongoDB-protocol server far less than as many single inserts; figures in docs/benchmarks.md,
 * "Measurements behind design choices"): items submitted while a flush is in
 * flight wait and go together in the next one, so there is no timer and no added latency when the
 * load is light. Each submitter's promise settles with its batch.
 * A flush runs under a deadline (shared/deadline.ts): one that never settles (a driver call across
 * a restarted server) fails its batch at the deadline instead of holding every later item forever.
 */
import { withDeadline, type Deadline } from '../../shared/deadline';

export interface Coalescer<T> {
  submit(item: T): Promise<void>;
}

/** One bulk write to the store: seconds when healthy, so a minute means it will not come back. */
export const FLUSH_DEADLINE_MS = 60_000;

export function coalesce<T>(
  flush: (items: readonly T[]) => Promise<void>,
  maxBatch = 64,
  deadline: Omit<Deadline, 'parent'> = { ms: FLUSH_DEADLINE_MS, what: 'coalesced flush' },
): Coalescer<T> {
  let waiting: Array<{ item: T; resolve(): void; reject(err: unknown): void }> = [];
  let running = false;

  async function drain(): Promise<void> {
    running = true;
    try {
      while (waiting.length > 0) {
        const batch = waiting.slice(0, maxBatch);
        waiting = waiting.slice(batch.length);
        try {
          await withDeadline(deadline, () => flush(batch.map((w) => w.item)));
          batch.forEach((w) => w.resolve());
        } catch (err) {
          batch.forEach((w) => w.reject(err));
        }
      }
    } finally {
      running = false;
    }
  }

  return {
    submit(item) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (!running) void drain();
      });
    },
  };
}
