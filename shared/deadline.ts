/**
 * Deadlines for work that may never settle. A driver call across a restarted connection, or a
 * stream waiting for an event that never comes, can keep its promise pending forever; whatever
 * awaits it (a worker's concurrency slot, every job coalesced behind it) then waits forever too.
 * `withDeadline` settles at the deadline whatever the work does: it aborts the signal it handed
 * to the work (so the work can stop: destroy a stream, cancel a fetch) and rejects with the error
 * the caller names. Work that ignores the signal runs on in the background, but nothing waits
 * for it any more.
 */
import { AppError, coerceError, type ErrorCode } from './errors';

export interface Deadline {
  readonly ms: number;
  /** What ran out, for the error's message and details (`exception-ingest: screenshot put`). */
  readonly what: string;
  /** The catalogue code of the error (default STEP_DEADLINE_EXCEEDED). */
  readonly code?: Extract<
    ErrorCode,
    'STEP_DEADLINE_EXCEEDED' | 'JOB_DEADLINE_EXCEEDED' | 'DEPENDENCY_UNAVAILABLE'
  >;
  /** Replaces the default message (`<what>: no result within <ms> ms (<code>)`). */
  readonly message?: string;
  /** Aborts the work early too (a closing worker); its reason is the rejection then. */
  readonly parent?: AbortSignal;
}

export function deadlineError(deadline: Deadline): AppError {
  const code = deadline.code ?? 'STEP_DEADLINE_EXCEEDED';
  return new AppError(code, {
    message: deadline.message ?? `${deadline.what}: no result within ${deadline.ms} ms (${code})`,
    details: { what: deadline.what, deadlineMs: deadline.ms },
  });
}

export async function withDeadline<T>(
  deadline: Deadline,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(deadlineError(deadline)), deadline.ms);
  // The deadline alone must not keep a process alive (one shutting down, say).
  timer.unref();
  const signal = deadline.parent
    ? AbortSignal.any([timeout.signal, deadline.parent])
    : timeout.signal;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(coerceError(signal.reason));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const running = work(signal);
  // Lost the race: its later failure is nobody's to handle.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, aborted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
