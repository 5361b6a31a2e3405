/**
 * Completion events: a record finished in the browser. In one process a memory bus; across
 * replicas Redis pub/sub, so the replica holding the MCP session can notify its client even
 * when the browser callback landed on another replica.
 */
import type { Redis as RedisClient } from 'ioredis';
import { type OnWarning, REDIS_DEFAULTS, watchRedis } from '../kernel/redis.ts';
import { storeFailure } from '../kernel/store.ts';

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
