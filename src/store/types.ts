/**
 * The store contract every driver implements: JSON records with a TTL, atomic create-if-absent,
 * compare-and-set by version, atomic single-use take, and lookup by tag (for example all records
 * of one principal) with a live count per tag. Small on purpose, so every driver can do it atomically.
 */
export type {
  Json,
  PutOptions,
  Store,
  Stored,
  TagCap,
  TagPage,
  UpdateOptions,
} from '../kernel/store.ts';
export { StoreError, storeFailure } from '../kernel/store.ts';

import { ELICIT_STORE_KEY, ELICIT_STORE_TTL } from '../kernel/error-codes.ts';
import { StoreError, type TagCap, type TagPage } from '../kernel/store.ts';

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

/** A cap names a valid tag and a whole, non-negative number of records. */
export function checkCap(cap: TagCap): void {
  checkKey(cap.tag, 'tag');
  if (!Number.isSafeInteger(cap.max) || cap.max < 0)
    throw new StoreError(
      ELICIT_STORE_KEY,
      `a tag cap must be a whole number of records, 0 or more, got ${cap.max}`,
    );
}

/** The largest page `findByTag` returns at once. */
export const MAX_TAG_PAGE = 10_000;

export function checkPage(page: TagPage | undefined): void {
  if (page === undefined) return;
  if (!Number.isSafeInteger(page.limit) || page.limit < 1 || page.limit > MAX_TAG_PAGE)
    throw new StoreError(
      ELICIT_STORE_KEY,
      `a findByTag page limit must be a whole number from 1 to ${MAX_TAG_PAGE}, got ${page.limit}`,
    );
  if (page.after !== undefined) checkKey(page.after, 'page cursor');
}
