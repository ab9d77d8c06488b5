/**
 * A full disk, wherever it is: the local filesystem (ENOSPC, EDQUOT), MongoDB (OutOfDiskSpace,
 * 14031) or an embedded database engine's message ("database or disk is full"). It passes once
 * space is freed, so callers treat it as an outage to retry, not as a verdict on the request.
 */
import { AppError } from '../errors';

const FULL_MESSAGE = /\b(database or disk is full|no space left on device|OutOfDiskSpace)\b/i;

export function isDiskFull(err: unknown): boolean {
  const e = err as { code?: unknown; codeName?: unknown; message?: unknown; cause?: unknown };
  if (typeof e !== 'object' || e === null) return false;
  if (e.code === 'ENOSPC' || e.code === 'EDQUOT' || e.code === 14031) return true;
  if (e.codeName === 'OutOfDiskSpace') return true;
  if (typeof e.message === 'string' && FULL_MESSAGE.test(e.message)) return true;
  return e.cause !== undefined && e.cause !== err && isDiskFull(e.cause);
}

/** A disk-full error as the retryable outage it is (503 with Retry-After); others unchanged. */
export function diskFullAsOutage(err: unknown): unknown {
  return isDiskFull(err)
    ? new AppError('DEPENDENCY_UNAVAILABLE', {
        message: 'Storage is full; retry later.',
        cause: err,
      })
    : err;
}
