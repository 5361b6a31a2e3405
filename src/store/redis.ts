/**
 * Redis store (ioredis, imported lazily): for several replicas. Create is SET NX PX, take is
 * GETDEL, compare-and-set and tagging are Lua scripts, so every operation is atomic on the server.
 */
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { checkKey, checkTtl, type Json, type Store, type Stored } from './types.ts';

export interface RedisStoreOptions {
  /** A connection URL (redis://127.0.0.1:6379) or an existing ioredis client. */
  readonly url?: string;
  readonly client?: RedisClient;
  /** Key prefix, so several apps can share a server; default "elicit:". */
  readonly prefix?: string;
  readonly redis?: RedisOptions;
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
      maxRetriesPerRequest: 2,
      ...options.redis,
    });
  const own = options.client === undefined;
  // A lost connection also fails the commands that meet it, and their callers get that error;
  // without a listener ioredis would print every reconnect attempt's error as unhandled.
  if (own) client.on('error', () => {});
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
      return (await client.eval(CREATE, 1, k(key), body, String(opts.ttlMs), ...tags)) === 1;
    },
    async get(key) {
      return parse(await client.get(k(key)));
    },
    async update(key, version, value, opts) {
      if (opts?.ttlMs !== undefined) checkTtl(opts.ttlMs);
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
    },
    async take(key) {
      return parse(await client.getdel(k(key))) as never;
    },
    async delete(key) {
      await client.del(k(key));
    },
    async findByTag(tag) {
      const members = await client.smembers(t(tag));
      if (members.length === 0) return [];
      const pipe = client.pipeline();
      for (const m of members) pipe.exists(m);
      const alive = ((await pipe.exec()) ?? []).map(([, n]) => n === 1);
      const dead = members.filter((_, i) => !alive[i]);
      if (dead.length > 0) await client.srem(t(tag), ...dead);
      return members.filter((_, i) => alive[i]).map((m) => m.slice(`${prefix}r:`.length));
    },
    async close() {
      if (own) await client.quit();
    },
  };
}
