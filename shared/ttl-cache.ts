/**
 * A small in-process cache with a time-to-live and a size bound, for the look-ups every device
 * request repeats (account by API key, app, APK by hash, a registration's absence): thousands of
 * devices of one app send the same key, package and hash, so each API process asks the database
 * once per TTL instead of once per request. The TTL bounds how stale an answer may be (a revoked
 * key or a changed plan take effect within it). Time is a parameter (a monotonic clock in ms), so
 * tests need no sleeps.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** The cached value, or `load()`'s when missing or stale; `keep(value)` false: not cached. */
  async get(
    key: string,
    load: () => Promise<V>,
    keep: (value: V) => boolean = () => true,
  ): Promise<V> {
    const now = this.clock();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    const value = await load();
    if (keep(value)) {
      this.entries.delete(key);
      this.entries.set(key, { value, expires: now + this.ttlMs });
      // Maps iterate in insertion order: the first key is the oldest entry.
      while (this.entries.size > this.maxEntries) {
        this.entries.delete(this.entries.keys().next().value!);
      }
    }
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
