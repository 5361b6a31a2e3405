/**
 * The store contract every driver implements: JSON records with a TTL, atomic create-if-absent,
 * compare-and-set by version, atomic single-use take, and lookup by tag (for example all records
 * of one principal). Small on purpose, so SQLite, Redis and memory can all do it atomically.
 */
export type { Json, PutOptions, Store, Stored } from '../kernel/store.ts';
export { StoreError, storeFailure } from '../kernel/store.ts';

import { ELICIT_STORE_KEY, ELICIT_STORE_TTL } from '../kernel/error-codes.ts';
import { StoreError } from '../kernel/store.ts';

/** Keys and tags are bounded and printable, so every driver can store them as they are. */
export function checkKey(key: string, what = 'key'): void {
  if (
    typeof key !== 'string' ||
    key.length === 0 ||
    key.length > 512 ||
    /[\u0000-\u001f]/.test(key)
  ) {
    throw new StoreError(
      ELICIT_STORE_KEY,
      `store ${what} must be 1-512 printable characters, got ${JSON.stringify(String(key).slice(0, 40))}`,
    );
  }
}

export function checkTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new StoreError(
      ELICIT_STORE_TTL,
      `ttlMs must be a positive whole number of milliseconds, got ${ttlMs}`,
    );
}
