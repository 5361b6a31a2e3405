/**
 * Checks a raw `requestedSchema` against the restricted subset of one protocol revision and
 * turns it into the normalised field model. Never throws on bad input: every problem becomes a
 * SchemaIssue with a path, a stable code and a message that says what to do.
 */
import { hasOwnValue } from '../kernel/own.ts';
import {
  describeType,
  formatPath,
  preview,
  type SchemaIssue,
  type SchemaIssueCode,
} from './issues.ts';
import { DEFAULT_LIMITS, type Limits, resolveLimits } from './limits.ts';
import { measureJson } from './measure.ts';
import { patternProblem } from './pattern.ts';
import { LATEST_REVISION, type Revision, revisionFeatures } from './revision.ts';
import { sensitiveKind } from './sensitive.ts';
import {
  type Field,
  type MultiSelectStyle,
  type Option,
  type RequestedSchema,
  STRING_FORMATS,
  type StringFormat,
} from './types.ts';
import { prepareField } from './value.ts';

export interface CheckOptions {
  /** Revision the schema is meant for; defaults to the latest. */
  readonly revision?: Revision;
  /** Overrides of DEFAULT_LIMITS. */
  readonly limits?: Partial<Limits>;
}

/** A requested schema that passed the check, with its fields normalised. */
export interface CheckedSchema {
  readonly revision: Revision;
  readonly fields: readonly Field[];
  /** The schema exactly as given (every keyword kept, `pattern` included). */
  readonly requestedSchema: RequestedSchema;
  /** Things that were ignored (unknown keywords): not errors. */
  readonly warnings: readonly SchemaIssue[];
  readonly limits: Limits;
}

export type CheckResult =
  | { readonly ok: true; readonly schema: CheckedSchema; readonly warnings: readonly SchemaIssue[] }
  | {
      readonly ok: false;
      readonly errors: readonly SchemaIssue[];
      readonly warnings: readonly SchemaIssue[];
    };

/** At most this many errors are reported for one schema; the last one says how many more. */
const MAX_ISSUES = 50;

type Path = readonly (string | number)[];
type Obj = Record<string, unknown>;

const COMMON = ['type', 'title', 'description', 'default'];
const KNOWN: Record<string, ReadonlySet<string>> = {
  text: new Set([...COMMON, 'minLength', 'maxLength', 'pattern', 'format']),
  number: new Set([...COMMON, 'minimum', 'maximum']),
  boolean: new Set(COMMON),
  enum: new Set([...COMMON, 'enum', 'enumNames']),
  oneOf: new Set([...COMMON, 'oneOf']),
  multiselect: new Set([...COMMON, 'items', 'minItems', 'maxItems']),
};
const ROOT_KNOWN = new Set(['$schema', 'type', 'properties', 'required']);

function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const has: (obj: Obj, key: string) => boolean = hasOwnValue;

class Checker {
  readonly errors: SchemaIssue[] = [];
  readonly warnings: SchemaIssue[] = [];
  private dropped = 0;
  readonly revision: Revision;
  readonly limits: Limits;
  readonly features: ReturnType<typeof revisionFeatures>;

  constructor(revision: Revision, limits: Limits) {
    this.revision = revision;
    this.limits = limits;
    this.features = revisionFeatures(revision);
  }

  error(code: SchemaIssueCode, path: Path, message: string): void {
    if (this.errors.length < MAX_ISSUES) this.errors.push({ code, path, message });
    else this.dropped++;
  }

  finish(): void {
    if (this.dropped > 0) {
      this.errors.push({
        code: 'more_issues',
        path: [],
        message: `${this.dropped} more problem(s) not listed; fix the ones above first.`,
      });
    }
  }

  warnUnknown(obj: Obj, known: ReadonlySet<string>, path: Path): void {
    for (const key of Object.keys(obj)) {
      if (!known.has(key)) {
        this.warnings.push({
          code: 'keyword_unknown',
          path: [...path, key],
          message: `${formatPath([...path, key])} is not part of the restricted schema and is ignored.`,
        });
      }
    }
  }

  text(obj: Obj, key: string, path: Path, max = this.limits.maxTextLength): string | undefined {
    if (!has(obj, key)) return undefined;
    const value = obj[key];
    if (typeof value !== 'string') {
      this.error(
        'keyword_type',
        [...path, key],
        `${formatPath([...path, key])} must be a string, got ${describeType(value)}.`,
      );
      return undefined;
    }
    if (value.length > max) {
      this.error(
        'too_long',
        [...path, key],
        `${formatPath([...path, key])} has ${value.length} characters; the limit is ${max}. Shorten it.`,
      );
      return undefined;
    }
    return value;
  }

  count(obj: Obj, key: string, path: Path): number | undefined {
    if (!has(obj, key)) return undefined;
    const value = obj[key];
    if (typeof value !== 'number') {
      this.error(
        'keyword_type',
        [...path, key],
        `${formatPath([...path, key])} must be a number, got ${describeType(value)}.`,
      );
      return undefined;
    }
    if (!Number.isSafeInteger(value) || value < 0) {
      this.error(
        'keyword_range',
        [...path, key],
        `${formatPath([...path, key])} must be a whole number of 0 or more, got ${preview(value)}.`,
      );
      return undefined;
    }
    return value;
  }

  bound(obj: Obj, key: string, path: Path): number | undefined {
    if (!has(obj, key)) return undefined;
    const value = obj[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.error(
        'keyword_type',
        [...path, key],
        `${formatPath([...path, key])} must be a finite number, got ${preview(value)}.`,
      );
      return undefined;
    }
    return value;
  }

  order(
    lo: number | undefined,
    hi: number | undefined,
    path: Path,
    loKey: string,
    hiKey: string,
  ): void {
    if (lo !== undefined && hi !== undefined && lo > hi) {
      this.error(
        'bounds_order',
        [...path, loKey],
        `${formatPath([...path, loKey])} (${lo}) is greater than ${hiKey} (${hi}); no answer could satisfy both. Swap or fix them.`,
      );
    }
  }

  needs(feature: boolean, obj: Obj, key: string, path: Path, what: string): boolean {
    if (feature || !has(obj, key)) return true;
    const at = [...path, key];
    this.error(
      'keyword_revision',
      at,
      `${formatPath(at)}: ${what} needs revision 2025-11-25 or later; this schema targets ${this.revision}. Remove it or lower the schema with convertSchema().`,
    );
    return false;
  }

  options(list: unknown, path: Path, titled: boolean): Option[] | undefined {
    if (!Array.isArray(list)) {
      this.error(
        'keyword_type',
        path,
        `${formatPath(path)} must be an array, got ${describeType(list)}.`,
      );
      return undefined;
    }
    if (list.length === 0) {
      this.error('options_empty', path, `${formatPath(path)} is empty; give at least one option.`);
      return undefined;
    }
    if (list.length > this.limits.maxOptions) {
      this.error(
        'too_many_options',
        path,
        `${formatPath(path)} has ${list.length} options; the limit is ${this.limits.maxOptions}. Use fewer options or a text field.`,
      );
      return undefined;
    }
    const out: Option[] = [];
    const seen = new Set<string>();
    let ok = true;
    for (let i = 0; i < list.length; i++) {
      const entry: unknown = list[i];
      const at = (): Path => [...path, i];
      let value: unknown = entry;
      let label: unknown;
      if (titled) {
        if (!isObject(entry)) {
          this.error(
            'option_invalid',
            at(),
            `${formatPath(at())} must be an object {const, title}, got ${describeType(entry)}.`,
          );
          ok = false;
          continue;
        }
        value = entry.const;
        label = entry.title;
        if (
          typeof label !== 'string' ||
          label.length === 0 ||
          label.length > this.limits.maxTextLength
        ) {
          this.error(
            'option_invalid',
            [...at(), 'title'],
            `${formatPath([...at(), 'title'])} must be a non-empty string of at most ${this.limits.maxTextLength} characters.`,
          );
          ok = false;
          continue;
        }
        this.warnUnknown(entry, OPTION_KNOWN, at());
      }
      const valueAt = (): Path => (titled ? [...path, i, 'const'] : [...path, i]);
      if (
        typeof value !== 'string' ||
        value.length === 0 ||
        value.length > this.limits.maxTextLength
      ) {
        this.error(
          'option_invalid',
          valueAt(),
          `${formatPath(valueAt())} must be a non-empty string of at most ${this.limits.maxTextLength} characters, got ${preview(value)}.`,
        );
        ok = false;
        continue;
      }
      if (seen.has(value)) {
        this.error(
          'option_duplicate',
          valueAt(),
          `${formatPath(valueAt())} repeats the option ${preview(value)}; each option must be unique.`,
        );
        ok = false;
        continue;
      }
      seen.add(value);
      out.push({ value, label: typeof label === 'string' ? label : value });
    }
    return ok ? out : undefined;
  }

  field(name: string, raw: unknown, path: Path, required: boolean): Field | undefined {
    if (!isObject(raw)) {
      this.error(
        'property_not_object',
        path,
        `${formatPath(path)} must be a field schema object, got ${describeType(raw)}.`,
      );
      return undefined;
    }
    const type = raw.type;
    const before = this.errors.length;
    const title = this.text(raw, 'title', path);
    const description = this.text(raw, 'description', path);
    const base = { name, title, description, required };
    let field: Field | undefined;
    let known: ReadonlySet<string>;
    if (type === 'string' && (has(raw, 'enum') || has(raw, 'oneOf'))) {
      if (has(raw, 'enum') && has(raw, 'oneOf')) {
        this.error(
          'keyword_conflict',
          path,
          `${formatPath(path)} has both enum and oneOf; use one of them.`,
        );
        return undefined;
      }
      const titled = has(raw, 'oneOf');
      known = KNOWN[titled ? 'oneOf' : 'enum'] as ReadonlySet<string>;
      if (
        titled &&
        !this.needs(
          this.features.titledSelect,
          raw,
          'oneOf',
          path,
          'a titled single-select (oneOf)',
        )
      ) {
        return undefined;
      }
      const options = this.options(
        titled ? raw.oneOf : raw.enum,
        [...path, titled ? 'oneOf' : 'enum'],
        titled,
      );
      let style: 'enum' | 'oneOf' | 'enumNames' = titled ? 'oneOf' : 'enum';
      let labelled = options;
      if (!titled && has(raw, 'enumNames') && options !== undefined) {
        const names = raw.enumNames;
        const at = [...path, 'enumNames'];
        if (
          !Array.isArray(names) ||
          names.some((n) => typeof n !== 'string' || n.length > this.limits.maxTextLength)
        ) {
          this.error('keyword_type', at, `${formatPath(at)} must be an array of strings.`);
        } else if (names.length !== options.length) {
          this.error(
            'enum_names_length',
            at,
            `${formatPath(at)} has ${names.length} names for ${options.length} enum values; give exactly one name per value.`,
          );
        } else {
          style = 'enumNames';
          labelled = options.map((o, i) => ({ value: o.value, label: names[i] as string }));
        }
      }
      this.needs(this.features.defaultsOnAll, raw, 'default', path, '`default` on a select field');
      if (labelled !== undefined) {
        field = { ...base, kind: 'select', style, options: labelled, default: undefined };
      }
    } else if (type === 'string') {
      known = KNOWN.text as ReadonlySet<string>;
      const minLength = this.count(raw, 'minLength', path);
      const maxLength = this.count(raw, 'maxLength', path);
      this.order(minLength, maxLength, path, 'minLength', 'maxLength');
      let format: StringFormat | undefined;
      if (has(raw, 'format')) {
        if (STRING_FORMATS.includes(raw.format as StringFormat))
          format = raw.format as StringFormat;
        else {
          this.error(
            'format_unknown',
            [...path, 'format'],
            `${formatPath([...path, 'format'])} is ${preview(raw.format)}; the known formats are ${STRING_FORMATS.join(', ')}. Remove it or use one of them.`,
          );
        }
      }
      const pattern = this.text(raw, 'pattern', path, this.limits.maxPatternLength);
      const problem = pattern === undefined ? undefined : patternProblem(pattern, this.limits);
      if (problem !== undefined) {
        const at = [...path, 'pattern'];
        this.error(problem.code, at, `${formatPath(at)} ${problem.message}.`);
      }
      this.needs(this.features.defaultsOnAll, raw, 'default', path, '`default` on a text field');
      field = { ...base, kind: 'text', minLength, maxLength, pattern, format, default: undefined };
    } else if (type === 'number' || type === 'integer') {
      known = KNOWN.number as ReadonlySet<string>;
      const minimum = this.bound(raw, 'minimum', path);
      const maximum = this.bound(raw, 'maximum', path);
      this.order(minimum, maximum, path, 'minimum', 'maximum');
      this.needs(this.features.defaultsOnAll, raw, 'default', path, '`default` on a number field');
      field = {
        ...base,
        kind: 'number',
        integer: type === 'integer',
        minimum,
        maximum,
        default: undefined,
      };
    } else if (type === 'boolean') {
      known = KNOWN.boolean as ReadonlySet<string>;
      field = { ...base, kind: 'boolean', default: undefined };
    } else if (type === 'array') {
      known = KNOWN.multiselect as ReadonlySet<string>;
      if (
        !this.needs(this.features.multiSelect, raw, 'type', path, 'a multi-select (type "array")')
      )
        return undefined;
      field = this.multiselect(raw, path, base);
    } else if (type === 'object' || (type === undefined && has(raw, 'properties'))) {
      this.error(
        'nested',
        path,
        `${formatPath(path)} is an object; elicitation forms are flat. Split it into top-level properties.`,
      );
      return undefined;
    } else {
      this.error(
        'property_type',
        [...path, 'type'],
        type === undefined
          ? `${formatPath([...path, 'type'])} is missing; use "string", "number", "integer", "boolean" or "array".`
          : `${formatPath([...path, 'type'])} is ${preview(type)}; use "string", "number", "integer", "boolean" or "array".`,
      );
      return undefined;
    }
    this.warnUnknown(raw, known, path);
    if (field === undefined || this.errors.length > before) return undefined;
    return this.withDefault(field, raw, path);
  }

  multiselect(raw: Obj, path: Path, base: Omit<Field, 'kind' | 'default'>): Field | undefined {
    const items = raw.items;
    const at = [...path, 'items'];
    if (!isObject(items)) {
      this.error(
        'keyword_type',
        at,
        `${formatPath(at)} must be an object with enum or anyOf, got ${describeType(items)}.`,
      );
      return undefined;
    }
    if (items.type === 'object' || has(items, 'properties')) {
      this.error(
        'nested',
        at,
        `${formatPath(at)} describes objects; multi-select items must be string options.`,
      );
      return undefined;
    }
    let style: MultiSelectStyle;
    let options: Option[] | undefined;
    if (has(items, 'anyOf') && !has(items, 'enum')) {
      style = 'anyOf';
      options = this.options(items.anyOf, [...at, 'anyOf'], true);
      this.warnUnknown(items, ITEMS_ANYOF_KNOWN, at);
    } else if (has(items, 'enum') && !has(items, 'anyOf')) {
      style = 'enum';
      if (items.type !== 'string') {
        this.error(
          'keyword_type',
          [...at, 'type'],
          `${formatPath([...at, 'type'])} must be "string" for enum items.`,
        );
      }
      options = this.options(items.enum, [...at, 'enum'], false);
      this.warnUnknown(items, ITEMS_ENUM_KNOWN, at);
    } else {
      this.error(
        has(items, 'enum') ? 'keyword_conflict' : 'property_type',
        at,
        `${formatPath(at)} must have exactly one of enum (untitled options) or anyOf (titled options); arrays of free values are not allowed.`,
      );
      return undefined;
    }
    const minItems = this.count(raw, 'minItems', path);
    const maxItems = this.count(raw, 'maxItems', path);
    this.order(minItems, maxItems, path, 'minItems', 'maxItems');
    if (options !== undefined && minItems !== undefined && minItems > options.length) {
      this.error(
        'keyword_range',
        [...path, 'minItems'],
        `${formatPath([...path, 'minItems'])} is ${minItems} but there are only ${options.length} options.`,
      );
    }
    if (options === undefined) return undefined;
    return {
      ...base,
      kind: 'multiselect',
      style,
      options,
      minItems,
      maxItems,
      default: undefined,
    } as Field;
  }

  withDefault(field: Field, raw: Obj, path: Path): Field | undefined {
    if (!has(raw, 'default')) return field;
    const value = raw.default;
    const limits = { ...this.limits, maxAnswerLength: this.limits.maxTextLength };
    const problem = prepareField(field, limits).check(value);
    if (problem !== undefined) {
      const at = [...path, 'default'];
      this.error(
        'default_invalid',
        at,
        `${formatPath(at)} (${preview(value)}) is not a valid answer for its own field: ${problem.message}`,
      );
      return undefined;
    }
    return { ...field, default: Array.isArray(value) ? Object.freeze([...value]) : value } as Field;
  }
}

const OPTION_KNOWN = new Set(['const', 'title']);
const ITEMS_ANYOF_KNOWN = new Set(['anyOf', 'type']);
const ITEMS_ENUM_KNOWN = new Set(['type', 'enum']);

/** Checks `raw` as the `requestedSchema` of a form elicitation for one revision. */
export function checkSchema(raw: unknown, options: CheckOptions = {}): CheckResult {
  const limits = options.limits === undefined ? DEFAULT_LIMITS : resolveLimits(options.limits);
  const c = new Checker(options.revision ?? LATEST_REVISION, limits);
  const fail = (): CheckResult => {
    c.finish();
    return { ok: false, errors: c.errors, warnings: c.warnings };
  };
  const measured = measureJson(raw, limits);
  if (measured !== undefined) {
    c.error(
      measured.kind,
      [],
      measured.kind === 'too_deep'
        ? `The schema is nested deeper than ${limits.maxDepth} levels; elicitation forms are flat.`
        : `The schema is larger than ${limits.maxSize} characters of JSON; make it smaller.`,
    );
    return fail();
  }
  if (!isObject(raw)) {
    c.error(
      'not_object',
      [],
      `The requested schema must be a JSON object, got ${describeType(raw)}.`,
    );
    return fail();
  }
  if (raw.type !== 'object') {
    c.error('root_type', ['type'], `type must be "object", got ${preview(raw.type)}.`);
  }
  if (has(raw, '$schema')) {
    if (c.needs(c.features.dollarSchema, raw, '$schema', [], '`$schema`'))
      c.text(raw, '$schema', []);
  }
  c.warnUnknown(raw, ROOT_KNOWN, []);
  const props = raw.properties;
  if (!isObject(props)) {
    c.error(
      'properties',
      ['properties'],
      `properties must be an object of field schemas, got ${describeType(props)}.`,
    );
    return fail();
  }
  const names = Object.keys(props);
  if (names.length > limits.maxProperties) {
    c.error(
      'too_many_properties',
      ['properties'],
      `The form has ${names.length} properties; the limit is ${limits.maxProperties}. Ask for fewer fields, or split the form.`,
    );
    return fail();
  }
  const required = new Set<string>();
  if (has(raw, 'required')) {
    const list = raw.required;
    if (!Array.isArray(list)) {
      c.error(
        'required',
        ['required'],
        `required must be an array of property names, got ${describeType(list)}.`,
      );
    } else {
      list.forEach((name: unknown, i) => {
        if (typeof name !== 'string') {
          c.error(
            'required',
            ['required', i],
            `required[${i}] must be a property name, got ${describeType(name)}.`,
          );
        } else if (required.has(name)) {
          c.error(
            'required_duplicate',
            ['required', i],
            `required[${i}] repeats ${preview(name)}; list each property once.`,
          );
        } else if (!Object.hasOwn(props, name)) {
          c.error(
            'required_unknown',
            ['required', i],
            `required[${i}] names ${preview(name)}, which is not in properties. Add the property or remove the name.`,
          );
        } else required.add(name);
      });
    }
  }
  const fields: Field[] = [];
  for (const name of names) {
    const path = ['properties', name];
    if (name.length === 0 || name.length > limits.maxKeyLength) {
      c.error(
        'property_name',
        path,
        name.length === 0
          ? 'A property has an empty name; give every field a name.'
          : `A property name has ${name.length} characters; the limit is ${limits.maxKeyLength}.`,
      );
      continue;
    }
    const field = c.field(name, props[name], path, required.has(name));
    if (field === undefined) continue;
    fields.push(Object.freeze(field));
    const sensitive = sensitiveKind(field);
    if (sensitive !== undefined)
      c.warnings.push({
        code: 'sensitive_field',
        path,
        message: `${formatPath(path)} looks like it asks for ${sensitive}. Form mode must not ask for passwords, secrets, API keys, tokens, card or account numbers: use URL mode (ask.secret in elicit/server) instead.`,
      });
  }
  if (c.errors.length > 0) return fail();
  const schema: CheckedSchema = Object.freeze({
    revision: c.revision,
    fields: Object.freeze(fields),
    requestedSchema: raw as unknown as RequestedSchema,
    warnings: c.warnings,
    limits,
  });
  return { ok: true, schema, warnings: c.warnings };
}
