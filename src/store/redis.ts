/**
 * Redis store (ioredis, imported lazily): for several replicas. Create is SET NX PX, take is
 * GETDEL, compare-and-set and tagging are Lua scripts, so every operation is atomic on the server.
 *
 * While Redis is unreachable every operation fails at once with a StoreError
 * (ELICIT_STORE_UNAVAILABLE, the ioredis error as `cause`) instead of queueing, and the client
 * reconnects every quarter second, so work resumes as soon as Redis is back (kernel/redis.ts).
 */
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { type OnWarning, REDIS_DEFAULTS, watchRedis } from '../kernel/redis.ts';
import {
  checkKey,
  checkTtl,
  type Json,
  type Store,
  type Stored,
  type StoreError,
  storeFailure,
} from './types.ts';

export interface RedisStoreOptions {
  /** A connection URL (redis://127.0.0.1:6379) or an existing ioredis client. */
  readonly url?: string;
  readonly client?: RedisClient;
  /** Key prefix, so several apps can share a server; default "elicit:". */
  readonly prefix?: string;
  /** ioredis options, over elicit's: fail fast during an outage, reconnect every 250 ms at most. */
  readonly redis?: RedisOptions;
  /**
   * Told once when the connection is lost (and again after it came back and was lost again);
   * default console.warn. The ioredis error is in the message, for the operator's log only.
   */
  readonly onWarning?: OnWarning;
}

/** A Redis reply or connection error as a StoreError; an out-of-memory refusal is ELICIT_STORE_FULL. */
const failure = (operation: string, error: unknown): StoreError =>
  storeFailure('Redis', operation, error, error instanceof Error && /^OOM\b/.test(error.message));

/** Runs one store operation, turning what Redis or ioredis threw into a StoreError. */
async function guard<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw failure(operation, error);
  }
}

// value = JSON of {v: value, n: version, x: expiresAt}; tags are sets with the same expiry or later.
const CREATE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  for i = 3, #ARGV do
    redis.call('SADD', ARGV[i], KEYS[1])
    local ttl = redis.call('PTTL', ARGV[i])
    if ttl < tonumber(ARGV[2]) then redis.call('PEXPIRE', ARGV[i], ARGV[2]) end
  end
  return 1
end
return 0`;
const UPDATE = `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local rec = cjson.decode(cur)
if tostring(rec.n) ~= ARGV[1] then return 0 end
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1`;

export async function redisStore(options: RedisStoreOptions = {}): Promise<Store> {
  const { Redis } = await import('ioredis');
  const prefix = options.prefix ?? 'elicit:';
  const client =
    options.client ??
    new Redis(options.url ?? 'redis://127.0.0.1:6379', {
      lazyConnect: false,
      ...REDIS_DEFAULTS,
      ...options.redis,
    });
  const own = options.client === undefined;
  // A client passed in is the caller's: its listeners and settings are theirs too.
  if (own) watchRedis(client, 'The Redis store', options.onWarning);
  const k = (key: string) => `${prefix}r:${key}`;
  const t = (tag: string) => `${prefix}t:${tag}`;
  const parse = <T extends Json>(raw: string | null): Stored<T> | undefined => {
    if (raw === null) return undefined;
    const rec = JSON.parse(raw) as { v: T; n: number; x: number };
    return { value: rec.v, version: rec.n, expiresAt: rec.x };
  };
  return {
    async create(key, value, opts) {
      checkKey(key);
      checkTtl(opts.ttlMs);
      const body = JSON.stringify({ v: value, n: 1, x: Date.now() + opts.ttlMs });
      const tags = (opts.tags ?? []).map(t);
      return guard(
        'create a record',
        async () => (await client.eval(CREATE, 1, k(key), body, String(opts.ttlMs), ...tags)) === 1,
      );
    },
    async get(key) {
      return guard('read a record', async () => parse(await client.get(k(key))));
    },
    async update(key, version, value, opts) {
      if (opts?.ttlMs !== undefined) checkTtl(opts.ttlMs);
      return guard('update a record', async () => {
        const current = parse(await client.get(k(key)));
        if (current === undefined) return false;
        const x = opts?.ttlMs === undefined ? current.expiresAt : Date.now() + opts.ttlMs;
        const body = JSON.stringify({ v: value, n: version + 1, x });
        return (
          (await client.eval(
            UPDATE,
            1,
            k(key),
            String(version),
            body,
            opts?.ttlMs === undefined ? '' : String(opts.ttlMs),
          )) === 1
        );
      });
    },
    async take(key) {
      return guard('take a record', async () => parse(await client.getdel(k(key))) as never);
    },
    async delete(key) {
      return guard('delete a record', async () => {
        await client.del(k(key));
      });
    },
    async findByTag(tag) {
      return guard('find records by tag', async () => {
        const members = await client.smembers(t(tag));
        if (members.length === 0) return [];
        const pipe = client.pipeline();
        for (const m of members) pipe.exists(m);
        const replies = (await pipe.exec()) ?? [];
        const failed = replies.find(([error]) => error !== null)?.[0];
        if (failed != null || replies.length !== members.length)
          throw failed ?? new Error('the pipeline was cut short');
        const alive = replies.map(([, n]) => n === 1);
        const dead = members.filter((_, i) => !alive[i]);
        // Pruning is housekeeping: the answer stands without it, and the next read tries again.
        if (dead.length > 0) await client.srem(t(tag), ...dead).catch(() => {});
        return members.filter((_, i) => alive[i]).map((m) => m.slice(`${prefix}r:`.length));
      });
    },
    async close() {
      // quit waits for the server; during an outage there is none, so the socket just closes.
      if (own) await client.quit().catch(() => client.disconnect());
    },
  };
}
