/**
 * Failed-auth throttling for API keys: failures are counted in two sliding windows in Redis, one
 * per client address (IPv6 grouped by /64) and one per presented key (a digest of its first 16
 * characters, so a stale or leaked key hammered from many addresses is seen as one). Past a
 * window's limit, further failures are answered 429 with Retry-After instead of 401.
 *
 * Only failures are counted and only failures are refused: a valid key always authenticates,
 * whatever its address has done, so devices behind one NAT (or clients behind a proxy that is not
 * trusted) never lock each other out, and successful requests cost no Redis call. This does not
 * slow an online guesser (192-bit keys do that); it tells failing clients to back off. A Redis
 * failure here never turns a request away: the caller logs it and answers the failure 401.
 * The windows are counted by `recordAttempt` (attempt-windows.ts), as sign-ups are.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { Redis } from '../storage/redis';
import { looksLikeApiKey } from './api-keys';
import { recordAttempt, type AttemptWindow } from './attempt-windows';

export const AUTH_FAILURE_WINDOW_MS = 15 * 60 * 1000;

export interface AuthFailureLimits {
  /** Failures per client address per window; 0: not limited. */
  readonly perAddress: number;
  /** Failures per presented key (its first 16 characters) per window; 0: not limited. */
  readonly perKey: number;
}

export const DEFAULT_AUTH_FAILURE_LIMITS: AuthFailureLimits = Object.freeze({
  perAddress: 100,
  perKey: 20,
});

export interface AuthAttempt {
  /** The client address (after the trusted proxies). */
  readonly address: string;
  /** What was presented as an API key. */
  readonly presented: string;
}

export interface AuthThrottle {
  /**
   * Records a failed authentication at `nowMs`; answers how long (ms) until this client's failures
   * are back under every limit: 0 when they already are (answer 401), else answer 429.
   */
  failed(attempt: AuthAttempt, nowMs: number): Promise<number>;
}

/** The address bucket: IPv4 as is, IPv6 by its /64 (one host holds a whole /64). Pure. */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * The presented-key bucket: a digest of the first 16 characters of a well-formed key (never the
 * characters themselves: they are part of a secret), or null for anything that cannot be a key
 * (refused without a database read; only the address window counts it). Pure.
 */
export function keyBucket(presented: string): string | null {
  if (!looksLikeApiKey(presented)) return null;
  return createHash('sha256').update(presented.slice(0, 16)).digest('hex').slice(0, 32);
}

export function redisAuthThrottle(
  redis: Redis,
  keys: { readonly authFailures: (kind: 'address' | 'key', bucket: string) => string },
  limits: AuthFailureLimits = DEFAULT_AUTH_FAILURE_LIMITS,
  windowMs = AUTH_FAILURE_WINDOW_MS,
): AuthThrottle {
  return {
    failed(attempt, nowMs) {
      const windows: AttemptWindow[] = [];
      if (limits.perAddress > 0) {
        windows.push([
          keys.authFailures('address', addressBucket(attempt.address)),
          limits.perAddress,
        ]);
      }
      const bucket = keyBucket(attempt.presented);
      if (bucket !== null && limits.perKey > 0) {
        windows.push([keys.authFailures('key', bucket), limits.perKey]);
      }
      return recordAttempt(redis, windows, nowMs, windowMs);
    },
  };
}
