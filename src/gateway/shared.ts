/**
 * The store replicas share, named by one address (`elicit gateway --store <url>`): Redis
 * (`redis://`, `rediss://`) or PostgreSQL (`postgres://`, `postgresql://`), each with its message
 * bus on the same server, so an answer given on any replica reaches the one holding the call.
 */
import type { MessageBus } from '../kernel/bus.ts';
import { ELICIT_GATEWAY_STORE } from '../kernel/error-codes.ts';
import type { OnWarning } from '../kernel/redis.ts';
import type { Json, Store } from '../kernel/store.ts';
import { postgresMessageBus, postgresStore, redisMessageBus, redisStore } from '../store/index.ts';
import { InboxError } from './inbox.ts';

/** A store and the bus beside it, closed together. */
export interface SharedStore {
  readonly store: Store;
  readonly bus: MessageBus<Json>;
  close(): Promise<void>;
}

export interface SharedStoreOptions {
  /**
   * What sets this deployment apart on a shared server: the Redis key prefix (default
   * `elicit:`) or the PostgreSQL schema (default `elicit`). The bus's channel is named after it.
   */
  readonly prefix?: string;
  readonly onWarning?: OnWarning;
}

/** Opens the store `url` names (and its bus); an address of another kind is refused. */
export async function openSharedStore(
  url: string,
  options: SharedStoreOptions = {},
): Promise<SharedStore> {
  const scheme = URL.canParse(url) ? new URL(url).protocol : '';
  const warn = options.onWarning === undefined ? {} : { onWarning: options.onWarning };
  if (scheme === 'redis:' || scheme === 'rediss:') {
    const prefix = options.prefix ?? 'elicit:';
    const store = await redisStore({ url, prefix, ...warn });
    try {
      const bus = await redisMessageBus({ url, channel: `${prefix}inbox`, ...warn });
      return { store, bus, close: () => Promise.all([bus.close(), store.close()]).then(() => {}) };
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  if (scheme === 'postgres:' || scheme === 'postgresql:') {
    const schema = options.prefix ?? 'elicit';
    const store = await postgresStore({ url, schema });
    try {
      const bus = await postgresMessageBus({ url, channel: `${schema}_inbox`, ...warn });
      return { store, bus, close: () => Promise.all([bus.close(), store.close()]).then(() => {}) };
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  throw new InboxError(
    ELICIT_GATEWAY_STORE,
    `A shared store is named by a redis://, rediss://, postgres:// or postgresql:// address; got ${JSON.stringify(url.slice(0, 100))}`,
  );
}
