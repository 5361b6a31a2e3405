/**
 * Completion events: a record finished in the browser. In one process a memory bus; across
 * replicas Redis pub/sub or PostgreSQL LISTEN/NOTIFY, so the replica holding the MCP session can notify its client even
 * when the browser callback landed on another replica.
 */
import type { Redis as RedisClient } from 'ioredis';
import { ELICIT_STORE_KEY, ELICIT_STORE_UNAVAILABLE } from '../kernel/error-codes.ts';
import { type OnWarning, REDIS_DEFAULTS, warnToConsole, watchRedis } from '../kernel/redis.ts';
import { StoreError, storeFailure } from '../kernel/store.ts';

export interface CompletionEvent {
  readonly id: string;
  readonly status: 'complete' | 'declined';
}

export interface CompletionBus {
  publish(event: CompletionEvent): Promise<void>;
  subscribe(listener: (event: CompletionEvent) => void): () => void;
  close(): Promise<void>;
}

export function memoryBus(): CompletionBus {
  const listeners = new Set<(e: CompletionEvent) => void>();
  return {
    async publish(event) {
      for (const l of listeners) l(event);
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
 * Completion events over Redis pub/sub. Through an outage: each client's lost connection is told
 * once to `onWarning` (default console.warn), publishing fails fast with a StoreError
 * (ELICIT_STORE_UNAVAILABLE, the ioredis error as `cause`), the subscriber subscribes again as
 * soon as it reconnects (ioredis `autoResubscribe`), and events missed meanwhile are covered by
 * the waiting requests' reads of the store.
 */
export async function redisBus(
  options: { url?: string; channel?: string; onWarning?: OnWarning } = {},
): Promise<CompletionBus> {
  const { Redis } = await import('ioredis');
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const channel = options.channel ?? 'elicit:complete';
  const pub: RedisClient = new Redis(url, { ...REDIS_DEFAULTS });
  // No command timeout on the subscriber: it only waits for messages.
  const sub: RedisClient = new Redis(url, {
    ...REDIS_DEFAULTS,
    commandTimeout: undefined,
    autoResubscribe: true,
  });
  watchRedis(pub, 'The completion bus (publisher)', options.onWarning);
  watchRedis(sub, 'The completion bus (subscriber)', options.onWarning);
  const listeners = new Set<(e: CompletionEvent) => void>();
  try {
    await sub.subscribe(channel);
  } catch (error) {
    pub.disconnect();
    sub.disconnect();
    throw storeFailure('Redis', 'subscribe to completion events', error);
  }
  sub.on('message', (_ch: string, message: string) => {
    let event: CompletionEvent;
    try {
      event = JSON.parse(message) as CompletionEvent;
    } catch {
      return;
    }
    for (const l of listeners) {
      // One listener that throws must not keep the others from hearing, nor end the process.
      try {
        l(event);
      } catch {}
    }
  });
  return {
    async publish(event) {
      try {
        await pub.publish(channel, JSON.stringify({ id: event.id, status: event.status }));
      } catch (error) {
        throw storeFailure('Redis', 'publish a completion event', error);
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
 * Completion events over PostgreSQL LISTEN/NOTIFY, so replicas sharing one database need no
 * Redis. Publishing is one `pg_notify` on a small pool and fails fast with a StoreError during
 * an outage; the listener holds one connection, and when it is lost tells `onWarning` once and
 * connects and listens again every quarter second until it is back. Events missed meanwhile are
 * covered by the waiting requests' reads of the store.
 */
export async function postgresBus(
  options: { url?: string; channel?: string; onWarning?: OnWarning } = {},
): Promise<CompletionBus> {
  const channel = options.channel ?? 'elicit_complete';
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
  const listeners = new Set<(e: CompletionEvent) => void>();
  let closed = false;
  let listener: InstanceType<typeof Pg.Client> | undefined;
  let down = false;
  let retry: NodeJS.Timeout | undefined;
  const hear = (message: { channel: string; payload?: string }) => {
    if (message.channel !== channel || message.payload === undefined) return;
    let event: CompletionEvent;
    try {
      event = JSON.parse(message.payload) as CompletionEvent;
    } catch {
      return;
    }
    for (const l of listeners) {
      // One listener that throws must not keep the others from hearing, nor end the process.
      try {
        l(event);
      } catch {}
    }
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
          message: `The completion bus lost its PostgreSQL connection (${error instanceof Error ? error.message : String(error)}); listening again when it is back.`,
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
    throw storeFailure('PostgreSQL', 'listen for completion events', error);
  }
  return {
    async publish(event) {
      try {
        await pub.query('SELECT pg_notify($1, $2)', [
          channel,
          JSON.stringify({ id: event.id, status: event.status }),
        ]);
      } catch (error) {
        throw storeFailure('PostgreSQL', 'publish a completion event', error);
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
