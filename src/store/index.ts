/**
 * elicit/store: durable records for URL-mode elicitation, OAuth transactions, nonces and the
 * vault, and the message buses between the replicas that share them.
 */
export {
  type BusOptions,
  type BusReader,
  type MessageBus,
  memoryBus as memoryMessageBus,
  postgresBus as postgresMessageBus,
  redisBus as redisMessageBus,
} from './bus.ts';
export { memoryStore } from './memory.ts';
export { type PostgresStoreOptions, postgresStore } from './postgres.ts';
export { type RedisStoreOptions, redisStore } from './redis.ts';
export { type SqliteStoreOptions, sqliteStore } from './sqlite.ts';
export {
  type Json,
  type PutOptions,
  type Store,
  type Stored,
  StoreError,
  type UpdateOptions,
} from './types.ts';

// Deprecated spellings (CHANGELOG.md), kept for one minor version: they go in 0.3.
import type { SqliteStoreOptions } from './sqlite.ts';
/** @deprecated Renamed `SqliteStoreOptions` in 0.2 (as `RedisStoreOptions`, `PostgresStoreOptions`). */
export type SqliteOptions = SqliteStoreOptions;
