/**
 * The exception limit: at most `limit` reports per app in any rolling window (24 h), exact and
 * atomic across API processes. One Redis sorted set per app holds the admitted reports: member =
 * the report's content digest, score = admission time (ms, from the injected clock). One Lua call
 * drops what left the window, recognises a resent report, counts and admits, so two processes can
 * never both take the last slot.
 *
 * A report admitted at `t` counts while `now - t <= window`; it stops counting once it is more
 * than the window old, so the slot frees at `t + window + 1` ms.
 */
import type { Redis } from '../storage/redis';
import { confirmReplicated } from '../storage/redis-replicas';

export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * KEYS[1]  the app's window (sorted set: member = report digest, score = admission time in ms)
 * ARGV[1]  now (ms)
 * ARGV[2]  window length (ms)
 * ARGV[3]  limit (reports per window)
 * ARGV[4]  the report's digest; empty string: only look (no admission)
 * Returns  { outcome, count, oldest, admittedAt }
 *          outcome 1 admitted now, 2 already admitted (a resend; admittedAt is the first
 *          admission), 0 refused (window full), 3 looked only;
 *          count = reports in the window after the call; oldest = score of the oldest one (-1 when
 *          empty); admittedAt = score of this report (-1 when refused or looking)
 */
const ADMIT_LUA = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - window))
local function oldest()
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if #first == 0 then return -1 end
  return tonumber(first[2])
end
if ARGV[4] == '' then
  return { 3, redis.call('ZCARD', KEYS[1]), oldest(), -1 }
end
local seen = redis.call('ZSCORE', KEYS[1], ARGV[4])
if seen then
  return { 2, redis.call('ZCARD', KEYS[1]), oldest(), tonumber(seen) }
end
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  return { 0, count, oldest(), -1 }
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window + 60000)
return { 1, count + 1, oldest(), now }
`;

/**
 * KEYS[1]  the app's window
 * ARGV[1]  the report's digest
 * ARGV[2]  its admission time (ms): removed only if still admitted at that time
 * Returns  1 released, 0 nothing to release
 */
const RELEASE_LUA = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
`;

export type Outcome = 'admitted' | 'resent' | 'refused' | 'looked';

/** The budget a device is told with every verdict. */
export interface Budget {
  readonly limit: number;
  readonly remaining: number;
  /** When the next slot frees up; null while slots remain. */
  readonly freesAt: Date | null;
}

export interface WindowState {
  readonly outcome: Outcome;
  readonly count: number;
  /** Admission time of the oldest report in the window (ms), or null when empty. */
  readonly oldestMs: number | null;
  /** This report's admission time (ms): now, or the first admission of a resend. */
  readonly admittedAtMs: number | null;
}

/** Remaining budget and, when none is left, when the oldest report stops counting. Pure. */
export function budgetOf(
  state: Pick<WindowState, 'count' | 'oldestMs'>,
  limit: number,
  windowMs = DAY_MS,
): Budget {
  const remaining = Math.max(0, limit - state.count);
  const freesAt =
    remaining === 0 && state.oldestMs !== null ? new Date(state.oldestMs + windowMs + 1) : null;
  return { limit, remaining, freesAt };
}

/** Whether a report admitted at `admittedAtMs` still counts at `nowMs`. Pure. */
export function countsAt(admittedAtMs: number, nowMs: number, windowMs = DAY_MS): boolean {
  return nowMs - admittedAtMs <= windowMs;
}

const OUTCOMES: Record<number, Outcome> = { 0: 'refused', 1: 'admitted', 2: 'resent', 3: 'looked' };

export interface SlidingWindow {
  /** Admits `digest` if the window has room (or recognises a resend). Empty digest: look only. */
  admit(key: string, digest: string, nowMs: number, limit: number): Promise<WindowState>;
  /** Gives back a slot taken by `admit` (the report could not be enqueued). */
  release(key: string, digest: string, admittedAtMs: number): Promise<boolean>;
}

export function redisSlidingWindow(redis: Redis, windowMs = DAY_MS): SlidingWindow {
  return {
    async admit(key, digest, nowMs, limit) {
      const [outcome, count, oldest, admittedAt] = (await redis.eval(
        ADMIT_LUA,
        1,
        key,
        String(Math.floor(nowMs)),
        String(windowMs),
        String(limit),
        digest,
      )) as [number, number, number, number];
      // The limit is exact only if an admission survives a failover (redis-replicas.ts).
      if (outcome === 1) await confirmReplicated(redis, key);
      return {
        outcome: OUTCOMES[outcome] ?? 'refused',
        count,
        oldestMs: oldest < 0 ? null : oldest,
        admittedAtMs: admittedAt < 0 ? null : admittedAt,
      };
    },
    async release(key, digest, admittedAtMs) {
      return (await redis.eval(RELEASE_LUA, 1, key, digest, String(admittedAtMs))) === 1;
    },
  };
}
