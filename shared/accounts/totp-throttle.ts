/**
 * Wrong second-factor codes at login (docs/security.md, issue 31). Besides the login throttle's
 * per-address windows, each code attempt is counted, before the code is checked, in two places
 * that no change of client address escapes:
 *
 * - per user: at most `perUser` code attempts per window (a sliding window, attempt-windows.ts);
 *   past it every code of that user is refused (429) without being checked, from any address;
 * - per pending login: its `perPending`-th wrong code burns the pending token (the password must
 *   be given again), and no pending login ever has more than `perPending` codes checked (one Redis
 *   INCR per attempt, so parallel guesses cannot slip past it).
 *
 * A right code takes its own attempt back from the user's window.
 */
import type { Redis } from '../storage/redis';
import { attemptMember, recordAttempt, withdrawAttempt } from './attempt-windows';

export interface TotpCodeLimits {
  /** Code attempts per user per window, whatever the address. */
  readonly perUser: number;
  /** Codes checked per pending login; its last wrong one burns it. */
  readonly perPending: number;
}

export const DEFAULT_TOTP_CODE_LIMITS: TotpCodeLimits = Object.freeze({
  perUser: 10,
  perPending: 5,
});
export const TOTP_CODE_WINDOW_MS = 15 * 60 * 1000;
/** How long a pending login's count is kept: longer than any pending login lives. */
const PENDING_COUNT_MS = 10 * 60 * 1000;

export interface CodeAttempt {
  /** ms until the user is under the per-user limit again: 0 (check the code), else answer 429. */
  readonly waitMs: number;
  /** No code may be checked for this pending login any more (burn it). */
  readonly exhausted: boolean;
  /** This attempt was wrong: whether it was the pending login's last one (burn it). */
  readonly lastForPending: boolean;
  /** The code was right: this attempt does not count against the user. */
  succeeded(): Promise<void>;
}

export interface TotpThrottle {
  /** Counts a code attempt of `user` (totp-factors' user key) for the pending login `pendingId`. */
  attempt(user: string, pendingId: string, nowMs: number): Promise<CodeAttempt>;
}

export function redisTotpThrottle(
  redis: Redis,
  keys: { readonly totpCodes: (kind: 'user' | 'pending', id: string) => string },
  limits: TotpCodeLimits = DEFAULT_TOTP_CODE_LIMITS,
  windowMs = TOTP_CODE_WINDOW_MS,
): TotpThrottle {
  return {
    async attempt(user, pendingId, nowMs) {
      const pendingKey = keys.totpCodes('pending', pendingId);
      const counted = await redis
        .multi()
        .incr(pendingKey)
        .pexpire(pendingKey, PENDING_COUNT_MS)
        .exec();
      const count = Number(counted?.[0]?.[1] ?? Number.POSITIVE_INFINITY);
      const userKey = keys.totpCodes('user', user);
      const member = attemptMember(nowMs);
      const exhausted = count > limits.perPending;
      const waitMs = exhausted
        ? 0
        : await recordAttempt(redis, [[userKey, limits.perUser]], nowMs, windowMs, member);
      return {
        waitMs,
        exhausted,
        lastForPending: count >= limits.perPending,
        succeeded: () => withdrawAttempt(redis, [userKey], member),
      };
    },
  };
}
