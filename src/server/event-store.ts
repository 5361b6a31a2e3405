/**
 * A small, bounded EventStore for one legacy session (SEP-1699 resumability): the SDK stores
 * every SSE event it writes here, and a client that lost a stream reconnects with
 * `Last-Event-ID` to receive what it missed.
 *
 * Each stream is a ring capped by events and bytes, and a session keeps a capped number of
 * streams and bytes (the oldest streams go first), so whatever a client does, one session holds
 * at most `maxBytes` bytes of events. The answer to `initialize` is not kept (a client that
 * lost it initializes again), so an idle session holds no events. The store lives and dies with
 * its session: `clear()` runs when the session closes. Event ids are `<stream number>.<sequence>`, opaque to
 * clients and meaningful in this session only.
 */
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';
import { checkLimits } from './errors.ts';

export interface EventStoreLimits {
  /** Streams a session keeps events for (each POST and the GET stream is one); default 32. */
  readonly maxStreams: number;
  /** Events one stream keeps (the oldest are dropped first); default 64. */
  readonly maxEventsPerStream: number;
  /** Bytes of JSON one stream keeps; default 32 KiB. A larger single event is not kept. */
  readonly maxBytesPerStream: number;
  /** Bytes of JSON the whole session keeps (the oldest streams are forgotten); default 128 KiB. */
  readonly maxBytes: number;
}

export const DEFAULT_EVENT_STORE_LIMITS: EventStoreLimits = Object.freeze({
  maxStreams: 32,
  maxEventsPerStream: 64,
  maxBytesPerStream: 32_768,
  maxBytes: 131_072,
});

interface StoredEvent {
  readonly seq: number;
  /**
   * The message as JSON (measured for the bounds anyway): the text is a fraction of the
   * message's objects, which the store would otherwise keep alive. Undefined for a priming
   * event (an empty message that only marks a position).
   */
  readonly json: string | undefined;
  readonly bytes: number;
}

interface Stream {
  readonly id: StreamId;
  readonly number: number;
  next: number;
  bytes: number;
  readonly events: StoredEvent[];
}

/** The answer to `initialize`, by its shape (a result carrying the server's revision and info). */
const isInitializeResult = (message: JSONRPCMessage): boolean => {
  const result = (message as { result?: unknown }).result;
  return (
    typeof result === 'object' &&
    result !== null &&
    'protocolVersion' in result &&
    'serverInfo' in result &&
    'capabilities' in result
  );
};

const NO_STREAMS: Map<StreamId, Stream> = new Map();

// Limits objects this module made and checked: a store given one shares it (one per session
// would otherwise be copied and checked again).
const checked = new WeakSet<EventStoreLimits>();

export class BoundedEventStore implements EventStore {
  readonly limits: EventStoreLimits;
  // Insertion order is age: the first entry is the stream to drop when a new one needs room.
  // Found by number by walking it: at most `maxStreams` entries, and one Map less per session.
  // A session without events shares one empty table (never written): an idle one holds none.
  private streams: Map<StreamId, Stream> = NO_STREAMS;
  private numbers = 0;
  private total = 0;

  constructor(limits: Partial<EventStoreLimits> = {}) {
    if (checked.has(limits as EventStoreLimits)) this.limits = limits as EventStoreLimits;
    else {
      const full = Object.freeze({ ...DEFAULT_EVENT_STORE_LIMITS, ...limits });
      checkLimits('events', full);
      checked.add(full);
      this.limits = full;
    }
  }

  /** Bytes of events held now (for measurement and tests). */
  get bytes(): number {
    return this.total;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const stream = this.streams.get(streamId) ?? this.open(streamId);
    const seq = stream.next++;
    // The answer to initialize is not kept: initialize does nothing a client could lose but
    // the session itself, and a client that lost its answer initializes again. The session's
    // first stream (the initialize request's) is forgotten with it, priming event and all, so
    // an idle session keeps no events.
    if (stream.number === 1 && isInitializeResult(message)) {
      this.forget(stream);
      return `${stream.number}.${seq}`;
    }
    const json = 'jsonrpc' in message ? JSON.stringify(message) : undefined;
    const bytes = json?.length ?? 2;
    const { maxEventsPerStream, maxBytes } = this.limits;
    const perStream = Math.min(this.limits.maxBytesPerStream, maxBytes);
    if (bytes <= perStream) {
      stream.events.push({ seq, json, bytes });
      stream.bytes += bytes;
      this.total += bytes;
      while (stream.events.length > maxEventsPerStream || stream.bytes > perStream) {
        const dropped = stream.events.shift();
        if (dropped === undefined) break;
        stream.bytes -= dropped.bytes;
        this.total -= dropped.bytes;
      }
      // Past the session's bytes, older streams make room for the one being written.
      for (const old of this.streams.values()) {
        if (this.total <= maxBytes) break;
        if (old !== stream) this.forget(old);
      }
    }
    return `${stream.number}.${seq}`;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.find(eventId)?.stream.id;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const found = this.find(lastEventId);
    // The SDK asks getStreamIdForEventId first and answers 400 for an unknown id.
    if (found === undefined) throw new Error(`unknown event id ${JSON.stringify(lastEventId)}`);
    const { stream, seq } = found;
    // A copy: sending may store new events on this stream.
    for (const event of [...stream.events]) {
      // The priming event only marks a position; it is never replayed.
      if (event.seq <= seq || event.json === undefined) continue;
      await send(`${stream.number}.${event.seq}`, JSON.parse(event.json) as JSONRPCMessage);
    }
    return stream.id;
  }

  /** Forgets every event (the session closed). */
  clear(): void {
    this.streams = NO_STREAMS;
    this.total = 0;
  }

  private forget(stream: Stream): void {
    this.streams.delete(stream.id);
    this.total -= stream.bytes;
    if (this.streams.size === 0) this.streams = NO_STREAMS;
  }

  private open(streamId: StreamId): Stream {
    while (this.streams.size >= this.limits.maxStreams) {
      const oldest = this.streams.values().next().value;
      if (oldest === undefined) break;
      this.forget(oldest);
    }
    const stream: Stream = { id: streamId, number: ++this.numbers, next: 0, bytes: 0, events: [] };
    if (this.streams === NO_STREAMS) this.streams = new Map();
    this.streams.set(streamId, stream);
    return stream;
  }

  private find(eventId: EventId): { stream: Stream; seq: number } | undefined {
    const match = /^(\d{1,15})\.(\d{1,15})$/.exec(eventId);
    if (match === null) return undefined;
    const number = Number(match[1]);
    let stream: Stream | undefined;
    for (const s of this.streams.values())
      if (s.number === number) {
        stream = s;
        break;
      }
    if (stream === undefined) return undefined;
    const seq = Number(match[2]);
    return seq < stream.next ? { stream, seq } : undefined;
  }
}
