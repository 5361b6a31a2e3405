/**
 * Import a Standard Schema (zod 4, or any library implementing Standard JSON Schema) or a plain
 * JSON Schema into the restricted subset. Structural constructs the wire cannot carry (nested
 * objects, arrays of anything but options, unions of types, null) are errors naming each one;
 * checks that only narrow a value (exclusive bounds on numbers, multipleOf, custom refinements)
 * stay enforced on the server through the Standard Schema's own `validate`, and are listed as
 * warnings.
 *
 * Patterns: the library's `validate` runs its own regexes on the platform's backtracking
 * engine, on whatever the peer answered. elicit's linear-time check of the same pattern runs
 * first (so only values that match it, and no longer than limits.maxPatternInput, reach the
 * library), and at import every library pattern must be one elicit can parse and must not be
 * exponentially ambiguous (`pattern-ambiguity.ts`): on such a pattern even a matching value
 * can send a backtracking engine into exponential time. This includes the patterns a library
 * emits beside a known `format` (zod's email regex), which elicit replaces by its own format
 * check but the library still runs.
 */
import { type Form, formFromFields } from './builders.ts';
import { SchemaError } from './compile.ts';
import { describeType, formatPath, type SchemaIssue, type SchemaIssueCode } from './issues.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { exponentiallyAmbiguous } from './pattern-ambiguity.ts';
import { parsePattern } from './pattern-parse.ts';
import type { Field, Option, StringFormat } from './types.ts';
import { STRING_FORMATS } from './types.ts';

/** The parts of Standard Schema v1 (+ Standard JSON Schema) that elicit uses. */
export interface StandardSchemaLike<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
    readonly jsonSchema?: { input(options: { target: string }): unknown };
  };
}
type StandardResult<O> =
  | { readonly value: O; readonly issues?: undefined }
  | {
      readonly issues: readonly {
        readonly message: string;
        readonly path?: readonly unknown[] | undefined;
      }[];
    };

export interface ImportResult<T> {
  readonly form: Form<T>;
  readonly warnings: readonly SchemaIssue[];
}

type Obj = Record<string, unknown>;
type Path = (string | number)[];
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

class Importer {
  readonly errors: SchemaIssue[] = [];
  readonly warnings: SchemaIssue[] = [];
  /** The library whose own validate also runs on answers (undefined: plain JSON Schema). */
  readonly library: string | undefined;
  constructor(library: string | undefined) {
    this.library = library;
  }

  /** A pattern the library runs natively must be safe for a backtracking engine. */
  libraryPattern(pattern: string, path: Path): boolean {
    if (this.library === undefined) return true;
    const at = [...path, 'pattern'];
    const parsed = parsePattern(pattern);
    if (!parsed.ok) {
      this.fail(
        parsed.code,
        at,
        `${this.library} checks ${JSON.stringify(pattern)} with its own backtracking engine, and it uses ${parsed.reason}, which elicit cannot prove safe; rewrite it without backreferences or lookaround.`,
      );
      return false;
    }
    const max = DEFAULT_LIMITS.maxLibraryPatternStates;
    const ambiguous = exponentiallyAmbiguous(parsed.node, max);
    if (ambiguous === undefined) {
      this.fail(
        'pattern_too_complex',
        at,
        `${this.library} checks ${JSON.stringify(pattern)} with its own backtracking engine, and it has more than ${max} character states to prove safe; simplify it.`,
      );
      return false;
    }
    if (ambiguous) {
      this.fail(
        'pattern_backtracking',
        at,
        `${this.library} would check ${JSON.stringify(pattern)} with its own backtracking engine, which takes exponential time on some answers (a repetition inside a repetition, or alternatives that match the same text); rewrite it so that each character can be matched only one way, e.g. ^[A-Za-z]+( [A-Za-z]+)*$ instead of ^([A-Za-z]+ ?)+$.`,
      );
      return false;
    }
    return true;
  }
  fail(code: SchemaIssueCode, path: Path, message: string): undefined {
    this.errors.push({ code, path, message: `${formatPath(path)}: ${message}` });
    return undefined;
  }
  warn(path: Path, message: string): void {
    this.warnings.push({
      code: 'keyword_unknown',
      path,
      message: `${formatPath(path)}: ${message}`,
    });
  }

  constOptions(list: unknown[], path: Path): { options: Option[]; titled: boolean } | undefined {
    const options: Option[] = [];
    let titled = false;
    for (const [i, entry] of list.entries()) {
      if (!isObj(entry) || typeof entry.const !== 'string') {
        const nullable = isObj(entry) && entry.type === 'null';
        return this.fail(
          'property_type',
          [...path, i],
          nullable
            ? 'null cannot be sent in a form; make the field optional instead.'
            : 'only string options ({const, title}) can be expressed.',
        );
      }
      if (typeof entry.title === 'string') titled = true;
      options.push({
        value: entry.const,
        label: typeof entry.title === 'string' ? entry.title : entry.const,
      });
    }
    return { options, titled };
  }

  field(name: string, s: unknown, required: boolean): Field | undefined {
    const path: Path = ['properties', name];
    if (!isObj(s))
      return this.fail(
        'property_not_object',
        path,
        `expected a schema object, got ${describeType(s)}.`,
      );
    const base = {
      name,
      title: typeof s.title === 'string' ? s.title : undefined,
      description: typeof s.description === 'string' ? s.description : undefined,
      required,
    };
    const def = s.default;
    const union = (s.anyOf ?? s.oneOf) as unknown;
    if (Array.isArray(union)) {
      const picked = this.constOptions(union, [...path, s.anyOf !== undefined ? 'anyOf' : 'oneOf']);
      if (picked === undefined) return undefined;
      return {
        ...base,
        kind: 'select',
        style: picked.titled ? 'oneOf' : 'enum',
        options: picked.options,
        default: def as string,
      };
    }
    if (Array.isArray(s.enum) || typeof s.const === 'string') {
      const values = Array.isArray(s.enum) ? s.enum : [s.const];
      if (!values.every((v) => typeof v === 'string')) {
        return this.fail(
          'property_type',
          [...path, 'enum'],
          'only string options can be expressed.',
        );
      }
      return {
        ...base,
        kind: 'select',
        style: 'enum',
        options: (values as string[]).map((v) => ({ value: v, label: v })),
        default: def as string,
      };
    }
    if (Array.isArray(s.type))
      return this.fail(
        'property_type',
        [...path, 'type'],
        s.type.includes('null')
          ? 'null cannot be sent in a form; make the field optional instead.'
          : `a union of types (${s.type.join(', ')}) cannot be expressed.`,
      );
    switch (s.type) {
      case 'string': {
        let format: StringFormat | undefined;
        let pattern = typeof s.pattern === 'string' ? s.pattern : undefined;
        if (pattern !== undefined && !this.libraryPattern(pattern, path)) return undefined;
        if (typeof s.format === 'string') {
          if (STRING_FORMATS.includes(s.format as StringFormat)) {
            format = s.format as StringFormat;
            pattern = undefined; // the format says it; library patterns are checked by refine
          } else
            this.warn(
              [...path, 'format'],
              `format "${s.format}" is not one of ${STRING_FORMATS.join(', ')}; checked on the server only.`,
            );
        }
        return {
          ...base,
          kind: 'text',
          minLength: s.minLength as number | undefined,
          maxLength: s.maxLength as number | undefined,
          pattern,
          format,
          default: def as string,
        };
      }
      case 'number':
      case 'integer': {
        const integer = s.type === 'integer';
        let minimum = s.minimum as number | undefined;
        let maximum = s.maximum as number | undefined;
        if (typeof s.exclusiveMinimum === 'number') {
          if (integer) minimum = Math.max(minimum ?? -Infinity, Math.floor(s.exclusiveMinimum) + 1);
          else
            this.warn(
              [...path, 'exclusiveMinimum'],
              'an exclusive bound cannot be shown in the form; checked on the server.',
            );
        }
        if (typeof s.exclusiveMaximum === 'number') {
          if (integer) maximum = Math.min(maximum ?? Infinity, Math.ceil(s.exclusiveMaximum) - 1);
          else
            this.warn(
              [...path, 'exclusiveMaximum'],
              'an exclusive bound cannot be shown in the form; checked on the server.',
            );
        }
        if (s.multipleOf !== undefined)
          this.warn(
            [...path, 'multipleOf'],
            'multipleOf cannot be shown in the form; checked on the server.',
          );
        return { ...base, kind: 'number', integer, minimum, maximum, default: def as number };
      }
      case 'boolean':
        return { ...base, kind: 'boolean', default: def as boolean };
      case 'array': {
        const items = s.items;
        if (!isObj(items))
          return this.fail(
            'property_type',
            [...path, 'items'],
            'an array without item options cannot be expressed.',
          );
        let picked: { options: Option[]; titled: boolean } | undefined;
        if (Array.isArray(items.enum) && items.enum.every((v) => typeof v === 'string')) {
          picked = {
            options: (items.enum as string[]).map((v) => ({ value: v, label: v })),
            titled: false,
          };
        } else if (Array.isArray(items.anyOf ?? items.oneOf)) {
          picked = this.constOptions((items.anyOf ?? items.oneOf) as unknown[], [...path, 'items']);
        } else {
          return this.fail(
            items.type === 'object' ? 'nested' : 'property_type',
            [...path, 'items'],
            items.type === 'object'
              ? 'an array of objects cannot be expressed; forms are flat.'
              : 'only arrays of string options (multi-select) can be expressed.',
          );
        }
        if (picked === undefined) return undefined;
        if (s.uniqueItems === false)
          this.warn([...path, 'uniqueItems'], 'multi-select answers never repeat an option.');
        return {
          ...base,
          kind: 'multiselect',
          style: picked.titled ? 'anyOf' : 'enum',
          options: picked.options,
          minItems: s.minItems as number | undefined,
          maxItems: s.maxItems as number | undefined,
          default: def as string[],
        };
      }
      case 'object':
        return this.fail(
          'nested',
          path,
          'a nested object cannot be expressed; forms are flat. Move its fields to the top level.',
        );
      case 'null':
        return this.fail(
          'property_type',
          path,
          'null cannot be sent in a form; make the field optional instead.',
        );
      default:
        return this.fail(
          'property_type',
          path,
          `type ${JSON.stringify(s.type ?? null)} cannot be expressed.`,
        );
    }
  }
}

/** Converts a JSON Schema object schema (draft 2020-12 or 07) into a form. */
export function fromJsonSchema<T = Record<string, unknown>>(json: unknown): ImportResult<T> {
  return importJson<T>(json, undefined);
}

function importJson<T>(json: unknown, library: string | undefined): ImportResult<T> {
  const im = new Importer(library);
  if (!isObj(json) || json.type !== 'object' || !isObj(json.properties)) {
    throw new SchemaError(
      [
        {
          code: 'root_type',
          path: [],
          message: 'Only an object schema with properties can become a form.',
        },
      ],
      'JSON Schema',
    );
  }
  const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
  const fields: Field[] = [];
  for (const name of Object.keys(json.properties)) {
    const field = im.field(name, json.properties[name], required.has(name));
    if (field !== undefined) fields.push(field);
  }
  if (im.errors.length > 0) throw new SchemaError(im.errors, 'JSON Schema for a form');
  return { form: formFromFields<T>(fields), warnings: im.warnings };
}

/**
 * Converts a Standard Schema (for example a zod 4 `z.object`) into a form. Answers are checked
 * against the restricted schema first, then by the Standard Schema's own `validate`.
 */
export function fromStandardSchema<S extends StandardSchemaLike>(
  schema: S,
): ImportResult<NonNullable<S['~standard']['types']>['output']> {
  type T = NonNullable<S['~standard']['types']>['output'];
  const std = schema['~standard'];
  if (std?.jsonSchema === undefined) {
    throw new SchemaError(
      [
        {
          code: 'not_object',
          path: [],
          message: `The ${std?.vendor ?? 'given'} schema does not implement Standard JSON Schema (~standard.jsonSchema); pass a JSON Schema to fromJsonSchema() instead.`,
        },
      ],
      'Standard Schema',
    );
  }
  const { form, warnings } = importJson<T>(
    std.jsonSchema.input({ target: 'draft-2020-12' }),
    std.vendor,
  );
  const refine = async (value: T) => {
    const result = await std.validate(value);
    if (result.issues === undefined) return { ok: true as const, value: result.value as T };
    return {
      ok: false as const,
      issues: result.issues.map((i) => {
        const head = i.path?.[0];
        const key =
          typeof head === 'object' && head !== null && 'key' in head
            ? (head as { key: unknown }).key
            : head;
        return {
          code: 'custom' as const,
          field: typeof key === 'string' ? key : undefined,
          message: i.message,
        };
      }),
    };
  };
  return { form: { ...form, refine }, warnings };
}
