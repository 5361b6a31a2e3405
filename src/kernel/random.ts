/**
 * Pooled CSPRNG bytes: one `getRandomValues` call fills a pool that many small draws (IVs,
 * record ids) share, instead of one call each. Web Crypto, so any part may use it.
 */
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let at = 0;

/** `n` fresh random bytes (at most 4096) taken from the pool; refilled when it runs out. */
export function pooledRandom(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 1 || n > POOL_BYTES)
    throw new RangeError(`pooledRandom draws 1 to ${POOL_BYTES} bytes, got ${String(n)}`);
  if (at + n > pool.length) {
    // A new array each time: views handed out earlier keep their bytes.
    pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    at = 0;
  }
  at += n;
  return pool.subarray(at - n, at);
}

/** `n` random bytes from a fresh CSPRNG call (keys, salts: nothing shared with the pool). */
export function randomBytes(n: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}
