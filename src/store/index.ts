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
export { type SqliteOptions, sqliteStore } from './sqlite.ts';
export { type Json, type PutOptions, type Store, type Stored, StoreError } from './types.ts';
