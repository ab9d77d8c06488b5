/**
 * Web login throttling. Every login attempt is counted before its password is checked, in two
 * sliding windows in Redis (attempt-windows.ts): one per client address (IPv6 by /64) and one per
 * email *from that address*. Count and check are one Lua call, so parallel guesses cannot all slip
 * under the limit; past a limit the attempt is refused (429) without checking the password, and
 * refused attempts count too, so a client that keeps guessing stays refused.
 *
 * The email window is per address on purpose: failures for an email lock out the address that
 * made them, never the owner typing the right password somewhere else (a per-email lock let
 * anyone lock anyone out). A guesser spread over many addresses gets `perEmail` tries per address
 * per window (and `perAddress` in all per address); the password hashing bounds the rest.
 *
 * A successful login takes its own attempt back and forgets that address's earlier failures for
 * the email.
 */
import { createHash } from 'node:crypto';
import type { Redis } from '../storage/redis';
import { addressBucket } from './auth-throttle';
import {
  attemptMember,
  recordAttempt,
  withdrawAttempt,
  type AttemptWindow,
} from './attempt-windows';

export const LOGIN_WINDOW_MS = 15 * 60 * 1000;

export interface LoginLimits {
  /** Login attempts per client address per window (any email). */
  readonly perAddress: number;
  /** Login attempts per email from one client address per window. */
  readonly perEmail: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = Object.freeze({ perAddress: 50, perEmail: 5 });

/** One counted attempt; tell the throttle when its password was right. */
export interface LoginAttempt {
  /** ms until the client is under every limit again: 0 (check the password), else answer 429. */
  readonly waitMs: number;
  /** The password was right: this attempt and the address's failures for the email do not count. */
  succeeded(): Promise<void>;
}

export interface LoginThrottle {
  /** Counts a login attempt for `email` from `address` (after the trusted proxies) at `nowMs`. */
  attempt(email: string, address: string, nowMs: number): Promise<LoginAttempt>;
}

export function redisLoginThrottle(
  redis: Redis,
  keys: { readonly loginAttempts: (kind: 'address' | 'email', bucket: string) => string },
  limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
  windowMs = LOGIN_WINDOW_MS,
): LoginThrottle {
  return {
    async attempt(email, address, nowMs) {
      const bucket = addressBucket(address);
      const digest = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
      const addressKey = keys.loginAttempts('address', bucket);
      const emailKey = keys.loginAttempts('email', `${digest.slice(0, 32)}:${bucket}`);
      // The broadest window first (see recordAttempt).
      const windows: AttemptWindow[] = [
        [addressKey, limits.perAddress],
        [emailKey, limits.perEmail],
      ];
      const member = attemptMember(nowMs);
      const waitMs = await recordAttempt(redis, windows, nowMs, windowMs, member);
      return {
        waitMs,
        async succeeded() {
          await withdrawAttempt(redis, [addressKey], member);
          await redis.del(emailKey);
        },
      };
    },
  };
}
