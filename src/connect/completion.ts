/**
 * Completion events: a record finished in the browser. They travel on the message buses every
 * part shares (kernel/bus.ts, exported by elicit/store): in one process a memory bus; across
 * replicas Redis pub/sub or PostgreSQL LISTEN/NOTIFY, so the replica holding the MCP session can
 * notify its client even when the browser callback landed on another replica. On the wire an
 * event is `{"id":…,"status":…}`, as it always was, so replicas of different versions agree.
 */
import * as buses from '../kernel/bus.ts';
import type { OnWarning } from '../kernel/redis.ts';

export interface CompletionEvent {
  readonly id: string;
  readonly status: 'complete' | 'declined';
}

/** Completion events between the replicas that share one store. */
export type CompletionBus = buses.MessageBus<CompletionEvent>;

/** Only `{ id, status }` with a known status is an event; anything else on the channel is dropped. */
function read(value: unknown): CompletionEvent | undefined {
  const v = value as { id?: unknown; status?: unknown } | null;
  if (typeof v !== 'object' || v === null || typeof v.id !== 'string') return undefined;
  return v.status === 'complete' || v.status === 'declined'
    ? { id: v.id, status: v.status }
    : undefined;
}

const write = (e: CompletionEvent) => ({ id: e.id, status: e.status });

export function memoryBus(): CompletionBus {
  return buses.memoryBus(read);
}

/**
 * Completion events over Redis pub/sub (channel `elicit:complete` by default). Through an
 * outage: each client's lost connection is told once to `onWarning` (default console.warn),
 * publishing fails fast with a StoreError (ELICIT_STORE_UNAVAILABLE, the ioredis error as
 * `cause`), the subscriber subscribes again as soon as it reconnects, and events missed meanwhile
 * are covered by the waiting requests' reads of the store.
 */
export function redisBus(
  options: { url?: string; channel?: string; onWarning?: OnWarning } = {},
): Promise<CompletionBus> {
  return buses.redisBus({
    ...options,
    channel: options.channel ?? 'elicit:complete',
    read,
    write,
    name: 'The completion bus',
  });
}

/**
 * Completion events over PostgreSQL LISTEN/NOTIFY (channel `elicit_complete` by default), so
 * replicas sharing one database need no Redis. Publishing fails fast with a StoreError during an
 * outage; the listener connects and listens again every quarter second until the database is
 * back, and events missed meanwhile are covered by the waiting requests' reads of the store.
 */
export function postgresBus(
  options: { url?: string; channel?: string; onWarning?: OnWarning } = {},
): Promise<CompletionBus> {
  return buses.postgresBus({
    ...options,
    channel: options.channel ?? 'elicit_complete',
    read,
    write,
    name: 'The completion bus',
  });
}
