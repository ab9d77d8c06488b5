/**
 * Per-account delivery slots (docs/webhooks.md#fairness): the worker slots of `webhook-delivery`
 * are shared by every account, so one account with many slow endpoints could fill them all and
 * hold back everyone else's deliveries. An attempt first takes one of its account's
 * WEBHOOK_ACCOUNT_CONCURRENCY slots, across every worker process: a Redis sorted set per account
 * of the attempts under way (member = job id, score = when its lease ends). A lease outlives the
 * attempt's deadline, so a worker that dies mid-attempt frees its slot when the lease ends.
 */
import type { Redis } from '../storage/redis';

/**
 * KEYS[1]  the account's slots (sorted set: member = holder, score = lease end in ms)
 * ARGV[1]  now (ms)   ARGV[2] lease (ms)   ARGV[3] limit   ARGV[4] holder
 * Returns  1 taken (or already held: the lease is renewed), 0 all taken
 */
const TAKE_LUA = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[4]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[4])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
  return 1
end
return 0
`;

export interface AccountSlots {
  /** Takes a slot of `accountId` for `holder` for `leaseMs`; false when all are taken. */
  take(accountId: string, holder: string, nowMs: number, leaseMs: number): Promise<boolean>;
  /** Gives the slot back. */
  release(accountId: string, holder: string): Promise<void>;
}

export function redisAccountSlots(
  redis: Redis,
  key: (accountId: string) => string,
  limit: number,
): AccountSlots {
  return {
    async take(accountId, holder, nowMs, leaseMs) {
      const args = [String(Math.floor(nowMs)), String(leaseMs), String(limit), holder];
      return (await redis.eval(TAKE_LUA, 1, key(accountId), ...args)) === 1;
    },
    async release(accountId, holder) {
      await redis.zrem(key(accountId), holder);
    },
  };
}
