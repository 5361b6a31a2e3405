import { describe, expect, it } from 'vitest';
import {
  checkSchema,
  compileSchema,
  convertSchema,
  fromJsonSchema,
} from '../../src/schema/index.ts';

const obj = (properties: unknown) => ({ type: 'object', properties });

function deep(levels: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = { n: v };
  return v;
}

describe('hostile schemas get a clear error and never crash', () => {
  it('nested objects and arrays of objects', () => {
    const r = checkSchema(
      obj({
        a: { type: 'object', properties: { b: { type: 'object' } } },
        c: { type: 'array', items: { type: 'object', properties: {} } },
      }),
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.code)).toEqual(['nested', 'nested']);
  });
  it('100k enum options', () => {
    const r = checkSchema(
      obj({ a: { type: 'string', enum: Array.from({ length: 100_000 }, (_, i) => `o${i}`) } }),
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.code).toBe('too_large');
    const loose = checkSchema(
      obj({ a: { type: 'string', enum: Array.from({ length: 100_000 }, (_, i) => `${i}`) } }),
      {
        limits: { maxSize: 10_000_000 },
      },
    );
    expect(!loose.ok && loose.errors[0]?.code).toBe('too_many_options');
  });
  it('10k properties', () => {
    const props = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, i) => [`p${i}`, { type: 'string' }]),
    );
    const r = checkSchema(obj(props), { limits: { maxSize: 10_000_000 } });
    expect(!r.ok && r.errors[0]?.code).toBe('too_many_properties');
    expect(!checkSchema(obj(props)).ok).toBe(true);
  });
  it('1 MB strings', () => {
    const big = 'x'.repeat(1_000_000);
    for (const schema of [
      obj({ a: { type: 'string', title: big } }),
      obj({ [big]: { type: 'string' } }),
      obj({ a: { type: 'string', enum: [big] } }),
    ]) {
      const r = checkSchema(schema);
      expect(!r.ok && r.errors[0]?.code).toBe('too_large');
    }
  });
  it('deeply nested JSON (100k levels) without recursion', () => {
    const r = checkSchema(obj({ a: { type: 'string', 'x-deep': deep(100_000) } }));
    expect(!r.ok && r.errors[0]?.code).toBe('too_deep');
    expect(() => fromJsonSchema(obj({ a: deep(100_000) }))).toThrow(
      /expected a schema object|cannot be expressed/,
    );
  });
  it('a pattern that is not a valid regex, and an oversized one', () => {
    expect(!checkSchema(obj({ a: { type: 'string', pattern: '[' } })).ok).toBe(true);
    const r = checkSchema(obj({ a: { type: 'string', pattern: 'a'.repeat(2000) } }));
    expect(!r.ok && r.errors[0]?.code).toBe('too_long');
  });
  it('__proto__ and constructor keys in schema and answer never touch prototypes', () => {
    const raw = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"array","items":{"type":"string","enum":["polluted"]},"default":["polluted"]},"constructor":{"type":"string","default":"c"},"toString":{"type":"boolean"}},"required":["__proto__"]}',
    );
    const compiled = compileSchema(raw);
    const parsed = compiled.parse(JSON.parse('{"__proto__":["polluted"],"toString":true}'));
    expect(parsed.ok).toBe(true);
    const lowered = convertSchema(raw, { to: '2025-06-18' });
    const mapped = lowered.mapAnswer(JSON.parse('{"__proto__.polluted":true,"constructor":"x"}'));
    expect(Object.hasOwn(mapped, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(mapped)).toBe(Object.prototype);
    const probe: Record<string, unknown> = {};
    expect(probe.polluted).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    // A missing field named like an Object.prototype member is missing, not inherited.
    expect(compiled.validate({}).map((i) => `${i.field}:${i.code}`)).toEqual([
      '__proto__:required',
    ]);
  });
  it('answers that are huge or odd', () => {
    const c = compileSchema(
      obj({
        t: { type: 'string' },
        m: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
      }),
    );
    expect(c.validate({ t: 'x'.repeat(1_000_000) })[0]?.code).toBe('too_large');
    expect(c.validate({ m: Array.from({ length: 100_000 }, () => 'a') })[0]?.code).toBe(
      'duplicate_item',
    );
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 1]));
    const issues = c.validate(many);
    expect(issues.length).toBeLessThan(30);
    expect(issues[0]?.code).toBe('unknown_key');
    expect(c.validate({ t: deep(100_000) })[0]?.code).toBe('type');
    expect(c.validate('x')[0]?.code).toBe('not_object');
  });
});
