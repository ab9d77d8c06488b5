/** Exponential backoff, capped, with optional jitter. Pure: the caller passes the random number. */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** 0: none; 0.5: the delay is drawn from [d/2, d]. */
  readonly jitter: number;
}

export function backoffDelay(policy: BackoffPolicy, attempt: number, random: number): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, attempt));
  return Math.round(base * (1 - policy.jitter * random));
}

/** `Retry-After` in seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, nowMs: number): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
