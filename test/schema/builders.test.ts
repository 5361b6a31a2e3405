import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import {
  boolean,
  choice,
  choices,
  coerceText,
  compileSchema,
  convertSchema,
  date,
  email,
  form,
  fromJsonSchema,
  fromStandardSchema,
  type Infer,
  integer,
  number,
  SchemaError,
  text,
} from '../../src/schema/index.ts';

describe('typed builders', () => {
  const trip = form({
    name: text({ minLength: 1 }),
    seat: choice({ w: 'Window', a: 'Aisle' }),
    bags: integer({ min: 0, max: 3, default: 1 }),
    extras: choices(['wifi', 'meal']),
    note: text({ optional: true }),
    when: date({ optional: true }),
    mail: email({ title: 'Email' }),
    vip: boolean({ default: false }),
    budget: number({ min: 0, optional: true }),
  });

  it('infers the exact answer type', () => {
    expectTypeOf<Infer<typeof trip>>().toEqualTypeOf<{
      name: string;
      seat: 'w' | 'a';
      bags: number;
      extras: ('wifi' | 'meal')[];
      mail: string;
      vip: boolean;
      note?: string;
      when?: string;
      budget?: number;
    }>();
  });

  it('emits the wire schema of the latest revision', () => {
    expect(trip.requestedSchema.properties.seat).toEqual({
      type: 'string',
      oneOf: [
        { const: 'w', title: 'Window' },
        { const: 'a', title: 'Aisle' },
      ],
    });
    expect(trip.requestedSchema.properties.extras).toEqual({
      type: 'array',
      items: { type: 'string', enum: ['wifi', 'meal'] },
    });
    expect(trip.requestedSchema.required).toEqual([
      'name',
      'seat',
      'bags',
      'extras',
      'mail',
      'vip',
    ]);
  });

  it('parses answers with defaults applied', () => {
    const parsed = trip.parse({ name: 'Ann', seat: 'a', extras: [], mail: 'ann@example.com' });
    expect(parsed).toEqual({
      ok: true,
      value: { name: 'Ann', seat: 'a', extras: [], mail: 'ann@example.com', bags: 1, vip: false },
    });
  });

  it('refuses impossible options with SchemaError', () => {
    expect(() => form({ n: integer({ min: 5, max: 1 }) })).toThrow(SchemaError);
    expect(() => form({ n: text({ pattern: /a/g }) })).toThrow(
      expect.objectContaining({
        code: 'ELICIT_PATTERN_FLAGS',
        message: expect.stringMatching(/only the u flag/),
      }),
    );
    expect(() => form({ n: choice([]) })).toThrow(/is empty/);
  });
});

describe('coerceText', () => {
  const s = compileSchema({
    type: 'object',
    properties: {
      n: { type: 'integer' },
      x: { type: 'number' },
      b: { type: 'boolean' },
      c: {
        type: 'string',
        oneOf: [
          { const: 'w', title: 'Window' },
          { const: 'a', title: 'Aisle' },
        ],
      },
      m: { type: 'array', items: { type: 'string', enum: ['wifi', 'meal'] } },
      t: { type: 'string' },
    },
  });
  const f = (name: string) => s.field(name)!;
  it('turns typed text into values', () => {
    expect(coerceText(f('n'), ' 42 ')).toEqual({ ok: true, value: 42 });
    expect(coerceText(f('n'), '1_000')).toEqual({ ok: true, value: 1000 });
    expect(coerceText(f('n'), '4.5')).toEqual({
      ok: false,
      message: 'Enter a whole number, such as 42.',
    });
    expect(coerceText(f('n'), '0x10')).toMatchObject({ ok: false });
    expect(coerceText(f('x'), '1e999')).toEqual({
      ok: false,
      message: 'That number is too large.',
    });
    expect(coerceText(f('x'), '-.5')).toEqual({ ok: true, value: -0.5 });
    expect(coerceText(f('b'), 'Yes')).toEqual({ ok: true, value: true });
    expect(coerceText(f('b'), 'maybe')).toEqual({ ok: false, message: 'Answer yes or no.' });
    expect(coerceText(f('c'), 'aisle')).toEqual({ ok: true, value: 'a' });
    expect(coerceText(f('c'), '1')).toEqual({ ok: true, value: 'w' });
    expect(coerceText(f('c'), 'door')).toEqual({
      ok: false,
      message: 'Choose one of: 1) Window, 2) Aisle.',
    });
    expect(coerceText(f('m'), 'meal, wifi, meal')).toEqual({ ok: true, value: ['meal', 'wifi'] });
    expect(coerceText(f('m'), 'tv')).toEqual({
      ok: false,
      message: '"tv" is not one of the options.',
    });
    expect(coerceText(f('t'), '')).toEqual({ ok: true, value: undefined });
    expect(coerceText(f('n'), '  ')).toEqual({ ok: true, value: undefined });
  });
});

describe('convertSchema', () => {
  const modern = {
    type: 'object',
    properties: {
      seat: {
        type: 'string',
        oneOf: [
          { const: 'w', title: 'Window' },
          { const: 'a', title: 'Aisle' },
        ],
        default: 'w',
      },
      extras: {
        type: 'array',
        title: 'Extras',
        items: {
          anyOf: [
            { const: 'wifi', title: 'Wi-Fi' },
            { const: 'meal', title: 'Meal' },
          ],
        },
        maxItems: 1,
        default: ['meal'],
      },
      ok: { type: 'boolean', default: true },
    },
    required: ['seat', 'extras'],
  };

  it('lowers a 2025-11-25 form to 2025-06-18 losing nothing it can express', () => {
    const c = convertSchema(modern, { to: '2025-06-18' });
    expect(c.requestedSchema).toEqual({
      type: 'object',
      properties: {
        seat: { type: 'string', enum: ['w', 'a'], enumNames: ['Window', 'Aisle'] },
        'extras.wifi': { type: 'boolean', title: 'Extras: Wi-Fi', default: false },
        'extras.meal': { type: 'boolean', title: 'Extras: Meal', default: true },
        ok: { type: 'boolean', default: true },
      },
      required: ['seat'],
    });
    expect(c.notes.map((n) => `${n.field}:${n.code}`)).toEqual([
      'seat:default_dropped',
      'extras:multiselect_as_booleans',
      'extras:items_bounds_after_answer',
    ]);
    // The lowered schema is itself valid for the old revision.
    expect(compileSchema(c.requestedSchema, { revision: '2025-06-18' }).fields).toHaveLength(4);
  });

  it('maps answers back so the caller never sees the difference', () => {
    const c = convertSchema(modern, { to: '2025-06-18' });
    const back = c.mapAnswer({ seat: 'a', 'extras.wifi': true, 'extras.meal': false, ok: false });
    expect(back).toEqual({ seat: 'a', extras: ['wifi'], ok: false });
    const original = compileSchema(modern);
    expect(original.validate(back)).toEqual([]);
    // maxItems still holds on the mapped answer.
    const both = c.mapAnswer({ seat: 'a', 'extras.wifi': true, 'extras.meal': true });
    expect(original.validate(both).map((i) => i.code)).toEqual(['max_items']);
  });

  it('is the identity between 2025-11-25 and 2026-07-28, and when raising', () => {
    const up = convertSchema(modern, { from: '2025-11-25', to: '2026-07-28' });
    expect(up.identity).toBe(true);
    expect(up.requestedSchema).toBe(modern);
    const old = {
      type: 'object',
      properties: { s: { type: 'string', enum: ['a'], enumNames: ['A'] } },
    };
    expect(convertSchema(old, { from: '2025-06-18', to: '2025-11-25' }).identity).toBe(true);
  });

  it('avoids key collisions when expanding multi-selects', () => {
    const c = convertSchema(
      {
        type: 'object',
        properties: {
          'm.a': { type: 'string' },
          m: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
        },
      },
      { to: '2025-06-18' },
    );
    expect(Object.keys(c.requestedSchema.properties)).toEqual(['m.a', 'm.0~2', 'm.b']);
    expect(c.mapAnswer({ 'm.a': 'text', 'm.0~2': true })).toEqual({ 'm.a': 'text', m: ['a'] });
  });
});

describe('Standard Schema import', () => {
  it('converts a zod object and keeps zod refinements on the server', async () => {
    const schema = z.object({
      name: z.string().min(1).describe('Your name'),
      age: z.number().int().positive().optional(),
      color: z.enum(['red', 'green']).default('red'),
      tags: z.array(z.enum(['a', 'b'])).max(2),
      mail: z.email(),
      even: z.number().refine((n) => n % 2 === 0, 'Must be even'),
    });
    const { form: f, warnings } = fromStandardSchema(schema);
    expect(warnings).toEqual([]);
    expect(f.requestedSchema.properties.age).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    expect(f.requestedSchema.properties.name).toMatchObject({
      description: 'Your name',
      minLength: 1,
    });
    expect(f.requestedSchema.properties.mail).toEqual({ type: 'string', format: 'email' });
    expect(f.requestedSchema.required).toEqual(['name', 'tags', 'mail', 'even']);
    expectTypeOf<Infer<typeof f>>().toEqualTypeOf<z.output<typeof schema>>();
    const parsed = f.parse({ name: 'x', tags: ['a'], mail: 'x@example.com', even: 3 });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.color).toBe('red');
    const refined = await f.refine?.(parsed.value);
    expect(refined).toEqual({
      ok: false,
      issues: [{ code: 'custom', field: 'even', message: 'Must be even' }],
    });
  });

  it('names each construct the wire cannot express', () => {
    const schema = z.object({
      address: z.object({ city: z.string() }),
      people: z.array(z.object({ n: z.string() })),
      maybe: z.string().nullable(),
      free: z.array(z.string()),
    });
    try {
      fromStandardSchema(schema);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as SchemaError).issues.map((i) => i.message)).toEqual([
        'properties.address: a nested object cannot be expressed; forms are flat. Move its fields to the top level.',
        'properties.people.items: an array of objects cannot be expressed; forms are flat.',
        'properties.maybe.type: null cannot be sent in a form; make the field optional instead.',
        'properties.free.items: only arrays of string options (multi-select) can be expressed.',
      ]);
    }
  });

  it('warns about checks that stay on the server', () => {
    const { warnings } = fromJsonSchema({
      type: 'object',
      properties: {
        x: { type: 'number', exclusiveMinimum: 0, multipleOf: 2 },
        id: { type: 'string', format: 'uuid' },
      },
    });
    expect(warnings.map((w) => w.path.join('.'))).toEqual([
      'properties.x.exclusiveMinimum',
      'properties.x.multipleOf',
      'properties.id.format',
    ]);
  });
});
