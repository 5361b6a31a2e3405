/**
 * The four drivers against the exported contract suite (elicit/store/testing), the one an outside
 * driver runs too; then what only the memory driver promises.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.ts';
import { memoryStore } from '../../src/store/memory.ts';
import { storeContract } from '../../src/store/testing.ts';
import { storeDrivers } from '../support/drivers.ts';

for (const [name, open] of storeDrivers('store'))
  storeContract(name, { open, durable: name !== 'memory' }, { describe, it });

describe('the contract suite', () => {
  it('fails a driver that breaks the contract, and names the case', async () => {
    // A take that leaves the record behind: no longer single-use.
    const broken = (s: Store): Store =>
      new Proxy(s, {
        get: (target, p) =>
          p === 'take'
            ? (k: string) => target.get(k)
            : ((v) => (typeof v === 'function' ? v.bind(target) : v))(Reflect.get(target, p)),
      });
    const cases: { name: string; run: () => Promise<void> }[] = [];
    storeContract(
      'broken',
      { open: () => broken(memoryStore()) },
      { describe: (_n, body) => body(), it: (name, run) => cases.push({ name, run }) },
    );
    const failed: string[] = [];
    for (const c of cases) await c.run().catch(() => failed.push(c.name));
    expect(cases.length).toBeGreaterThanOrEqual(12);
    expect(failed).toContain('take is single-use, even when raced');
    expect(failed.length).toBeLessThan(cases.length);
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
