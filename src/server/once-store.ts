/**
 * Single-use markers for `ask.once`: `consume` succeeds exactly once per key within its TTL.
 * A store that cannot keep a marker fails closed: it throws, and the step does not run,
 * because forgetting a live marker is what would let a replay run the step again.
 */
import { type OnceStore, OnceStoreFullError, OnceStoreUnavailableError } from '../kernel/store.ts';

export { type OnceStore, OnceStoreFullError, OnceStoreUnavailableError };

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
