/** elicit/store: durable records for URL-mode elicitation, OAuth transactions, nonces and the vault. */
export { memoryStore } from './memory.ts';
export { type PostgresStoreOptions, postgresStore } from './postgres.ts';
export { type RedisStoreOptions, redisStore } from './redis.ts';
export { type SqliteOptions, sqliteStore } from './sqlite.ts';
export { type Json, type PutOptions, type Store, type Stored, StoreError } from './types.ts';
