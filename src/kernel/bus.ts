/**
 * Message buses: what one process tells the others that share its store. In one process a
 * memory bus; across replicas Redis pub/sub or PostgreSQL LISTEN/NOTIFY. A message is a JSON
 * value, parsed on arrival and handed to listeners only when the bus's `read` accepts it (what
 * arrives on a shared channel is not trusted to have the shape its reader expects). Buses carry
 * wake-ups: what happened is kept in the store, so a message missed during an outage is covered
 * by the listener's own reads of the store. The connect pages' completion events and the gateway
 * inbox's answers both travel this way (elicit/store exports the buses, elicit/connect its
 * completion events over them).
 */
import type { Redis as RedisClient } from 'ioredis';
import { ELICIT_STORE_KEY, ELICIT_STORE_UNAVAILABLE } from './error-codes.ts';
import { type OnWarning, REDIS_DEFAULTS, warnToConsole, watchRedis } from './redis.ts';
import { type Json, StoreError, storeFailure } from './store.ts';

/** Messages between the processes that share one store. */
export interface MessageBus<T> {
  /** Sends `message` to every subscriber, in this process and the others on the channel. */
  publish(message: T): Promise<void>;
  /** Hears every accepted message; returns the way to stop hearing. */
  subscribe(listener: (message: T) => void): () => void;
  close(): Promise<void>;
}

/** How a bus turns what arrives into a message: `undefined` drops it. */
export type BusReader<T> = (value: unknown) => T | undefined;

export interface BusOptions<T = Json> {
  /** The channel every replica publishes and listens on. */
  readonly channel: string;
  /**
   * Accepts (and may narrow) each message that arrives; what it refuses is dropped. Without it
   * every message is handed on as parsed: its listeners then check what they read.
   */
  readonly read?: BusReader<T>;
  /** What the bus writes for a message (default: the message itself, as JSON). */
  readonly write?: (message: T) => Json;
  readonly url?: string;
  /** Told once per outage (default: console.warn). */
  readonly onWarning?: OnWarning;
  /** What the warnings call the bus (default "The message bus"). */
  readonly name?: string;
}

/** One listener that throws must not keep the others from hearing, nor end the process. */
function tell<T>(listeners: Set<(m: T) => void>, message: T): void {
  for (const l of listeners)
    try {
      l(message);
    } catch {}
}

function parse<T>(text: string, read: BusReader<T> | undefined): T | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return read === undefined ? (value as T) : read(value);
  } catch {
    return undefined;
  }
}

/** Messages within one process (nothing is serialised, but `read` still decides). */
export function memoryBus<T = Json>(read?: BusReader<T>): MessageBus<T> {
  const listeners = new Set<(m: T) => void>();
  return {
    async publish(message) {
      const m = read === undefined ? message : read(message);
      if (m !== undefined) tell(listeners, m);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
    },
  };
}

/**
 * Messages over Redis pub/sub. Through an outage: each client's lost connection is told once to
 * `onWarning`, publishing fails fast with a StoreError (ELICIT_STORE_UNAVAILABLE, the ioredis
 * error as `cause`), the subscriber subscribes again as soon as it reconnects (ioredis
 * `autoResubscribe`), and messages missed meanwhile are covered by the listeners' reads of the
 * store.
 */
export async function redisBus<T = Json>(options: BusOptions<T>): Promise<MessageBus<T>> {
  const { Redis } = await import('ioredis');
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const { channel, read } = options;
  const write = options.write ?? ((m: T) => m as Json);
  const pub: RedisClient = new Redis(url, { ...REDIS_DEFAULTS });
  // No command timeout on the subscriber: it only waits for messages.
  const sub: RedisClient = new Redis(url, {
    ...REDIS_DEFAULTS,
    commandTimeout: undefined,
    autoResubscribe: true,
  });
  const name = options.name ?? 'The message bus';
  watchRedis(pub, `${name} (publisher)`, options.onWarning);
  watchRedis(sub, `${name} (subscriber)`, options.onWarning);
  const listeners = new Set<(m: T) => void>();
  try {
    await sub.subscribe(channel);
  } catch (error) {
    pub.disconnect();
    sub.disconnect();
    throw storeFailure('Redis', 'subscribe to the message bus', error);
  }
  sub.on('message', (ch: string, text: string) => {
    if (ch !== channel) return;
    const m = parse(text, read);
    if (m !== undefined) tell(listeners, m);
  });
  return {
    async publish(message) {
      try {
        await pub.publish(channel, JSON.stringify(write(message)));
      } catch (error) {
        throw storeFailure('Redis', 'publish on the message bus', error);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      // quit waits for the server; during an outage there is none, so the socket just closes.
      await Promise.all([
        pub.quit().catch(() => pub.disconnect()),
        sub.quit().catch(() => sub.disconnect()),
      ]);
    },
  };
}

/** A LISTEN channel is used in SQL as it is: lowercase letters, digits and underscores. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Messages over PostgreSQL LISTEN/NOTIFY, so replicas sharing one database need no Redis.
 * Publishing is one `pg_notify` on a small pool and fails fast with a StoreError during an
 * outage; the listener holds one connection, and when it is lost tells `onWarning` once and
 * connects and listens again every quarter second until it is back. Messages missed meanwhile
 * are covered by the listeners' reads of the store. A NOTIFY payload is at most 8000 bytes.
 */
export async function postgresBus<T = Json>(options: BusOptions<T>): Promise<MessageBus<T>> {
  const { channel, read } = options;
  const write = options.write ?? ((m: T) => m as Json);
  if (!CHANNEL.test(channel))
    throw new StoreError(
      ELICIT_STORE_KEY,
      `postgresBus channel must be 1-63 lowercase letters, digits or underscores (not starting with a digit), got ${JSON.stringify(channel.slice(0, 70))}`,
    );
  const pg = await import('pg');
  const Pg = (pg as unknown as { default?: typeof pg }).default ?? pg;
  const url = options.url ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const warn = options.onWarning ?? warnToConsole;
  const pub = new Pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5000 });
  pub.on('error', () => {});
  const listeners = new Set<(m: T) => void>();
  let closed = false;
  let listener: InstanceType<typeof Pg.Client> | undefined;
  let down = false;
  let retry: NodeJS.Timeout | undefined;
  const hear = (message: { channel: string; payload?: string }) => {
    if (message.channel !== channel || message.payload === undefined) return;
    const m = parse(message.payload, read);
    if (m !== undefined) tell(listeners, m);
  };
  const listen = async (): Promise<void> => {
    const client = new Pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    // A lost connection (error, then end) is told once and listened to again.
    client.on('error', () => {});
    client.on('end', () => lost(client, new Error('the connection ended')));
    client.on('notification', hear);
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (closed) {
      await client.end().catch(() => {});
      return;
    }
    listener = client;
    down = false;
  };
  const lost = (client: InstanceType<typeof Pg.Client> | undefined, error: unknown) => {
    // Only the connection in use (or a failed attempt at one) counts; an old one's end does not.
    if (closed || (client !== undefined && listener !== client)) return;
    listener = undefined;
    if (!down) {
      down = true;
      try {
        warn({
          code: ELICIT_STORE_UNAVAILABLE,
          message: `${options.name ?? 'The message bus'} lost its PostgreSQL connection (${error instanceof Error ? error.message : String(error)}); listening again when it is back.`,
        });
      } catch {}
    }
    if (retry !== undefined) return;
    retry = setTimeout(again, 250);
    retry.unref();
  };
  function again(): void {
    retry = undefined;
    if (closed) return;
    listen().catch((error: unknown) => lost(undefined, error));
  }
  try {
    await listen();
  } catch (error) {
    closed = true;
    await pub.end().catch(() => {});
    throw storeFailure('PostgreSQL', 'listen on the message bus', error);
  }
  return {
    async publish(message) {
      try {
        await pub.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify(write(message))]);
      } catch (error) {
        throw storeFailure('PostgreSQL', 'publish on the message bus', error);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      listeners.clear();
      if (retry !== undefined) clearTimeout(retry);
      const client = listener;
      listener = undefined;
      await Promise.all([pub.end().catch(() => {}), client?.end().catch(() => {})]);
    },
  };
}
