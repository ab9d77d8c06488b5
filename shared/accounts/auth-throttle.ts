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
 */
import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Redis } from 'ioredis';
import { looksLikeApiKey } from './api-keys';

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

/**
 * KEYS[i]  a window (sorted set: member = one failure, score = its time in ms); the address's first
 *          when it is limited: once it is over its limit the later windows are left alone, so a
 *          client sending ever new wrong keys cannot fill Redis with one window per key
 *          (an address creates at most `limit` key windows per window length)
 * ARGV[1]  now (ms)
 * ARGV[2]  window length (ms)
 * ARGV[3]  a unique member for this failure
 * ARGV[3+i] the limit of KEYS[i] (> 0)
 * Returns  ms until every window holds fewer failures than its limit again (0: already)
 * Each window keeps at most limit + 1 failures (the newest), so memory stays bounded whatever a
 * client sends; a failure at `t` counts while `now - t <= window`.
 */
const FAILED_LUA = `
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

export function redisAuthThrottle(
  redis: Redis,
  keys: { readonly authFailures: (kind: 'address' | 'key', bucket: string) => string },
  limits: AuthFailureLimits = DEFAULT_AUTH_FAILURE_LIMITS,
  windowMs = AUTH_FAILURE_WINDOW_MS,
): AuthThrottle {
  return {
    async failed(attempt, nowMs) {
      const windows: Array<[string, number]> = [];
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
      if (windows.length === 0) return 0;
      const member = `${Math.floor(nowMs)}-${randomBytes(6).toString('hex')}`;
      const wait = await redis.eval(
        FAILED_LUA,
        windows.length,
        ...windows.map(([key]) => key),
        String(Math.floor(nowMs)),
        String(windowMs),
        member,
        ...windows.map(([, limit]) => String(limit)),
      );
      return Number(wait);
    },
  };
}
