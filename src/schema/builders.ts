/**
 * Typed builders: define a form in TypeScript and get the answer type inferred.
 *
 *   const trip = form({ name: text({ minLength: 1 }), seat: choice({ w: 'Window', a: 'Aisle' }) });
 *   type Trip = Infer<typeof trip>; // { name: string; seat: 'w' | 'a' }
 *
 * Fields are required unless `optional: true`. A field with a `default` is typed as always
 * present: if the answer leaves it out, parse() fills it in.
 */

import { ELICIT_PATTERN_FLAGS } from '../kernel/error-codes.ts';
import { type CompiledSchema, compileSchema, type ParseResult, SchemaError } from './compile.ts';
import { emitSchema } from './emit.ts';
import { PatternError } from './pattern.ts';
import type {
  Field,
  MultiSelectField,
  Option,
  RequestedSchema,
  SelectField,
  StringFormat,
} from './types.ts';

declare const OUT: unique symbol;

/** A field under construction. `T` is its answer type, `P` whether the answer always has it. */
export interface FieldSpec<T, P extends boolean> {
  readonly [OUT]?: { value: T; present: P };
  /** Builds the normalised field for property `name`. */
  toField(name: string): Field;
}

interface Common {
  title?: string;
  description?: string;
}
type Presence<O> = O extends { default: unknown }
  ? true
  : O extends { optional: true }
    ? false
    : true;

export interface TextOptions extends Common {
  minLength?: number;
  maxLength?: number;
  /** A RegExp's source is used; flags other than `u` are not expressible and are refused. */
  pattern?: string | RegExp;
  format?: StringFormat;
  default?: string;
  optional?: boolean;
}
export interface NumberOptions extends Common {
  min?: number;
  max?: number;
  default?: number;
  optional?: boolean;
}
export interface BooleanOptions extends Common {
  default?: boolean;
  optional?: boolean;
}
export interface ChoiceOptions<V extends string> extends Common {
  default?: NoInfer<V>;
  optional?: boolean;
}
export interface ChoicesOptions<V extends string> extends Common {
  minItems?: number;
  maxItems?: number;
  default?: readonly NoInfer<V>[];
  optional?: boolean;
}

function spec<T, P extends boolean>(toField: (name: string) => Field): FieldSpec<T, P> {
  return { toField };
}

function base(name: string, o: Common & { optional?: boolean }) {
  return { name, title: o.title, description: o.description, required: o.optional !== true };
}

function patternSource(pattern: string | RegExp | undefined): string | undefined {
  if (pattern === undefined || typeof pattern === 'string') return pattern;
  if (pattern.flags.replace('u', '') !== '') {
    throw new PatternError(
      ELICIT_PATTERN_FLAGS,
      `pattern /${pattern.source}/${pattern.flags}: only the u flag can be sent; remove the others (write case-insensitivity into the pattern, e.g. [Aa]).`,
    );
  }
  return pattern.source;
}

export function text<const O extends TextOptions>(options?: O): FieldSpec<string, Presence<O>> {
  const o: TextOptions = options ?? {};
  return spec((name) => ({
    ...base(name, o),
    kind: 'text',
    minLength: o.minLength,
    maxLength: o.maxLength,
    pattern: patternSource(o.pattern),
    format: o.format,
    default: o.default,
  }));
}

type Formatted = Omit<TextOptions, 'format'>;
export const email = <const O extends Formatted>(o?: O) =>
  text({ ...o, format: 'email' }) as FieldSpec<string, Presence<O>>;
export const url = <const O extends Formatted>(o?: O) =>
  text({ ...o, format: 'uri' }) as FieldSpec<string, Presence<O>>;
export const date = <const O extends Formatted>(o?: O) =>
  text({ ...o, format: 'date' }) as FieldSpec<string, Presence<O>>;
export const dateTime = <const O extends Formatted>(o?: O) =>
  text({ ...o, format: 'date-time' }) as FieldSpec<string, Presence<O>>;

function numeric(integer: boolean, o: NumberOptions): (name: string) => Field {
  return (name) => ({
    ...base(name, o),
    kind: 'number',
    integer,
    minimum: o.min,
    maximum: o.max,
    default: o.default,
  });
}
export function number<const O extends NumberOptions>(options?: O): FieldSpec<number, Presence<O>> {
  return spec(numeric(false, options ?? {}));
}
export function integer<const O extends NumberOptions>(
  options?: O,
): FieldSpec<number, Presence<O>> {
  return spec(numeric(true, options ?? {}));
}
export function boolean<const O extends BooleanOptions>(
  options?: O,
): FieldSpec<boolean, Presence<O>> {
  const o: BooleanOptions = options ?? {};
  return spec((name) => ({ ...base(name, o), kind: 'boolean', default: o.default }));
}

type OptionsInput = readonly string[] | Readonly<Record<string, string>>;
type ValueOf<L> = L extends readonly (infer V extends string)[]
  ? V
  : L extends Record<infer K, string>
    ? K & string
    : never;

function toOptions(list: OptionsInput): { options: Option[]; titled: boolean } {
  if (Array.isArray(list))
    return { options: list.map((v: string) => ({ value: v, label: v })), titled: false };
  return {
    options: Object.entries(list as Record<string, string>).map(([value, label]) => ({
      value,
      label,
    })),
    titled: true,
  };
}

/** Single choice. An array gives untitled options; an object maps values to titles. */
export function choice<
  const L extends OptionsInput,
  const O extends ChoiceOptions<ValueOf<L>> = ChoiceOptions<ValueOf<L>>,
>(list: L, options?: O): FieldSpec<ValueOf<L>, Presence<O>> {
  const o: ChoiceOptions<string> = options ?? {};
  const { options: opts, titled } = toOptions(list);
  return spec(
    (name): SelectField => ({
      ...base(name, o),
      kind: 'select',
      style: titled ? 'oneOf' : 'enum',
      options: opts,
      default: o.default,
    }),
  );
}

/** Multiple choice (multi-select). */
export function choices<
  const L extends OptionsInput,
  const O extends ChoicesOptions<ValueOf<L>> = ChoicesOptions<ValueOf<L>>,
>(list: L, options?: O): FieldSpec<ValueOf<L>[], Presence<O>> {
  const o: ChoicesOptions<string> = options ?? {};
  const { options: opts, titled } = toOptions(list);
  return spec(
    (name): MultiSelectField => ({
      ...base(name, o),
      kind: 'multiselect',
      style: titled ? 'anyOf' : 'enum',
      options: opts,
      minItems: o.minItems,
      maxItems: o.maxItems,
      default: o.default,
    }),
  );
}

type Shape = Record<string, FieldSpec<unknown, boolean>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type SpecOf<S> = S extends FieldSpec<infer T, infer P> ? { value: T; present: P } : never;
/** Answer type of a form shape. */
export type InferShape<S extends Shape> = Simplify<
  {
    -readonly [K in keyof S as SpecOf<S[K]>['present'] extends true ? K : never]: SpecOf<
      S[K]
    >['value'];
  } & {
    -readonly [K in keyof S as SpecOf<S[K]>['present'] extends true ? never : K]?: SpecOf<
      S[K]
    >['value'];
  }
>;

/** A checked, compiled form whose answers have type `T`. */
export interface Form<T> {
  readonly requestedSchema: RequestedSchema;
  readonly schema: CompiledSchema;
  /** Applies defaults and validates; on success the value is typed. */
  parse(content: unknown): ParseResult<T>;
  /** Extra checks the wire cannot express (e.g. a Standard Schema's refinements); run after parse(). */
  refine?(value: T): ParseResult<T> | Promise<ParseResult<T>>;
  /** @internal type carrier */
  readonly __answer?: T;
}
export type Infer<F> = F extends Form<infer T> ? T : F extends Shape ? InferShape<F> : never;

/** Builds a form. Throws SchemaError (with every problem) if the options do not make a valid schema. */
export function form<const S extends Shape>(shape: S): Form<InferShape<S>> {
  const fields = Object.keys(shape).map((name) =>
    (shape[name] as FieldSpec<unknown, boolean>).toField(name),
  );
  return formFromFields<InferShape<S>>(fields);
}

/** @internal shared by form() and the Standard Schema import */
export function formFromFields<T>(
  fields: readonly Field[],
  refine?: (value: T) => ParseResult<T> | Promise<ParseResult<T>>,
): Form<T> {
  const requestedSchema = emitSchema(fields);
  // Round-trip through the checker so builders can never produce what the wire rejects; the
  // compile cache is keyed by content, so a form built inside a handler is checked once.
  let schema: CompiledSchema;
  try {
    schema = compileSchema(requestedSchema);
  } catch (error) {
    if (error instanceof SchemaError) throw new SchemaError(error.issues, 'form');
    throw error;
  }
  return {
    requestedSchema,
    schema,
    parse: (content) => schema.parse(content) as ParseResult<T>,
    ...(refine === undefined ? {} : { refine }),
  };
}
