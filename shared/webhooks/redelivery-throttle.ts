/**
 * Redelivery by hand, throttled per account (docs/webhooks.md#redelivery): each one is a new
 * job on the shared `webhook-delivery` queue, so an account clicking (or scripting) redeliver
 * without end would flood it. Every request is counted in a sliding window in Redis per account
 * (attempt-windows.ts, as the sign-up and failed-key throttles count); past
 * WEBHOOK_REDELIVERIES_PER_MINUTE the route answers 429 with Retry-After and queues nothing.
 */
import { recordAttempt } from '../accounts/attempt-windows';
import type { Redis } from '../storage/redis';

export const REDELIVERY_WINDOW_MS = 60_000;
export const DEFAULT_REDELIVERIES_PER_MINUTE = 30;

export interface RedeliveryThrottle {
  /** Counts a redelivery of `accountId` at `nowMs`; ms until it is under the limit again (0: go). */
  attempted(accountId: string, nowMs: number): Promise<number>;
}

export function redisRedeliveryThrottle(
  redis: Redis,
  key: (accountId: string) => string,
  perMinute = DEFAULT_REDELIVERIES_PER_MINUTE,
): RedeliveryThrottle {
  return {
    attempted: (accountId, nowMs) =>
      recordAttempt(redis, [[key(accountId), perMinute]], nowMs, REDELIVERY_WINDOW_MS),
  };
}
