/** `ask.once` markers on any store: consuming a key is creating it if absent. */

import { ELICIT_STORE_FULL } from '../kernel/error-codes.ts';
import { type OnceStore, OnceStoreFullError } from '../kernel/store.ts';
import { type Store, StoreError } from './types.ts';

export function onceStoreFrom(store: Store, prefix = 'once:'): OnceStore {
  return {
    scope: store.scope ?? 'shared',
    async consume(key, ttlMs) {
      try {
        return await store.create(`${prefix}${key}`, 1, { ttlMs });
      } catch (error) {
        if (error instanceof StoreError && error.code === ELICIT_STORE_FULL)
          throw new OnceStoreFullError(error.limit ?? 0);
        throw error;
      }
    },
  };
}
