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
  it('caps the live records of a tag atomically, counted not listed', async () => {
    await fresh();
    const tag = key('cap');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.createCapped(key(`c${i}`), { i }, { ttlMs: 60_000 }, { tag, max: 5 }),
      ),
    );
    expect(results.filter((r) => r === 'created')).toHaveLength(5);
    expect(results.filter((r) => r === 'full')).toHaveLength(15);
    expect(await s.countByTag(tag)).toBe(5);
    const keys = await s.findByTag(tag);
    expect(keys).toHaveLength(5);
    // Another tag of the record is counted too; an existing key is 'exists', not 'full'.
    expect(await s.createCapped(keys[0] as string, 1, { ttlMs: 60_000 }, { tag, max: 99 })).toBe(
      'exists',
    );
    await s.delete(keys[0] as string);
    expect(await s.countByTag(tag)).toBe(4);
    expect(await s.take(keys[1] as string)).toBeDefined();
    expect(await s.countByTag(tag)).toBe(3);
    const other = key('other');
    expect(
      await s.createCapped(key('d'), 1, { ttlMs: 60_000, tags: [other] }, { tag, max: 5 }),
    ).toBe('created');
    expect(await s.countByTag(tag)).toBe(4);
    expect(await s.countByTag(other)).toBe(1);
    expect(await s.countByTag(key('none'))).toBe(0);
  });
  it('a capped tag frees its places as records expire, and as their TTL is shortened', async () => {
    await fresh();
    const tag = key('cap-ttl');
    const short = key('s');
    expect(await s.createCapped(short, 1, { ttlMs: 150 }, { tag, max: 2 })).toBe('created');
    const long = key('l');
    expect(await s.createCapped(long, 1, { ttlMs: 60_000 }, { tag, max: 2 })).toBe('created');
    expect(await s.createCapped(key('x'), 1, { ttlMs: 60_000 }, { tag, max: 2 })).toBe('full');
    expect(await s.update(long, 1, 2, { ttlMs: 150 })).toBe(true);
    expect((await s.get(long))?.value).toBe(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(await s.countByTag(tag)).toBe(0);
    expect(await s.findByTag(tag)).toEqual([]);
    expect(await s.createCapped(key('y'), 1, { ttlMs: 60_000 }, { tag, max: 2 })).toBe('created');
    expect(await s.countByTag(tag)).toBe(1);
  });
  it('pages a tag in key order', async () => {
    await fresh();
    const tag = key('page');
    const base = key('p');
    const keys = Array.from({ length: 7 }, (_, i) => `${base}-${i}`);
    for (const k of [...keys].reverse()) await s.create(k, 1, { ttlMs: 60_000, tags: [tag] });
    const first = await s.findByTag(tag, { limit: 3 });
    expect(first).toEqual(keys.slice(0, 3));
    expect(await s.findByTag(tag, { after: first.at(-1) as string, limit: 3 })).toEqual(
      keys.slice(3, 6),
    );
    expect(await s.findByTag(tag, { after: keys[5] as string, limit: 3 })).toEqual([keys[6]]);
    await s.delete(keys[4] as string);
    expect(await s.findByTag(tag, { after: keys[2] as string, limit: 2 })).toEqual([
      keys[3],
      keys[5],
    ]);
    await expect(s.findByTag(tag, { limit: 0 })).rejects.toThrow(/page limit/);
  });
  it('a tagged record updated without a TTL keeps its tags and expiry', async () => {
    await fresh();
    const tag = key('keep');
    const k = key('k');
    await s.create(k, { a: 1 }, { ttlMs: 60_000, tags: [tag] });
    const before = await s.get(k);
    expect(await s.update(k, 1, { a: [] })).toBe(true);
    const after = await s.get(k);
    expect(after?.value).toEqual({ a: [] });
    expect(after?.expiresAt).toBe(before?.expiresAt);
    expect(await s.findByTag(tag)).toEqual([k]);
    expect(await s.countByTag(tag)).toBe(1);
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
