/**
 * Single-use markers for `ask.once`: `consume` succeeds exactly once per key within its TTL.
 * A store that cannot keep a marker fails closed: it throws, and the step does not run,
 * because forgetting a live marker is what would let a replay run the step again.
 */

import { ElicitError } from '../errors.ts';
import { ELICIT_ONCE_STORE_FULL, ELICIT_ONCE_STORE_UNAVAILABLE } from '../kernel/error-codes.ts';

export interface OnceStore {
  /**
   * True the first time `key` is consumed (until `ttlMs` passes); false afterwards. Throws
   * OnceStoreFullError rather than forget a live marker.
   */
  consume(key: string, ttlMs: number): Promise<boolean>;
  /** `process`: markers live in this process only, so replicas cannot see each other's. */
  readonly scope: 'process' | 'shared';
}

/** The once store is at its limit with live markers: the step is refused, not run. */
export class OnceStoreFullError extends ElicitError {
  constructor(limit: number) {
    super(
      ELICIT_ONCE_STORE_FULL,
      `The one-time step store holds ${limit} live markers, its limit; the step was not run. Try again once markers expire, raise the limit, or use a shared store (createServer({ store })).`,
    );
  }
}

/** The once store could not be reached: the step is refused, not run. */
export class OnceStoreUnavailableError extends ElicitError {
  constructor(key: string, cause: unknown) {
    super(
      ELICIT_ONCE_STORE_UNAVAILABLE,
      `The one-time step "${key}" was not run because its marker could not be recorded (${cause instanceof Error ? cause.message : String(cause)}). Nothing was done; try again when the store is back.`,
      { cause },
    );
  }
}

export function memoryOnceStore(
  options: { maxEntries?: number; now?: () => number } = {},
): OnceStore {
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>();
  return {
    scope: 'process',
    async consume(key, ttlMs) {
      const t = now();
      const until = seen.get(key);
      if (until !== undefined && until > t) return false;
      seen.delete(key);
      if (seen.size >= maxEntries) {
        // Drop expired markers only; a live one is what stops a replay.
        for (const [k, exp] of seen) if (exp <= t) seen.delete(k);
        if (seen.size >= maxEntries) throw new OnceStoreFullError(maxEntries);
      }
      seen.set(key, t + ttlMs);
      return true;
    },
  };
}
