import { describe, expect, it } from 'vitest';
import { compiledCacheSize } from '../../src/schema/compile.ts';
import {
  applyDefaults,
  compileSchema,
  isDate,
  isDateTime,
  isEmail,
  isUri,
  SchemaError,
} from '../../src/schema/index.ts';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5 },
    email: { type: 'string', format: 'email' },
    code: { type: 'string', pattern: '^[A-Z]+$' },
    age: { type: 'integer', minimum: 0, maximum: 150, default: 30 },
    score: { type: 'number', minimum: 0.5 },
    ok: { type: 'boolean' },
    color: {
      type: 'string',
      oneOf: [
        { const: 'r', title: 'Red' },
        { const: 'g', title: 'Green' },
      ],
    },
    size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
    tags: {
      type: 'array',
      items: { type: 'string', enum: ['a', 'b', 'c'] },
      minItems: 1,
      maxItems: 2,
    },
  },
  required: ['name', 'ok'],
} as const;

const compiled = compileSchema(schema);
const issues = (content: unknown) => compiled.validate(content).map((i) => `${i.field}:${i.code}`);

describe('answer validation', () => {
  it('accepts a valid answer with no allocation of issues', () => {
    const a = compiled.validate({ name: 'Ann', ok: true });
    const b = compiled.validate({
      name: 'Bob',
      ok: false,
      tags: ['a'],
      color: 'g',
      size: 'm',
      score: 1,
    });
    expect(a).toEqual([]);
    expect(a).toBe(b);
  });
  it('reports required fields and types', () => {
    expect(issues({})).toEqual(['name:required', 'ok:required']);
    expect(issues({ name: 5, ok: 'yes' })).toEqual(['name:type', 'ok:type']);
    expect(issues([])).toEqual(['undefined:not_object']);
    expect(issues(null)).toEqual(['undefined:not_object']);
  });
  it('counts code points for string length', () => {
    expect(issues({ name: '😀😀', ok: true })).toEqual([]);
    expect(issues({ name: '😀', ok: true })).toEqual(['name:min_length']);
    expect(issues({ name: '😀😀😀😀😀😀', ok: true })).toEqual(['name:max_length']);
  });
  it('checks integers, bounds, formats and pattern', () => {
    expect(issues({ name: 'Ann', ok: true, age: 1.5 })).toEqual(['age:integer']);
    expect(issues({ name: 'Ann', ok: true, age: 151 })).toEqual(['age:maximum']);
    expect(issues({ name: 'Ann', ok: true, age: -1 })).toEqual(['age:minimum']);
    expect(issues({ name: 'Ann', ok: true, age: Number.NaN })).toEqual(['age:type']);
    expect(issues({ name: 'Ann', ok: true, score: 0.4 })).toEqual(['score:minimum']);
    expect(issues({ name: 'Ann', ok: true, email: 'a@b' })).toEqual(['email:format']);
    expect(issues({ name: 'Ann', ok: true, code: 'abc' })).toEqual(['code:pattern']);
  });
  it('checks every enum shape', () => {
    expect(issues({ name: 'Ann', ok: true, color: 'Red' })).toEqual(['color:option']);
    expect(issues({ name: 'Ann', ok: true, size: 'Small' })).toEqual(['size:option']);
    expect(issues({ name: 'Ann', ok: true, tags: [] })).toEqual(['tags:min_items']);
    expect(issues({ name: 'Ann', ok: true, tags: ['a', 'b', 'c'] })).toEqual(['tags:max_items']);
    expect(issues({ name: 'Ann', ok: true, tags: ['a', 'a'] })).toEqual(['tags:duplicate_item']);
    expect(issues({ name: 'Ann', ok: true, tags: ['z'] })).toEqual(['tags:option']);
    expect(issues({ name: 'Ann', ok: true, tags: 'a' })).toEqual(['tags:type']);
  });
  it('reports unknown keys, including prototype names, without pollution', () => {
    const hostile = JSON.parse(
      '{"name":"Ann","ok":true,"__proto__":{"polluted":1},"constructor":"x"}',
    );
    expect(issues(hostile)).toEqual(['__proto__:unknown_key', 'constructor:unknown_key']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('gives messages fit for a form', () => {
    const list = compiled.validate({ name: 'A', ok: true, color: 'x', email: 'no' });
    expect(list.map((i) => i.message)).toEqual([
      'Enter at least 2 characters.',
      'Enter an email address such as name@example.com.',
      'Choose one of: Red, Green.',
    ]);
  });
  it('parse applies defaults without mutating the input', () => {
    const input = { name: 'Ann', ok: true };
    const parsed = compiled.parse(input);
    expect(parsed).toEqual({ ok: true, value: { name: 'Ann', ok: true, age: 30 } });
    expect(input).toEqual({ name: 'Ann', ok: true });
    expect(applyDefaults(compiled, { name: 'x' })).toEqual({ name: 'x', age: 30 });
  });
  it('treats __proto__ and constructor as plain field names', () => {
    const s = compileSchema({
      type: 'object',
      properties: { __proto__: { type: 'string', default: 'p' }, constructor: { type: 'string' } },
      required: ['constructor'],
    } as unknown as Record<string, unknown>);
    // Built with a literal, __proto__ above sets the prototype: use JSON to make it a real key.
    const raw = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","default":"p"},"constructor":{"type":"string"}},"required":["constructor"]}',
    );
    const c = compileSchema(raw);
    expect(c.fields.map((f) => f.name)).toEqual(['__proto__', 'constructor']);
    expect(c.validate({}).map((i) => `${i.field}:${i.code}`)).toEqual(['constructor:required']);
    const parsed = c.parse(JSON.parse('{"constructor":"c"}'));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(Object.hasOwn(parsed.value, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(parsed.value)).toBe(Object.prototype);
    }
    expect(s.fields.map((f) => f.name)).toEqual(['constructor']);
  });
});

describe('formats', () => {
  it('dates follow RFC 3339 full-date', () => {
    expect(isDate('2024-02-29')).toBe(true);
    expect(isDate('2023-02-29')).toBe(false);
    expect(isDate('1900-02-29')).toBe(false);
    expect(isDate('2000-02-29')).toBe(true);
    expect(isDate('2024-04-31')).toBe(false);
    expect(isDate('2024-4-01')).toBe(false);
    expect(isDate('2024-13-01')).toBe(false);
  });
  it('date-times follow RFC 3339', () => {
    expect(isDateTime('2025-01-31T09:30:00Z')).toBe(true);
    expect(isDateTime('2025-01-31t09:30:00.123+05:30')).toBe(true);
    expect(isDateTime('2025-01-31T09:30:00')).toBe(false);
    expect(isDateTime('2025-01-31 09:30:00Z')).toBe(false);
    expect(isDateTime('2025-01-31T24:00:00Z')).toBe(false);
    expect(isDateTime('2016-12-31T23:59:60Z')).toBe(true);
    expect(isDateTime('2016-12-31T18:59:60-05:00')).toBe(true);
    expect(isDateTime('2016-12-31T22:59:60Z')).toBe(false);
  });
  it('emails are RFC 5322 addr-specs with a dotted domain', () => {
    expect(isEmail('name@example.com')).toBe(true);
    expect(isEmail("o'brien+tag@mail.example.co.uk")).toBe(true);
    expect(isEmail('a@b')).toBe(false);
    expect(isEmail('.a@b.co')).toBe(false);
    expect(isEmail('a..b@b.co')).toBe(false);
    expect(isEmail('a@-b.co')).toBe(false);
    expect(isEmail(`${'a'.repeat(65)}@b.co`)).toBe(false);
  });
  it('uris are absolute RFC 3986 URIs', () => {
    expect(isUri('https://example.com/a?b=c#d')).toBe(true);
    expect(isUri('urn:isbn:0451450523')).toBe(true);
    expect(isUri('http://[::1]:8080/')).toBe(true);
    expect(isUri('mailto:a@b.co')).toBe(true);
    expect(isUri('/relative/path')).toBe(false);
    expect(isUri('http://exa mple.com')).toBe(false);
    expect(isUri('http://example.com/%zz')).toBe(false);
    expect(isUri('http://example.com:80a/')).toBe(false);
  });
});

describe('compile cache', () => {
  it('compiles once per content and reuses by identity', () => {
    const make = () => ({
      type: 'object',
      properties: { q: { type: 'string', title: 'cache-test' } },
    });
    const a = compileSchema(make());
    const b = compileSchema(make());
    expect(b).toBe(a);
    const same = make();
    expect(compileSchema(same)).toBe(compileSchema(same));
  });
  it('is bounded', () => {
    for (let i = 0; i < 600; i++) {
      compileSchema({ type: 'object', properties: { [`f${i}`]: { type: 'string' } } });
    }
    expect(compiledCacheSize()).toBeLessThanOrEqual(256);
  });
  it('keeps revisions apart and throws SchemaError with every issue', () => {
    const raw = { type: 'object', properties: { a: { type: 'string', default: 'x' } } };
    expect(compileSchema(raw, { revision: '2025-11-25' }).revision).toBe('2025-11-25');
    try {
      compileSchema(raw, { revision: '2025-06-18' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as SchemaError).code).toBe('ELICIT_SCHEMA_INVALID');
      expect((error as SchemaError).issues[0]?.code).toBe('keyword_revision');
      expect((error as SchemaError).message).toMatch(
        /^Invalid requested schema at properties\.a\.default: /,
      );
    }
  });
});
