/**
 * One set of form cases every renderer runs (terminal, <elicit-form>, scripted): each case is a
 * schema, what a person does with each field in order, the answer that must come out, and the
 * errors that must have been shown on the way. A driver turns the steps into its renderer's own
 * input (keys, clicks, scripted answers).
 */
import { describe, expect, it } from 'vitest';
import { applyDefaults, type CompiledSchema, compileSchema } from '../../src/schema/index.ts';

/** What the person does with one field. `first` is an invalid entry made (and shown) before. */
export type Step =
  | { readonly field: string; readonly keep: true }
  | { readonly field: string; readonly type: string; readonly first?: string }
  | { readonly field: string; readonly pick: string | null }
  | { readonly field: string; readonly yes: boolean | null }
  | {
      readonly field: string;
      readonly tick: readonly string[];
      readonly first?: readonly string[];
    };

export interface Case {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  /** One step per field, in the schema's order. */
  readonly steps: readonly Step[];
  /** The accepted content, as JSON (so own `__proto__` keys compare exactly). */
  readonly content: string;
  /** Messages that must have been shown for the `first` entries. */
  readonly errors?: readonly string[];
}

export interface Run {
  readonly action: string;
  /** JSON of the content, in field order. */
  readonly content: string | undefined;
  /** Everything the person saw (screen text, error texts, log lines). */
  readonly shown: string;
}

export interface Driver {
  run(c: Case, schema: CompiledSchema, initial: Record<string, unknown>): Promise<Run>;
}

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});

export const cases: readonly Case[] = [
  {
    name: 'every field kind, filled in',
    schema: object(
      {
        name: { type: 'string', title: 'Name', minLength: 2 },
        mail: { type: 'string', title: 'Email', format: 'email' },
        bags: { type: 'integer', title: 'Bags', minimum: 0, maximum: 3 },
        score: { type: 'number', title: 'Score' },
        ok: { type: 'boolean', title: 'Subscribe' },
        seat: {
          type: 'string',
          title: 'Seat',
          oneOf: [
            { const: 'w', title: 'Window' },
            { const: 'a', title: 'Aisle' },
          ],
        },
        size: {
          type: 'string',
          title: 'Size',
          enum: ['s', 'm', 'l', 'xl', 'xxl', 'xxxl'],
          enumNames: ['S', 'M', 'L', 'XL', 'XXL', 'XXXL'],
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
        },
      },
      ['name', 'mail', 'bags', 'ok', 'seat'],
    ),
    steps: [
      { field: 'name', type: 'Ada' },
      { field: 'mail', type: 'ada@example.com' },
      { field: 'bags', type: '2' },
      { field: 'score', type: '7.5' },
      { field: 'ok', yes: false },
      { field: 'seat', pick: 'a' },
      { field: 'size', pick: 'xl' },
      { field: 'extras', tick: ['wifi', 'meal'] },
    ],
    content: JSON.stringify({
      name: 'Ada',
      mail: 'ada@example.com',
      bags: 2,
      score: 7.5,
      ok: false,
      seat: 'a',
      size: 'xl',
      extras: ['wifi', 'meal'],
    }),
  },
  {
    name: 'optional fields left empty are omitted (also a multi-select with minItems)',
    schema: object(
      {
        who: { type: 'string', title: 'Who' },
        note: { type: 'string', title: 'Note' },
        count: { type: 'integer', title: 'Count' },
        agree: { type: 'boolean', title: 'Agree' },
        seat: { type: 'string', title: 'Seat', enum: ['w', 'a'] },
        size: { type: 'string', title: 'Size', enum: ['s', 'm', 'l', 'xl', 'xxl', 'xxxl'] },
        extras: {
          type: 'array',
          title: 'Extras',
          items: { type: 'string', enum: ['wifi', 'meal'] },
          minItems: 1,
        },
      },
      ['who'],
    ),
    steps: [
      { field: 'who', type: 'Ann' },
      { field: 'note', keep: true },
      { field: 'count', keep: true },
      { field: 'agree', yes: null },
      { field: 'seat', pick: null },
      { field: 'size', pick: null },
      { field: 'extras', tick: [] },
    ],
    content: JSON.stringify({ who: 'Ann' }),
  },
  {
    name: 'defaults are pre-filled and kept; an optional default can be cleared',
    schema: object({
      city: { type: 'string', title: 'City', default: 'Oslo' },
      bags: { type: 'integer', title: 'Bags', default: 1 },
      ok: { type: 'boolean', title: 'Subscribe', default: true },
      seat: { type: 'string', title: 'Seat', enum: ['w', 'a'], default: 'a' },
      extras: {
        type: 'array',
        title: 'Extras',
        items: { type: 'string', enum: ['wifi', 'meal'] },
        default: ['meal'],
      },
      meal: { type: 'string', title: 'Meal', enum: ['veg', 'fish'], default: 'fish' },
    }),
    steps: [
      { field: 'city', keep: true },
      { field: 'bags', keep: true },
      { field: 'ok', keep: true },
      { field: 'seat', keep: true },
      { field: 'extras', keep: true },
      { field: 'meal', pick: null },
    ],
    content: JSON.stringify({ city: 'Oslo', bags: 1, ok: true, seat: 'a', extras: ['meal'] }),
  },
  {
    name: 'invalid entries are shown, kept (text, ticks) and corrected',
    schema: object(
      {
        name: { type: 'string', title: 'Name', minLength: 2 },
        bags: { type: 'integer', title: 'Bags', minimum: 0, maximum: 3 },
        extras: {
          type: 'array',
          title: 'Extras',
          items: { type: 'string', enum: ['wifi', 'meal', 'seat'] },
          maxItems: 2,
        },
      },
      ['name'],
    ),
    steps: [
      { field: 'name', first: 'A', type: 'Ada' },
      { field: 'bags', first: '9', type: '3' },
      { field: 'extras', first: ['wifi', 'meal', 'seat'], tick: ['wifi', 'seat'] },
    ],
    content: JSON.stringify({ name: 'Ada', bags: 3, extras: ['wifi', 'seat'] }),
    errors: ['Enter at least 2 characters.', 'Enter a number of at most 3.', 'Choose at most 2.'],
  },
  {
    name: 'fields named like Object.prototype members',
    schema: object(
      {
        constructor: { type: 'string', title: 'constructor' },
        toString: { type: 'string', title: 'toString', enum: ['a', 'b'] },
        hasOwnProperty: { type: 'boolean', title: 'hasOwnProperty' },
        // A computed key: a literal `__proto__:` would set the prototype instead.
        ['__proto__']: {
          type: 'array',
          title: '__proto__',
          items: { type: 'string', enum: ['x', 'y'] },
          minItems: 1,
        },
        valueOf: { type: 'integer', title: 'valueOf' },
      },
      ['__proto__'],
    ),
    steps: [
      { field: 'constructor', type: 'built' },
      { field: 'toString', pick: 'b' },
      { field: 'hasOwnProperty', yes: true },
      { field: '__proto__', first: [], tick: ['y'] },
      { field: 'valueOf', keep: true },
    ],
    content: '{"constructor":"built","toString":"b","hasOwnProperty":true,"__proto__":["y"]}',
    errors: ['Choose at least 1.'],
  },
  {
    name: 'fields named like Object.prototype members start empty',
    schema: object({
      constructor: { type: 'string', title: 'constructor' },
      toString: { type: 'string', title: 'toString', enum: ['a', 'b'] },
      ['__proto__']: { type: 'array', title: '__proto__', items: { type: 'string', enum: ['x'] } },
    }),
    steps: [
      { field: 'constructor', keep: true },
      { field: 'toString', keep: true },
      { field: '__proto__', keep: true },
    ],
    content: '{}',
  },
];

export function rendererSuite(name: string, driver: Driver, timeout = 30_000): void {
  describe(`${name}: the shared form cases`, () => {
    for (const c of cases) {
      it(
        c.name,
        async () => {
          const schema = compileSchema(c.schema);
          expect(c.steps.map((s) => s.field)).toEqual(schema.fields.map((f) => f.name));
          const run = await driver.run(c, schema, applyDefaults(schema, {}));
          expect(run.action).toBe('accept');
          expect(run.content).toBe(c.content);
          for (const message of c.errors ?? []) expect(run.shown).toContain(message);
        },
        timeout,
      );
    }
  });
}
