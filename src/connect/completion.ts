/**
 * Completion events: a record finished in the browser. In one process a memory bus; across
 * replicas Redis pub/sub, so the replica holding the MCP session can notify its client even
 * when the browser callback landed on another replica.
 */
import type { Redis as RedisClient } from 'ioredis';

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

export async function redisBus(
  options: { url?: string; channel?: string } = {},
): Promise<CompletionBus> {
  const { Redis } = await import('ioredis');
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const channel = options.channel ?? 'elicit:complete';
  const pub: RedisClient = new Redis(url, { maxRetriesPerRequest: 2 });
  const sub: RedisClient = new Redis(url, { maxRetriesPerRequest: 2 });
  const listeners = new Set<(e: CompletionEvent) => void>();
  await sub.subscribe(channel);
  sub.on('message', (_ch: string, message: string) => {
    let event: CompletionEvent;
    try {
      event = JSON.parse(message) as CompletionEvent;
    } catch {
      return;
    }
    for (const l of listeners) l(event);
  });
  return {
    async publish(event) {
      await pub.publish(channel, JSON.stringify({ id: event.id, status: event.status }));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await Promise.all([pub.quit(), sub.quit()]);
    },
  };
}
