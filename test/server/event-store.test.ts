/** The bounded event store behind SSE resumption: what it keeps, what it drops, what it replays. */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { BoundedEventStore, LimitOptionError } from '../../src/server/index.ts';

const note = (n: number, pad = ''): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: `${n}${pad}` },
});

async function replay(store: BoundedEventStore, after: string) {
  const got: { id: string; message: JSONRPCMessage }[] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, message) => void got.push({ id, message }),
  });
  return { stream, got };
}

describe('BoundedEventStore', () => {
  it('replays the events of the same stream after the given id, without the priming event', async () => {
    const store = new BoundedEventStore();
    const priming = await store.storeEvent('a', {} as JSONRPCMessage);
    await store.storeEvent('b', note(99));
    const first = await store.storeEvent('a', note(1));
    await store.storeEvent('a', note(2));
    expect(await store.getStreamIdForEventId(priming)).toBe('a');
    const all = await replay(store, priming);
    expect(all.stream).toBe('a');
    expect(all.got.map((e) => e.message)).toEqual([note(1), note(2)]);
    const rest = await replay(store, first);
    expect(rest.got.map((e) => e.message)).toEqual([note(2)]);
    expect(rest.got[0]?.id).not.toBe(first);
  });

  it('knows no id it did not issue, nor a malformed one', async () => {
    const store = new BoundedEventStore();
    const id = await store.storeEvent('a', note(1));
    for (const bad of ['', 'x', '1', '1.99', '9.0', `${id}.0`, '1.0 ', '01.0x', '1'.repeat(40)])
      expect(await store.getStreamIdForEventId(bad)).toBeUndefined();
    await expect(replay(store, 'nope')).rejects.toThrow(/unknown event id/);
  });

  it('keeps at most maxEventsPerStream events per stream, dropping the oldest', async () => {
    const store = new BoundedEventStore({ maxEventsPerStream: 3 });
    const priming = await store.storeEvent('a', {} as JSONRPCMessage);
    for (let i = 1; i <= 10; i++) await store.storeEvent('a', note(i));
    const { got } = await replay(store, priming);
    expect(got.map((e) => e.message)).toEqual([note(8), note(9), note(10)]);
  });

  it('keeps at most maxBytesPerStream bytes per stream, and no single larger event', async () => {
    const size = JSON.stringify(note(1, 'x'.repeat(100))).length;
    const store = new BoundedEventStore({ maxBytesPerStream: size * 2 });
    const priming = await store.storeEvent('a', {} as JSONRPCMessage);
    for (let i = 1; i <= 5; i++) await store.storeEvent('a', note(i, 'x'.repeat(100)));
    expect(store.bytes).toBeLessThanOrEqual(size * 2);
    const huge = await store.storeEvent('a', note(6, 'x'.repeat(10_000)));
    expect(typeof huge).toBe('string');
    expect(store.bytes).toBeLessThanOrEqual(size * 2);
    const { got } = await replay(store, priming);
    expect(got.map((e) => e.message)).toEqual([note(4, 'x'.repeat(100)), note(5, 'x'.repeat(100))]);
  });

  it('keeps at most maxStreams streams, forgetting the oldest whole', async () => {
    const store = new BoundedEventStore({ maxStreams: 2 });
    const a = await store.storeEvent('a', note(1));
    const b = await store.storeEvent('b', note(2));
    await store.storeEvent('c', note(3));
    expect(store.streamCount).toBe(2);
    expect(await store.getStreamIdForEventId(a)).toBeUndefined();
    expect(await store.getStreamIdForEventId(b)).toBe('b');
  });

  it('holds at most maxBytes whatever a client makes the server send', async () => {
    const store = new BoundedEventStore();
    for (let s = 0; s < 200; s++)
      for (let i = 0; i < 100; i++) {
        await store.storeEvent(`s${s}`, note(i, 'y'.repeat(500)));
        expect(store.bytes).toBeLessThanOrEqual(store.limits.maxBytes);
      }
    expect(store.bytes).toBeGreaterThan(store.limits.maxBytes / 2);
    expect(store.streamCount).toBeLessThanOrEqual(store.limits.maxStreams);
  });

  it('past the session bytes forgets the oldest streams, never the one being written', async () => {
    const size = JSON.stringify(note(1, 'z'.repeat(100))).length;
    const store = new BoundedEventStore({ maxBytes: size * 3 });
    const a = await store.storeEvent('a', note(1, 'z'.repeat(100)));
    const b = await store.storeEvent('b', note(2, 'z'.repeat(100)));
    const c = await store.storeEvent('c', note(3, 'z'.repeat(100)));
    const c2 = await store.storeEvent('c', note(4, 'z'.repeat(100)));
    expect(await store.getStreamIdForEventId(a)).toBeUndefined();
    expect(await store.getStreamIdForEventId(b)).toBe('b');
    expect(await store.storeEvent('c', note(5, 'z'.repeat(100)))).toMatch(/\.2$/);
    expect(await store.getStreamIdForEventId(b)).toBeUndefined();
    const { got } = await replay(store, c);
    expect(got.map((e) => e.message)).toEqual([note(4, 'z'.repeat(100)), note(5, 'z'.repeat(100))]);
    expect(await store.getStreamIdForEventId(c2)).toBe('c');
    expect(store.bytes).toBe(size * 3);
  });

  it('forgets everything when its session closes', async () => {
    const store = new BoundedEventStore();
    const id = await store.storeEvent('a', note(1));
    store.clear();
    expect(store.bytes).toBe(0);
    expect(await store.getStreamIdForEventId(id)).toBeUndefined();
  });

  it("keeps nothing of the session's initialize stream once its answer is written, and the rest as before", async () => {
    const store = new BoundedEventStore();
    const priming = await store.storeEvent('init', {} as JSONRPCMessage);
    const answer = await store.storeEvent('init', {
      jsonrpc: '2.0',
      id: 0,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        serverInfo: { name: 's', version: '1' },
      },
    } as JSONRPCMessage);
    expect(answer).not.toBe(priming);
    // A client that lost the answer initializes again: there is nothing to resume.
    expect(await store.getStreamIdForEventId(priming)).toBeUndefined();
    expect(store.bytes).toBe(0);
    expect(store.streamCount).toBe(0);
    const call = await store.storeEvent('call', {} as JSONRPCMessage);
    await store.storeEvent('call', note(1));
    expect((await replay(store, call)).got.map((e) => e.message)).toEqual([note(1)]);
    // Only the first stream is the initialize request's: a later one shaped alike is kept.
    const later = await store.storeEvent('later', {} as JSONRPCMessage);
    await store.storeEvent('later', {
      jsonrpc: '2.0',
      id: 5,
      result: { protocolVersion: 'x', capabilities: {}, serverInfo: {} },
    } as JSONRPCMessage);
    expect((await replay(store, later)).got).toHaveLength(1);
  });

  it('refuses limits that are not positive whole numbers', () => {
    for (const bad of [0, -1, 2.5, Number.POSITIVE_INFINITY])
      expect(() => new BoundedEventStore({ maxEventsPerStream: bad })).toThrow(LimitOptionError);
    expect(() => new BoundedEventStore({ maxStreams: 0 })).toThrow(/events\.maxStreams/);
  });
});
