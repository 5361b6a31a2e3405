/** A token bucket per key: `capacity` requests at once, refilled at `perMinute`. */
export interface RateLimit {
  readonly capacity: number;
  readonly perMinute: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = Object.freeze({ capacity: 10, perMinute: 30 });

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly limit: RateLimit;
  private readonly now: () => number;
  constructor(limit: RateLimit, now: () => number = Date.now) {
    this.limit = limit;
    this.now = now;
  }
  /** Takes one token for `key`; false when the bucket is empty. */
  take(key: string): boolean {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.limit.capacity, at: t };
    b.tokens = Math.min(
      this.limit.capacity,
      b.tokens + ((t - b.at) * this.limit.perMinute) / 60_000,
    );
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
