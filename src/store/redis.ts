/**
 * Redis store (ioredis, imported lazily): for several replicas. Every operation is one command
 * or one Lua script, so each is atomic on the server and one round trip.
 *
 * A record is JSON `{"n":version,"x":expiresAt,"g":[tags],"v":value}` (`g` only when tagged, and
 * always just before `v`, so a script reads the header without decoding the value). Each tag has
 * two sorted sets: `e:` scored by expiry (expired members leave first, so ZCARD is the live
 * count) and `l:` with one score (key order, for pages). Expiry and scores use the server's clock.
 *
 * While Redis is unreachable every operation fails at once with a StoreError
 * (ELICIT_STORE_UNAVAILABLE, the ioredis error as `cause`) instead of queueing, and the client
 * reconnects every quarter second, so work resumes as soon as Redis is back (kernel/redis.ts).
 */
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { type OnWarning, REDIS_DEFAULTS, watchRedis } from '../kernel/redis.ts';
import {
  checkCap,
  checkKey,
  checkPage,
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

// Shared by the scripts: the server's clock in ms; a record's header; dropping a tag's expired members.
const LIB = `
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function header(cur)
  local n, x, at = string.match(cur, '^{"n":(%d+),"x":(%d+),()')
  if not n then
    local rec = cjson.decode(cur)
    return tonumber(rec.n), tonumber(rec.x), '', {}
  end
  if string.sub(cur, at, at + 4) ~= '"g":[' then return tonumber(n), tonumber(x), '', {} end
  local stop = string.find(cur, '],"v":', at, true)
  return tonumber(n), tonumber(x), string.sub(cur, at, stop) .. ',', cjson.decode(string.sub(cur, at + 4, stop))
end
local function purge(p, tag, now)
  local e = p .. 'e:' .. tag
  local dead = redis.call('ZRANGEBYSCORE', e, '-inf', now, 'LIMIT', 0, 256)
  while #dead > 0 do
    redis.call('ZREM', e, unpack(dead))
    redis.call('ZREM', p .. 'l:' .. tag, unpack(dead))
    if #dead < 256 then break end
    dead = redis.call('ZRANGEBYSCORE', e, '-inf', now, 'LIMIT', 0, 256)
  end
end
local function untag(p, key, tags)
  for _, tag in ipairs(tags) do
    redis.call('ZREM', p .. 'e:' .. tag, key)
    redis.call('ZREM', p .. 'l:' .. tag, key)
  end
end
`;

// KEYS[1] record; ARGV prefix, value JSON, ttl, cap tag ('' for none), cap max, tags JSON, tags…
// 1 created, 0 exists, 2 full.
const CREATE = `${LIB}
local p, ttl = ARGV[1], tonumber(ARGV[3])
local now = clock()
if ARGV[4] ~= '' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
  purge(p, ARGV[4], now)
  if redis.call('ZCARD', p .. 'e:' .. ARGV[4]) >= tonumber(ARGV[5]) then return 2 end
end
local x = now + ttl
local g = ''
if #ARGV >= 7 then g = '"g":' .. ARGV[6] .. ',' end
local body = '{"n":1,"x":' .. string.format('%d', x) .. ',' .. g .. '"v":' .. ARGV[2] .. '}'
if not redis.call('SET', KEYS[1], body, 'NX', 'PX', ttl) then return 0 end
for i = 7, #ARGV do
  local e, l = p .. 'e:' .. ARGV[i], p .. 'l:' .. ARGV[i]
  redis.call('ZADD', e, x, KEYS[1])
  redis.call('ZADD', l, 0, KEYS[1])
  -- A tag nobody reads again still goes: its sets outlive their longest record, no more.
  if redis.call('PTTL', e) < ttl then
    redis.call('PEXPIRE', e, ttl)
    redis.call('PEXPIRE', l, ttl)
  end
end
return 1`;

// KEYS[1] record; ARGV prefix, version, value JSON, ttl ('' keeps the expiry). 1 replaced, 0 not.
const UPDATE = `${LIB}
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local n, x, g, tags = header(cur)
if n ~= tonumber(ARGV[2]) then return 0 end
local body
if ARGV[4] == '' then
  body = '{"n":' .. string.format('%d', n + 1) .. ',"x":' .. string.format('%d', x) .. ',' .. g .. '"v":' .. ARGV[3] .. '}'
  redis.call('SET', KEYS[1], body, 'KEEPTTL')
else
  local ttl = tonumber(ARGV[4])
  x = clock() + ttl
  body = '{"n":' .. string.format('%d', n + 1) .. ',"x":' .. string.format('%d', x) .. ',' .. g .. '"v":' .. ARGV[3] .. '}'
  redis.call('SET', KEYS[1], body, 'PX', ttl)
  for _, tag in ipairs(tags) do
    local e, l = ARGV[1] .. 'e:' .. tag, ARGV[1] .. 'l:' .. tag
    redis.call('ZADD', e, 'XX', x, KEYS[1])
    if redis.call('PTTL', e) < ttl then
      redis.call('PEXPIRE', e, ttl)
      redis.call('PEXPIRE', l, ttl)
    end
  end
end
return 1`;

// KEYS[1] record; ARGV prefix. The record as it was (removed with its tags), or nil.
const TAKE = `${LIB}
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
redis.call('DEL', KEYS[1])
local _, _, _, tags = header(cur)
untag(ARGV[1], KEYS[1], tags)
return cur`;

// ARGV prefix, tag. The live count.
const COUNT = `${LIB}
purge(ARGV[1], ARGV[2], clock())
return redis.call('ZCARD', ARGV[1] .. 'e:' .. ARGV[2])`;

// ARGV prefix, tag, after ('' for the first page), limit ('' for all). Live keys.
const FIND = `${LIB}
purge(ARGV[1], ARGV[2], clock())
if ARGV[4] == '' then return redis.call('ZRANGE', ARGV[1] .. 'e:' .. ARGV[2], 0, -1) end
local from = '-'
if ARGV[3] ~= '' then from = '(' .. ARGV[1] .. 'r:' .. ARGV[3] end
return redis.call('ZRANGEBYLEX', ARGV[1] .. 'l:' .. ARGV[2], from, '+', 'LIMIT', 0, tonumber(ARGV[4]))`;

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
  const cmd = client as unknown as Record<
    'elicitCreate' | 'elicitUpdate' | 'elicitTake' | 'elicitCount' | 'elicitFind',
    (...args: (string | number)[]) => Promise<unknown>
  >;
  // Scripts by digest (EVALSHA, loaded once per connection by ioredis), not their text each call.
  client.defineCommand('elicitCreate', { numberOfKeys: 1, lua: CREATE });
  client.defineCommand('elicitUpdate', { numberOfKeys: 1, lua: UPDATE });
  client.defineCommand('elicitTake', { numberOfKeys: 1, lua: TAKE });
  client.defineCommand('elicitCount', { numberOfKeys: 0, lua: COUNT });
  client.defineCommand('elicitFind', { numberOfKeys: 0, lua: FIND });
  const recordPrefix = `${prefix}r:`;
  const k = (key: string) => `${recordPrefix}${key}`;
  const parse = <T extends Json>(raw: string | null): Stored<T> | undefined => {
    if (raw === null) return undefined;
    const rec = JSON.parse(raw) as { v: T; n: number; x: number };
    return { value: rec.v, version: rec.n, expiresAt: rec.x };
  };
  const failing =
    <A extends unknown[], R>(operation: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (error) {
        throw failure(operation, error);
      }
    };
  const put = async (
    key: string,
    value: Json,
    ttlMs: number,
    tags: readonly string[],
    capTag = '',
    capMax = 0,
  ): Promise<number> => {
    checkKey(key);
    checkTtl(ttlMs);
    for (const tag of tags) checkKey(tag, 'tag');
    const unique = [...new Set(capTag === '' ? tags : [...tags, capTag])];
    return Number(
      await cmd.elicitCreate(
        k(key),
        prefix,
        JSON.stringify(value),
        ttlMs,
        capTag,
        capMax,
        JSON.stringify(unique),
        ...unique,
      ),
    );
  };
  return {
    create: failing('create a record', async (key, value, opts) => {
      return (await put(key, value, opts.ttlMs, opts.tags ?? [])) === 1;
    }),
    createCapped: failing('create a record', async (key, value, opts, cap) => {
      checkCap(cap);
      const out = await put(key, value, opts.ttlMs, opts.tags ?? [], cap.tag, cap.max);
      return out === 1 ? 'created' : out === 2 ? 'full' : 'exists';
    }),
    get: failing('read a record', async (key) => parse(await client.get(k(key)))),
    update: failing('update a record', async (key, version, value, opts) => {
      if (opts?.ttlMs !== undefined) checkTtl(opts.ttlMs);
      const ttl = opts?.ttlMs === undefined ? '' : String(opts.ttlMs);
      return (
        Number(await cmd.elicitUpdate(k(key), prefix, version, JSON.stringify(value), ttl)) === 1
      );
    }),
    take: failing('take a record', async (key) =>
      parse((await cmd.elicitTake(k(key), prefix)) as string | null),
    ) as Store['take'],
    delete: failing('delete a record', async (key) => {
      await cmd.elicitTake(k(key), prefix);
    }),
    findByTag: failing('list records by tag', async (tag, page) => {
      checkPage(page);
      const keys = (await cmd.elicitFind(
        prefix,
        tag,
        page?.after ?? '',
        page === undefined ? '' : page.limit,
      )) as string[];
      return keys.map((m) => m.slice(recordPrefix.length));
    }),
    countByTag: failing('count records by tag', async (tag) =>
      Number(await cmd.elicitCount(prefix, tag)),
    ),
    async close() {
      // quit waits for the server; during an outage there is none, so the socket just closes.
      if (own) await client.quit().catch(() => client.disconnect());
    },
  };
}
