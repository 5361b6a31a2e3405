import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.ts';
import { memoryStore } from '../../src/store/memory.ts';
import { onceStoreFrom } from '../../src/store/once.ts';
import { storeDrivers } from '../support/drivers.ts';

const drivers = storeDrivers('store');

describe.each(drivers)('store contract: %s', (_name, make) => {
  let s: Store;
  const fresh = async () => {
    s = await make();
    return s;
  };
  const key = (k: string) => `${k}-${Math.random().toString(36).slice(2)}`;

  it('creates only if absent, gets, and keeps JSON exactly', async () => {
    await fresh();
    const k = key('a');
    const value = { n: 1, s: 'ü', list: [1, null, true], nested: { x: 'y' } };
    expect(await s.create(k, value, { ttlMs: 60_000 })).toBe(true);
    expect(await s.create(k, { other: true }, { ttlMs: 60_000 })).toBe(false);
    const got = await s.get(k);
    expect(got?.value).toEqual(value);
    expect(got?.version).toBe(1);
    expect(got?.expiresAt).toBeGreaterThan(Date.now());
    expect(await s.get(key('missing'))).toBeUndefined();
  });
  it('compare-and-set by version', async () => {
    await fresh();
    const k = key('cas');
    await s.create(k, { status: 'pending' }, { ttlMs: 60_000 });
    expect(await s.update(k, 1, { status: 'complete' })).toBe(true);
    expect(await s.update(k, 1, { status: 'declined' })).toBe(false);
    expect((await s.get(k))?.value).toEqual({ status: 'complete' });
    expect((await s.get(k))?.version).toBe(2);
    expect(await s.update(key('none'), 1, {})).toBe(false);
  });
  it('take is single-use, even when raced', async () => {
    await fresh();
    const k = key('nonce');
    await s.create(k, 'x', { ttlMs: 60_000 });
    const results = await Promise.all(Array.from({ length: 20 }, () => s.take(k)));
    expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    expect(await s.get(k)).toBeUndefined();
  });
  it('concurrent creates of one key: exactly one wins', async () => {
    await fresh();
    const k = key('race');
    const wins = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.create(k, i, { ttlMs: 60_000 })),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
  });
  it('expires records', async () => {
    await fresh();
    const k = key('ttl');
    await s.create(k, 1, { ttlMs: 150 });
    expect(await s.get(k)).toBeDefined();
    await new Promise((r) => setTimeout(r, 300));
    expect(await s.get(k)).toBeUndefined();
    expect(await s.create(k, 2, { ttlMs: 60_000 })).toBe(true);
  });
  it('finds live records by tag', async () => {
    await fresh();
    const alice = key('principal:alice');
    const [a, b, c] = [key('r'), key('r'), key('r')];
    await s.create(a, 1, { ttlMs: 60_000, tags: [alice] });
    await s.create(b, 2, { ttlMs: 60_000, tags: [alice] });
    await s.create(c, 3, { ttlMs: 60_000, tags: [key('principal:bob')] });
    expect((await s.findByTag(alice)).sort()).toEqual([a, b].sort());
    await s.delete(a);
    expect(await s.findByTag(alice)).toEqual([b]);
  });
  it('refuses bad keys and TTLs clearly', async () => {
    await fresh();
    await expect(s.create('', 1, { ttlMs: 1000 })).rejects.toThrow(
      /store key must be 1-512 printable characters/,
    );
    await expect(s.create('k\n', 1, { ttlMs: 1000 })).rejects.toThrow(/printable/);
    await expect(s.create(key('t'), 1, { ttlMs: 0 })).rejects.toThrow(
      /ttlMs must be a positive whole number/,
    );
  });
  it('backs ask.once: a marker is consumed once', async () => {
    await fresh();
    const once = onceStoreFrom(s);
    const k = key('flow');
    expect(await once.consume(k, 60_000)).toBe(true);
    expect(await once.consume(k, 60_000)).toBe(false);
  });
});

describe.each(drivers.filter(([name]) => name !== 'memory'))('durable store: %s', (_name, make) => {
  it('pending records survive a restart', async () => {
    const first = await make();
    const k = `pending-${Math.random().toString(36).slice(2)}`;
    await first.create(k, { status: 'pending' }, { ttlMs: 60_000 });
    await first.close();
    const second = await make();
    expect((await second.get(k))?.value).toEqual({ status: 'pending' });
  });
});

describe('memory store values', () => {
  it('are frozen all the way down, on create and on update: what get returns cannot change', async () => {
    const s = memoryStore();
    const value = { a: { b: [{ c: 1 }, 'x'] }, d: 'e' };
    await s.create('k', value, { ttlMs: 60_000 });
    const got = (await s.get('k'))?.value as typeof value;
    expect(Object.isFrozen(got)).toBe(true);
    expect(Object.isFrozen(got.a)).toBe(true);
    expect(Object.isFrozen(got.a.b)).toBe(true);
    expect(Object.isFrozen(got.a.b[0])).toBe(true);
    expect(() => {
      (got.a.b[0] as { c: number }).c = 2;
    }).toThrow(TypeError);
    const next = { list: [{ deep: { er: true } }] };
    expect(await s.update('k', 1, next)).toBe(true);
    expect(Object.isFrozen(next.list[0]?.deep)).toBe(true);
  });
});
