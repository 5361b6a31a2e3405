/** `ask.once` markers on any store: consuming a key is creating it if absent. */
import type { OnceStore } from '../server/once-store.ts';
import type { Store } from './types.ts';

export function onceStoreFrom(store: Store, prefix = 'once:'): OnceStore {
  return { consume: (key, ttlMs) => store.create(`${prefix}${key}`, 1, { ttlMs }) };
}
