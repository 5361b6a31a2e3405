/** Token buckets per server: `capacity` requests at once, refilled at `perMinute`. */
import type { RateLimit } from '../kernel/rate-limit.ts';

export { type RateLimit, TokenBuckets } from '../kernel/rate-limit.ts';

export const DEFAULT_RATE_LIMIT: RateLimit = Object.freeze({ capacity: 10, perMinute: 30 });
