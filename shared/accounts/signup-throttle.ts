/**
 * Sign-up throttling: every sign-up attempt that reaches account creation (a new account or an
 * email already taken) is counted in a sliding window in Redis per client address (IPv6 grouped
 * by /64, as for failed API keys). Past the limit, sign-up is answered 429 with Retry-After, so
 * one client can neither create accounts without end nor probe which emails are taken.
 *
 * Refused attempts count too: a client that keeps trying instead of waiting stays refused.
 */
import { addressBucket } from './auth-throttle';
import { recordAttempt } from './attempt-windows';
import type { Redis } from '../storage/redis';

export const SIGNUP_WINDOW_MS = 60 * 60 * 1000;
export const DEFAULT_SIGNUPS_PER_ADDRESS = 10;

export interface SignupThrottle {
  /**
   * Records a sign-up attempt from `address` (after the trusted proxies) at `nowMs`; answers how
   * long (ms) until this client is under the limit again: 0 when it is (go on), else answer 429.
   */
  attempted(address: string, nowMs: number): Promise<number>;
}

/** `perAddress`: sign-up attempts per client address per window; 0: not limited. */
export function redisSignupThrottle(
  redis: Redis,
  keys: { readonly signupAttempts: (bucket: string) => string },
  perAddress = DEFAULT_SIGNUPS_PER_ADDRESS,
  windowMs = SIGNUP_WINDOW_MS,
): SignupThrottle {
  return {
    attempted(address, nowMs) {
      if (perAddress === 0) return Promise.resolve(0);
      const window = [keys.signupAttempts(addressBucket(address)), perAddress] as const;
      return recordAttempt(redis, [window], nowMs, windowMs);
    },
  };
}
