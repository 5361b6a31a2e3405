/**
 * Single-use markers for `ask.once`: `consume` succeeds exactly once per key within its TTL.
 * The memory store serves one process; issue-5 stores (SQLite, Redis) implement the same
 * contract for several replicas.
 */
export interface OnceStore {
  /** True the first time `key` is consumed (until `ttlMs` passes); false afterwards. */
  consume(key: string, ttlMs: number): Promise<boolean>;
}

export function memoryOnceStore(
  options: { maxEntries?: number; now?: () => number } = {},
): OnceStore {
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>();
  return {
    async consume(key, ttlMs) {
      const t = now();
      const until = seen.get(key);
      if (until !== undefined && until > t) return false;
      seen.delete(key);
      seen.set(key, t + ttlMs);
      // Insertion order is expiry order for a fixed TTL: drop expired and overflow from the front.
      for (const [k, exp] of seen) {
        if (exp > t && seen.size <= maxEntries) break;
        seen.delete(k);
      }
      return true;
    },
  };
}
