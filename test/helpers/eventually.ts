/**
 * Waiting for a condition instead of for the wall clock. Tests run on a shared 2-core machine next
 * to other suites, so a wait is a poll with a deadline of at least ten times what the condition
 * takes there unloaded; on timeout it throws, naming what it waited for and the last value seen,
 * so a test cannot pass by running out of time.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Deadline for a condition that takes up to a few seconds unloaded (a job, a report stored). */
export const DEADLINE_MS = 60_000;

export interface EventuallyOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

/**
 * Resolves with the first value of `probe` that is neither undefined, null nor false; throws after
 * `timeoutMs` (default DEADLINE_MS).
 */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: EventuallyOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEADLINE_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(options.intervalMs ?? 50);
  }
}

/**
 * Resolves with `read()`'s value once `done(value)` holds; on timeout throws with the last value,
 * so the assertion after it reports what was seen.
 */
export async function eventuallyValue<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: EventuallyOptions = {},
): Promise<T> {
  let last: T | undefined;
  try {
    return await eventually(
      what,
      async () => {
        last = await read();
        return done(last) ? { value: last } : undefined;
      },
      options,
    ).then((r) => r.value);
  } catch (err) {
    throw new Error(`${(err as Error).message}; last seen: ${JSON.stringify(last)}`, {
      cause: err,
    });
  }
}
