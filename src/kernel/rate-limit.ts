/**
 * Token buckets per key: `capacity` takes at once, refilled continuously at `perMinute`. With
 * `maxKeys`, the least recently seen key is dropped when a new one would exceed it, so a flood
 * of distinct keys cannot grow the map. No Node-only imports: the client uses this too.
 */
export interface RateLimit {
  readonly capacity: number;
  readonly perMinute: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly limit: RateLimit;
  private readonly now: () => number;
  private readonly maxKeys: number;
  constructor(
    limit: RateLimit,
    now: () => number = Date.now,
    maxKeys: number = Number.POSITIVE_INFINITY,
  ) {
    this.limit = limit;
    this.now = now;
    this.maxKeys = maxKeys;
  }

  /** Takes one token for `key`; false when the bucket is empty. */
  take(key: string): boolean {
    const t = this.now();
    const found = this.buckets.get(key);
    const b = found ?? { tokens: this.limit.capacity, at: t };
    b.tokens = Math.min(
      this.limit.capacity,
      b.tokens + ((t - b.at) * this.limit.perMinute) / 60_000,
    );
    b.at = t;
    if (Number.isFinite(this.maxKeys)) {
      // Re-insert so the map's order is least recently seen first.
      this.buckets.delete(key);
      this.buckets.set(key, b);
      if (found === undefined && this.buckets.size > this.maxKeys) {
        const oldest = this.buckets.keys().next().value;
        if (oldest !== undefined) this.buckets.delete(oldest);
      }
    } else this.buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
