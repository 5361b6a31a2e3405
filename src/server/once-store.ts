/**
 * Single-use markers for `ask.once`: `consume` succeeds exactly once per key within its TTL.
 * A store that cannot keep a marker fails closed: it throws, and the step does not run,
 * because forgetting a live marker is what would let a replay run the step again. Markers live
 * in any Store (store/once.ts `onceStoreFrom`); without one, in a memory store of this process.
 */
import { type OnceStore, OnceStoreFullError, OnceStoreUnavailableError } from '../kernel/store.ts';

export { type OnceStore, OnceStoreFullError, OnceStoreUnavailableError };

/** Live markers a server keeps in its own memory when it has no store. */
export const MEMORY_ONCE_ENTRIES = 100_000;
