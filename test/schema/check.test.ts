import { describe, expect, it } from 'vitest';
import {
  checkSchema,
  DEFAULT_LIMITS,
  type Revision,
  type SchemaIssue,
} from '../../src/schema/index.ts';

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

function errors(schema: unknown, revision: Revision = '2025-11-25'): SchemaIssue[] {
  const result = checkSchema(schema, { revision });
  return result.ok ? [] : [...result.errors];
}

function only(schema: unknown, revision?: Revision): SchemaIssue {
  const list = errors(schema, revision);
  expect(list).toHaveLength(1);
  return list[0] as SchemaIssue;
}

describe('checkSchema: accepted shapes', () => {
  it('accepts every field type and enum shape of 2025-11-25', () => {
    const result = checkSchema(
      obj(
        {
          name: { type: 'string', title: 'Name', minLength: 1, maxLength: 50, default: 'Ann' },
          email: { type: 'string', format: 'email' },
          age: { type: 'integer', minimum: 0, maximum: 150, default: 30 },
          score: { type: 'number', minimum: 0.5, default: 95.5 },
          ok: { type: 'boolean', default: true },
          plain: { type: 'string', enum: ['a', 'b'], default: 'a' },
          titled: { type: 'string', oneOf: [{ const: 'w', title: 'Window' }] },
          legacy: { type: 'string', enum: ['x', 'y'], enumNames: ['Ex', 'Why'] },
          multi: {
            type: 'array',
            items: { type: 'string', enum: ['p', 'q'] },
            minItems: 1,
            maxItems: 2,
            default: ['p'],
          },
          titledMulti: { type: 'array', items: { anyOf: [{ const: 'r', title: 'Red' }] } },
        },
        { required: ['name', 'multi'], $schema: 'https://json-schema.org/draft/2020-12/schema' },
      ),
      { revision: '2025-11-25' },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.schema.fields.map((f) => `${f.name}:${f.kind}`)).toEqual([
      'name:text',
      'email:text',
      'age:number',
      'score:number',
      'ok:boolean',
      'plain:select',
      'titled:select',
      'legacy:select',
      'multi:multiselect',
      'titledMulti:multiselect',
    ]);
    const legacy = result.schema.fields[7];
    expect(legacy?.kind === 'select' && legacy.style).toBe('enumNames');
    expect(legacy?.kind === 'select' && legacy.options).toEqual([
      { value: 'x', label: 'Ex' },
      { value: 'y', label: 'Why' },
    ]);
    expect(result.schema.fields[0]?.required).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it('keeps the schema as sent, pattern included, and warns about unknown keywords', () => {
    const raw = obj({ code: { type: 'string', pattern: '^[A-Z]{3}$', 'x-hint': 'three letters' } });
    const result = checkSchema(raw);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.schema.requestedSchema).toBe(raw);
    expect(result.schema.fields[0]).toMatchObject({ kind: 'text', pattern: '^[A-Z]{3}$' });
    expect(result.warnings).toEqual([
      {
        code: 'keyword_unknown',
        path: ['properties', 'code', 'x-hint'],
        message: 'properties.code["x-hint"] is not part of the restricted schema and is ignored.',
      },
    ]);
  });

  it('accepts an empty form', () => {
    expect(checkSchema(obj({})).ok).toBe(true);
  });
});

describe('checkSchema: structure', () => {
  it('refuses a non-object root', () => {
    expect(only([])).toEqual({
      code: 'not_object',
      path: [],
      message: 'The requested schema must be a JSON object, got an array.',
    });
    expect(only(null).code).toBe('not_object');
  });
  it('refuses a root type other than object', () => {
    expect(only({ type: 'array', properties: {} })).toEqual({
      code: 'root_type',
      path: ['type'],
      message: 'type must be "object", got "array".',
    });
  });
  it('refuses missing properties', () => {
    expect(only({ type: 'object' })).toMatchObject({ code: 'properties', path: ['properties'] });
  });
  it('refuses nested objects with the path named', () => {
    expect(
      only(obj({ address: { type: 'object', properties: { city: { type: 'string' } } } })),
    ).toEqual({
      code: 'nested',
      path: ['properties', 'address'],
      message:
        'properties.address is an object; elicitation forms are flat. Split it into top-level properties.',
    });
  });
  it('refuses arrays of objects and arrays of free values', () => {
    expect(only(obj({ people: { type: 'array', items: { type: 'object' } } }))).toMatchObject({
      code: 'nested',
      path: ['properties', 'people', 'items'],
    });
    expect(only(obj({ tags: { type: 'array', items: { type: 'string' } } }))).toMatchObject({
      code: 'property_type',
      path: ['properties', 'tags', 'items'],
    });
  });
  it('refuses unknown or missing types', () => {
    expect(only(obj({ n: { type: 'null' } }))).toEqual({
      code: 'property_type',
      path: ['properties', 'n', 'type'],
      message:
        'properties.n.type is "null"; use "string", "number", "integer", "boolean" or "array".',
    });
    expect(only(obj({ n: { title: 'x' } })).message).toBe(
      'properties.n.type is missing; use "string", "number", "integer", "boolean" or "array".',
    );
    expect(only(obj({ n: 'string' })).code).toBe('property_not_object');
  });
  it('checks required', () => {
    expect(only(obj({ a: { type: 'string' } }, { required: ['b'] }))).toEqual({
      code: 'required_unknown',
      path: ['required', 0],
      message:
        'required[0] names "b", which is not in properties. Add the property or remove the name.',
    });
    expect(only(obj({ a: { type: 'string' } }, { required: ['a', 'a'] })).code).toBe(
      'required_duplicate',
    );
    expect(only(obj({ a: { type: 'string' } }, { required: 'a' })).code).toBe('required');
    expect(only(obj({ a: { type: 'string' } }, { required: [1] })).code).toBe('required');
  });
  it('refuses an empty property name', () => {
    expect(only(obj({ '': { type: 'string' } })).code).toBe('property_name');
  });
});

describe('checkSchema: keywords', () => {
  it('checks keyword types', () => {
    expect(only(obj({ a: { type: 'string', minLength: '3' } }))).toEqual({
      code: 'keyword_type',
      path: ['properties', 'a', 'minLength'],
      message: 'properties.a.minLength must be a number, got a string.',
    });
    expect(only(obj({ a: { type: 'string', title: 5 } })).message).toBe(
      'properties.a.title must be a string, got a number.',
    );
    expect(only(obj({ a: { type: 'number', minimum: 'x' } })).code).toBe('keyword_type');
    expect(only(obj({ a: { type: 'number', maximum: Number.POSITIVE_INFINITY } })).code).toBe(
      'keyword_type',
    );
  });
  it('checks ranges and order', () => {
    expect(only(obj({ a: { type: 'string', minLength: -1 } }))).toEqual({
      code: 'keyword_range',
      path: ['properties', 'a', 'minLength'],
      message: 'properties.a.minLength must be a whole number of 0 or more, got -1.',
    });
    expect(only(obj({ a: { type: 'string', maxLength: 1.5 } })).code).toBe('keyword_range');
    expect(only(obj({ a: { type: 'string', minLength: 5, maxLength: 2 } }))).toEqual({
      code: 'bounds_order',
      path: ['properties', 'a', 'minLength'],
      message:
        'properties.a.minLength (5) is greater than maxLength (2); no answer could satisfy both. Swap or fix them.',
    });
    expect(only(obj({ a: { type: 'integer', minimum: 10, maximum: 1 } })).code).toBe(
      'bounds_order',
    );
    const multi = { type: 'array', items: { type: 'string', enum: ['a', 'b'] } };
    expect(only(obj({ a: { ...multi, minItems: 2, maxItems: 1 } })).code).toBe('bounds_order');
    expect(only(obj({ a: { ...multi, minItems: 3 } }))).toEqual({
      code: 'keyword_range',
      path: ['properties', 'a', 'minItems'],
      message: 'properties.a.minItems is 3 but there are only 2 options.',
    });
  });
  it('knows only four formats', () => {
    expect(only(obj({ a: { type: 'string', format: 'uuid' } }))).toEqual({
      code: 'format_unknown',
      path: ['properties', 'a', 'format'],
      message:
        'properties.a.format is "uuid"; the known formats are email, uri, date, date-time. Remove it or use one of them.',
    });
  });
  it('refuses a pattern that does not compile', () => {
    const issue = only(obj({ a: { type: 'string', pattern: '(' } }));
    expect(issue.code).toBe('pattern_invalid');
    expect(issue.message).toMatch(/^properties\.a\.pattern is not a valid regular expression \(/);
  });
  it('checks enum options', () => {
    expect(only(obj({ a: { type: 'string', enum: [] } }))).toEqual({
      code: 'options_empty',
      path: ['properties', 'a', 'enum'],
      message: 'properties.a.enum is empty; give at least one option.',
    });
    expect(only(obj({ a: { type: 'string', enum: ['x', 'x'] } }))).toEqual({
      code: 'option_duplicate',
      path: ['properties', 'a', 'enum', 1],
      message: 'properties.a.enum[1] repeats the option "x"; each option must be unique.',
    });
    expect(only(obj({ a: { type: 'string', enum: [''] } })).code).toBe('option_invalid');
    expect(only(obj({ a: { type: 'string', enum: [1] } })).code).toBe('option_invalid');
    expect(only(obj({ a: { type: 'string', oneOf: [{ const: 'x' }] } }))).toMatchObject({
      code: 'option_invalid',
      path: ['properties', 'a', 'oneOf', 0, 'title'],
    });
    expect(
      only(
        obj({
          a: {
            type: 'string',
            oneOf: [
              { const: 'x', title: 'X' },
              { const: 'x', title: 'Y' },
            ],
          },
        }),
      ),
    ).toMatchObject({
      code: 'option_duplicate',
      path: ['properties', 'a', 'oneOf', 1, 'const'],
    });
    expect(
      only(obj({ a: { type: 'string', enum: ['x'], oneOf: [{ const: 'x', title: 'X' }] } })).code,
    ).toBe('keyword_conflict');
    expect(only(obj({ a: { type: 'string', enum: ['x', 'y'], enumNames: ['X'] } }))).toEqual({
      code: 'enum_names_length',
      path: ['properties', 'a', 'enumNames'],
      message:
        'properties.a.enumNames has 1 names for 2 enum values; give exactly one name per value.',
    });
  });
  it('requires defaults to be valid answers for their own field', () => {
    expect(only(obj({ age: { type: 'integer', maximum: 150, default: 200 } }))).toEqual({
      code: 'default_invalid',
      path: ['properties', 'age', 'default'],
      message:
        'properties.age.default (200) is not a valid answer for its own field: Enter a number of at most 150.',
    });
    expect(only(obj({ c: { type: 'string', enum: ['r', 'g'], default: 'b' } })).code).toBe(
      'default_invalid',
    );
    expect(only(obj({ e: { type: 'string', format: 'email', default: 'nope' } })).code).toBe(
      'default_invalid',
    );
    expect(only(obj({ b: { type: 'boolean', default: 'yes' } })).code).toBe('default_invalid');
    expect(
      only(
        obj({ m: { type: 'array', items: { type: 'string', enum: ['a'] }, default: ['a', 'a'] } }),
      ).code,
    ).toBe('default_invalid');
  });
});

describe('checkSchema: revisions', () => {
  it('2025-06-18 allows default only on booleans and enums only as enum/enumNames', () => {
    expect(only(obj({ a: { type: 'string', default: 'x' } }), '2025-06-18')).toEqual({
      code: 'keyword_revision',
      path: ['properties', 'a', 'default'],
      message:
        'properties.a.default: `default` on a text field needs revision 2025-11-25 or later; this schema targets 2025-06-18. Remove it or lower the schema with convertSchema().',
    });
    expect(only(obj({ a: { type: 'number', default: 1 } }), '2025-06-18').code).toBe(
      'keyword_revision',
    );
    expect(
      only(obj({ a: { type: 'string', oneOf: [{ const: 'x', title: 'X' }] } }), '2025-06-18').code,
    ).toBe('keyword_revision');
    expect(
      only(obj({ a: { type: 'array', items: { type: 'string', enum: ['x'] } } }), '2025-06-18')
        .code,
    ).toBe('keyword_revision');
    expect(only({ ...obj({}), $schema: 'x' }, '2025-06-18').code).toBe('keyword_revision');
    expect(
      errors(
        obj({
          a: { type: 'boolean', default: true },
          b: { type: 'string', enum: ['x'], enumNames: ['X'] },
        }),
        '2025-06-18',
      ),
    ).toEqual([]);
  });
  it('2026-07-28 has the same subset as 2025-11-25', () => {
    const schema = obj({
      a: { type: 'array', items: { anyOf: [{ const: 'x', title: 'X' }] } },
      b: { type: 'string', default: 'x' },
    });
    expect(errors(schema, '2026-07-28')).toEqual([]);
    expect(errors(schema, '2025-11-25')).toEqual([]);
  });
});

describe('checkSchema: limits', () => {
  it('caps properties, options, text, size and depth', () => {
    const many = Object.fromEntries(
      Array.from({ length: 101 }, (_, i) => [`p${i}`, { type: 'string' }]),
    );
    expect(only(obj(many))).toEqual({
      code: 'too_many_properties',
      path: ['properties'],
      message:
        'The form has 101 properties; the limit is 100. Ask for fewer fields, or split the form.',
    });
    const options = Array.from({ length: 1001 }, (_, i) => `o${i}`);
    expect(only(obj({ a: { type: 'string', enum: options } })).code).toBe('too_many_options');
    expect(only(obj({ a: { type: 'string', title: 'x'.repeat(4097) } })).code).toBe('too_long');
    expect(only(obj({ a: { type: 'string', description: 'x'.repeat(300_000) } })).code).toBe(
      'too_large',
    );
    expect(
      only(obj({ a: { type: 'string', x: { y: { z: { w: { v: { u: { t: {} } } } } } } } })).code,
    ).toBe('too_deep');
  });
  it('honours custom limits', () => {
    const result = checkSchema(obj({ a: { type: 'string' }, b: { type: 'string' } }), {
      limits: { maxProperties: 1 },
    });
    expect(result.ok).toBe(false);
    expect(() => checkSchema(obj({}), { limits: { maxProperties: -1 } })).toThrow(
      expect.objectContaining({
        code: 'ELICIT_LIMIT_INVALID',
        message: expect.stringMatching(/limits.maxProperties must be a positive whole number/),
      }),
    );
    expect(DEFAULT_LIMITS.maxProperties).toBe(100);
  });
  it('reports at most 50 problems plus a summary', () => {
    const bad = Object.fromEntries(
      Array.from({ length: 80 }, (_, i) => [`p${i}`, { type: 'object' }]),
    );
    const list = errors(obj(bad));
    expect(list).toHaveLength(51);
    expect(list[50]).toEqual({
      code: 'more_issues',
      path: [],
      message: '30 more problem(s) not listed; fix the ones above first.',
    });
  });
});
