import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getOwn, hasOwnValue, setOwn } from '../../src/kernel/own.ts';
import { pooledRandom, randomBytes } from '../../src/kernel/random.ts';
import { TokenBuckets } from '../../src/kernel/rate-limit.ts';
import {
  compareRevisions,
  eraOf,
  hasUrlCompletions,
  isAtLeast,
  isRevision,
  LATEST_REVISION,
  MODERN_REVISION,
  REVISIONS,
  schemaRevisionOf,
} from '../../src/kernel/revision.ts';
import { REVISIONS as SCHEMA_REVISIONS } from '../../src/schema/index.ts';

describe('revision helpers', () => {
  it('orders revisions and names their era', () => {
    expect(REVISIONS).toBe(SCHEMA_REVISIONS);
    expect(compareRevisions('2025-06-18', '2025-11-25')).toBeLessThan(0);
    expect(compareRevisions('2026-07-28', '2026-07-28')).toBe(0);
    expect(isAtLeast('2025-11-25', '2025-11-25')).toBe(true);
    expect(eraOf('2025-06-18')).toBe('legacy');
    expect(eraOf('2025-11-25')).toBe('legacy');
    expect(eraOf(MODERN_REVISION)).toBe('modern');
    expect(eraOf('2027-01-01')).toBe('modern');
    expect(isRevision('2024-11-05')).toBe(false);
  });
  it('maps an unknown revision to the schema rules that apply', () => {
    expect(schemaRevisionOf('2025-11-25')).toBe('2025-11-25');
    expect(schemaRevisionOf('2025-03-26')).toBe('2025-06-18');
    expect(schemaRevisionOf('2025-12-01')).toBe(LATEST_REVISION);
  });
  it('tells where URL elicitations are completed by id', () => {
    expect(REVISIONS.map(hasUrlCompletions)).toEqual([false, true, false]);
  });
  it('are the only place that compares revision strings (no inline comparison in src/)', () => {
    const inline =
      /(?:===|!==|<=?|>=?)\s*'\d{4}-\d{2}-\d{2}'|'\d{4}-\d{2}-\d{2}'\s*(?:===|!==|<=?|>=?)/;
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
        d.isDirectory()
          ? walk(join(dir, d.name))
          : d.name.endsWith('.ts')
            ? [join(dir, d.name)]
            : [],
      );
    const found = walk('src')
      .filter((f) => !f.endsWith(join('kernel', 'revision.ts')))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .flatMap((line, i) => (inline.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(found).toEqual([]);
    expect(inline.test("if (revision === '2025-06-18') return;")).toBe(true);
  });
});

describe('own-property helpers', () => {
  it('writes and reads __proto__ as a plain property', () => {
    const o: Record<string, unknown> = {};
    setOwn(o, '__proto__', 1);
    setOwn(o, 'x', undefined);
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.keys(o)).toEqual(['__proto__', 'x']);
    expect(getOwn(o, '__proto__')).toBe(1);
    expect(getOwn(o, 'toString')).toBeUndefined();
    expect(hasOwnValue(o, 'x')).toBe(false);
    expect(hasOwnValue(o, '__proto__')).toBe(true);
  });
});

describe('pooled CSPRNG', () => {
  it('hands out distinct, non-overlapping draws, also across a refill', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 600; i++) seen.add(Buffer.from(pooledRandom(16)).toString('hex'));
    expect(seen.size).toBe(600);
    const first = pooledRandom(12);
    const copy = Buffer.from(first);
    for (let i = 0; i < 400; i++) pooledRandom(16);
    expect(Buffer.from(first).equals(copy)).toBe(true);
    expect(randomBytes(32)).toHaveLength(32);
    expect(() => pooledRandom(0)).toThrow(RangeError);
    expect(() => pooledRandom(5000)).toThrow(RangeError);
  });
});

describe('token buckets', () => {
  it('refill over time and, when bounded, forget the least recently seen key', () => {
    let t = 0;
    const buckets = new TokenBuckets({ capacity: 2, perMinute: 60 }, () => t, 2);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([true, true, false]);
    t = 1000;
    expect(buckets.take('a')).toBe(true);
    buckets.take('b');
    buckets.take('c'); // evicts a
    expect([buckets.take('a'), buckets.take('a')]).toEqual([true, true]);
  });
});
