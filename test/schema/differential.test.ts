/**
 * Differential tests. The checker must agree with the official SDK's wire schemas on what is
 * well-formed (we may only be stricter, for the documented reasons in STRICTER), and the
 * validator must agree with Ajv + ajv-formats on valid/invalid answers except where the spec's
 * subset rules or RFCs differ (FORMAT_DIFFERENCES, and the schema rewrite in toAjvSchema).
 */
import { ElicitRequestFormParamsSchema } from '@modelcontextprotocol/core';
import { Ajv } from 'ajv';
import { default as addFormatsModule } from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSchema, compileSchema, type SchemaIssueCode } from '../../src/schema/index.ts';

/** Rules we enforce that the SDK's wire schemas do not (see docs/schema.md). */
const STRICTER = new Set<SchemaIssueCode>([
  'required_unknown',
  'required_duplicate',
  'bounds_order',
  'option_duplicate',
  'option_invalid',
  'options_empty',
  'keyword_range',
  'keyword_conflict',
  'enum_names_length',
  'default_invalid',
  'pattern_invalid',
  'property_name',
  'too_many_properties',
  'too_many_options',
  'too_long',
  'too_large',
  'too_deep',
]);

/** Values where our RFC-based format checks and ajv-formats' full mode disagree, and why. */
const FORMAT_DIFFERENCES: Record<string, string> = {
  [`${'a'.repeat(65)}@b.co`]: 'email: RFC 5321 limits the local part to 64 octets',
  [`x@${'a'.repeat(64)}.com`]: 'email: a DNS label has at most 63 octets',
  'http://example.com:80a/': 'uri: RFC 3986 port is digits only',
  'a:': 'uri: RFC 3986 allows an empty hier-part',
  'http://a@b@c/': 'uri: "@" cannot appear in userinfo',
  '2025-01-31 09:30:00Z': 'date-time: RFC 3339 grammar requires "T"',
  '2025-01-31T09:30:00+0530': 'date-time: RFC 3339 offsets have a colon',
};

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const key = fc.constantFrom('a', 'b', 'name', '__proto__', 'constructor', 'x y');
const text = fc.constantFrom(
  '',
  'x',
  'ab',
  'hello world',
  '😀',
  'a@b.co',
  'name@example.com',
  'https://example.com/',
  '2024-02-29',
  '2025-01-31T09:30:00Z',
);
const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 200 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  text,
  fc.array(text, { maxLength: 3 }),
  fc.constant({}),
);
const options = fc.array(fc.constantFrom('r', 'g', 'b', '', 'r'), { minLength: 0, maxLength: 4 });
const titled = options.map((list) =>
  list.map((v, i) => (i === 2 ? { const: v } : { const: v, title: v.toUpperCase() })),
);

/** A property schema: mostly plausible, sometimes broken in one keyword. */
const property = fc.oneof(
  fc.record(
    {
      type: fc.constant('string'),
      minLength: fc.oneof(fc.nat(6), junk),
      maxLength: fc.oneof(fc.nat(6), junk),
      format: fc.constantFrom('email', 'uri', 'date', 'date-time', 'uuid'),
      pattern: fc.constantFrom('^[a-z]*$', '(', '\\d'),
      default: fc.oneof(text, junk),
      title: fc.oneof(text, junk),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constantFrom('number', 'integer'),
      minimum: fc.oneof(fc.integer({ min: -5, max: 5 }), junk),
      maximum: fc.oneof(fc.integer({ min: -5, max: 5 }), junk),
      default: fc.oneof(fc.integer({ min: -5, max: 5 }), junk),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    { type: fc.constant('boolean'), default: fc.oneof(fc.boolean(), junk) },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('string'),
      enum: options,
      enumNames: options,
      default: fc.oneof(text, fc.constantFrom('r', 'g')),
    },
    { requiredKeys: ['type', 'enum'] },
  ),
  fc.record(
    { type: fc.constant('string'), oneOf: titled, default: fc.constantFrom('r', 'z') },
    { requiredKeys: ['type', 'oneOf'] },
  ),
  fc.record(
    {
      type: fc.constant('array'),
      items: fc.oneof(
        options.map((e) => ({ type: 'string', enum: e })),
        titled.map((a) => ({ anyOf: a })),
        fc.constant({ type: 'object' }),
        fc.constant({ type: 'string' }),
      ),
      minItems: fc.oneof(fc.nat(3), junk),
      maxItems: fc.oneof(fc.nat(3), junk),
      default: fc.array(fc.constantFrom('r', 'g', 'q'), { maxLength: 3 }),
    },
    { requiredKeys: ['type', 'items'] },
  ),
  fc.record({ type: fc.constantFrom('object', 'null', 'date') }),
);

const schemaArb = fc
  .record({
    props: fc.dictionary(key, property, { maxKeys: 4 }),
    required: fc.array(key, { maxLength: 3 }),
  })
  .map(({ props, required }) => {
    const properties: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(props))
      Object.defineProperty(properties, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return { type: 'object', properties, required };
  });

describe('checker vs the SDK wire schema (2025-11-25)', () => {
  it('accepts only what the SDK accepts, and refuses more only for documented reasons', () => {
    let accepted = 0;
    fc.assert(
      fc.property(schemaArb, (schema) => {
        // The SDK's zod record silently drops a property named "__proto__" instead of checking
        // it, so its verdict says nothing about such a schema (we check it as a plain key).
        if (Object.hasOwn(schema.properties, '__proto__')) return;
        const sdk = ElicitRequestFormParamsSchema.safeParse({
          message: 'm',
          requestedSchema: schema,
        }).success;
        const ours = checkSchema(schema, { revision: '2025-11-25' });
        if (ours.ok) {
          accepted++;
          expect(sdk, `SDK refuses what we accept: ${JSON.stringify(schema)}`).toBe(true);
        } else if (sdk) {
          const undocumented = ours.errors.filter((e) => !STRICTER.has(e.code));
          expect(undocumented, JSON.stringify(schema)).toEqual([]);
        }
      }),
      { numRuns: 3000, seed: 20261121 },
    );
    expect(accepted).toBeGreaterThan(100);
  });
});

/** The requested schema as plain JSON Schema, with the subset's implicit rules made explicit. */
function toAjvSchema(schema: { properties: Record<string, Record<string, unknown>> }): object {
  const properties: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema.properties)) {
    Object.defineProperty(properties, k, {
      value: v.type === 'array' ? { ...v, uniqueItems: true } : v,
      enumerable: true,
    });
  }
  return { ...schema, properties, additionalProperties: false };
}

const valueArb = fc.oneof(
  text,
  fc.constantFrom(...Object.keys(FORMAT_DIFFERENCES), 'a@b', '2023-02-29', 'r', 'g', 'b'),
  fc.integer({ min: -10, max: 200 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 200 }),
  fc.boolean(),
  fc.array(fc.constantFrom('r', 'g', 'b', 'q'), { maxLength: 4 }),
  fc.constant(null),
  fc.constant({ nested: true }),
);

describe('validator vs Ajv + ajv-formats', () => {
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  it('agrees on valid/invalid for generated schemas and answers', () => {
    let compared = 0;
    fc.assert(
      fc.property(
        schemaArb,
        fc.array(fc.tuple(key, valueArb), { maxLength: 5 }),
        (schema, entries) => {
          const checked = checkSchema(schema, { revision: '2025-11-25' });
          if (!checked.ok) return;
          const compiled = compileSchema(schema, { revision: '2025-11-25' });
          const answer: Record<string, unknown> = {};
          for (const [k, v] of entries)
            Object.defineProperty(answer, k, {
              value: v,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          const ajvValid = ajv.validate(toAjvSchema(schema as never), answer);
          const ours = compiled.validate(answer).length === 0;
          // The generated validator and the closure fallback report exactly the same issues.
          expect(compiled.validate(answer)).toEqual(compiled.validateByClosures(answer));
          if (ajvValid !== ours) {
            // Ajv reads `required` names through the prototype chain, so a missing "constructor"
            // or "__proto__" counts as present there; we only count own properties.
            const inherited = (schema.required as string[]).some(
              (k) => k in Object.prototype && !Object.hasOwn(answer, k),
            );
            const explained =
              inherited ||
              entries.some(([, v]) => typeof v === 'string' && v in FORMAT_DIFFERENCES);
            expect(
              explained,
              `${JSON.stringify(schema)} ${JSON.stringify(answer)} ajv=${ajvValid}`,
            ).toBe(true);
          }
          compared++;
        },
      ),
      { numRuns: 3000, seed: 20261121 },
    );
    expect(compared).toBeGreaterThan(100);
  });
});
