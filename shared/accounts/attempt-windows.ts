/**
 * The sliding windows behind apkrelay's per-client throttles (failed API keys, sign-ups): each
 * window is a Redis sorted set of attempts (score = time in ms), and one Lua call records an
 * attempt in every window it belongs to and answers how long until the client is under every
 * limit again. The callers choose the windows, their limits and length; this module only counts.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from '../storage/redis';

/** One window to count an attempt in: its Redis key and its limit (> 0). */
export type AttemptWindow = readonly [key: string, limit: number];

/**
 * KEYS[i]  a window (sorted set: member = one attempt, score = its time in ms); once one is over
 *          its limit the later windows are left alone, so put the broadest first (a client over
 *          its address limit then cannot fill Redis with one window per key it makes up)
 * ARGV[1]  now (ms)
 * ARGV[2]  window length (ms)
 * ARGV[3]  a unique member for this attempt
 * ARGV[3+i] the limit of KEYS[i] (> 0)
 * Returns  ms until every window holds fewer attempts than its limit again (0: already)
 * Each window keeps at most limit + 1 attempts (the newest), so memory stays bounded whatever a
 * client sends; an attempt at `t` counts while `now - t <= window`.
 */
const ATTEMPT_LUA = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local wait = 0
for i = 1, #KEYS do
  if wait > 0 then break end
  local limit = tonumber(ARGV[3 + i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. (now - window))
  redis.call('ZADD', KEYS[i], now, ARGV[3])
  redis.call('ZREMRANGEBYRANK', KEYS[i], 0, -(limit + 2))
  redis.call('PEXPIRE', KEYS[i], window + 60000)
  local count = redis.call('ZCARD', KEYS[i])
  if count > limit then
    local entry = redis.call('ZRANGE', KEYS[i], count - limit, count - limit, 'WITHSCORES')
    local frees = tonumber(entry[2]) + window + 1 - now
    if frees > wait then wait = frees end
  end
end
return wait
`;

/** A unique name for one attempt at `nowMs` (what `withdrawAttempt` takes back). */
export function attemptMember(nowMs: number): string {
  return `${Math.floor(nowMs)}-${randomBytes(6).toString('hex')}`;
}

/**
 * Records one attempt at `nowMs` in `windows` (in order); answers how long (ms) until the client is
 * under every limit again: 0 when this attempt is within them, else it is over a limit.
 * Counting and checking are one Lua call, so parallel attempts cannot all pass the check.
 */
export async function recordAttempt(
  redis: Redis,
  windows: readonly AttemptWindow[],
  nowMs: number,
  windowMs: number,
  member: string = attemptMember(nowMs),
): Promise<number> {
  if (windows.length === 0) return 0;
  const wait = await redis.eval(
    ATTEMPT_LUA,
    windows.length,
    ...windows.map(([key]) => key),
    String(Math.floor(nowMs)),
    String(windowMs),
    member,
    ...windows.map(([, limit]) => String(limit)),
  );
  return Number(wait);
}

/** Takes a recorded attempt (`member`) back out of the windows `keys`: it turned out not to count. */
export async function withdrawAttempt(
  redis: Redis,
  keys: readonly string[],
  member: string,
): Promise<void> {
  if (keys.length === 0) return;
  const multi = redis.multi();
  for (const key of keys) multi.zrem(key, member);
  await multi.exec();
}
