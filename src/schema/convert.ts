/**
 * Converts a requested schema between revisions and maps answers back, so a handler written
 * for the latest revision works unchanged with an older peer.
 *
 * Lowering to 2025-06-18: titled single-selects become `enum` + `enumNames` (lossless);
 * `default` is dropped except on booleans; a multi-select becomes one boolean per option
 * (`<name>.<value>`, titled "<field>: <option>", its default carried as boolean defaults), and
 * the answer is mapped back to `string[]`. What the older revision cannot express (minItems,
 * maxItems) is listed in `notes`, and is still enforced because the mapped answer is
 * validated against the original schema.
 */
import { type CheckedSchema, type CheckOptions, checkSchema } from './check.ts';
import { SchemaError, setOwn } from './compile.ts';
import { emitSchema } from './emit.ts';
import { LATEST_REVISION, type Revision, revisionFeatures } from './revision.ts';
import type { BooleanField, Content, Field, MultiSelectField, RequestedSchema } from './types.ts';

export interface ConversionNote {
  readonly code:
    | 'default_dropped'
    | 'multiselect_as_booleans'
    | 'items_bounds_after_answer'
    | 'required_after_answer';
  readonly field: string;
  readonly message: string;
}

export interface Conversion {
  readonly revision: Revision;
  readonly requestedSchema: RequestedSchema;
  /** What the target revision cannot express; empty when the conversion is lossless. */
  readonly notes: readonly ConversionNote[];
  /** Maps an answer to the converted schema back to the shape of the original schema. */
  mapAnswer(content: Readonly<Record<string, unknown>>): Content;
  /** True when the converted schema is the original one, unchanged. */
  readonly identity: boolean;
}

export interface ConvertOptions extends Pick<CheckOptions, 'limits'> {
  /** Revision the input schema is written for; defaults to the latest. */
  readonly from?: Revision;
  readonly to: Revision;
}

const identityMap = (content: Readonly<Record<string, unknown>>): Content => content as Content;

/** Converts a raw or already-checked schema; throws SchemaError if the input is invalid. */
export function convertSchema(input: unknown, options: ConvertOptions): Conversion {
  const checked = isChecked(input) ? input : check(input, options);
  return lower(checked, options.to);
}

function isChecked(input: unknown): input is CheckedSchema {
  return (
    typeof input === 'object' && input !== null && 'fields' in input && 'requestedSchema' in input
  );
}

function check(raw: unknown, options: ConvertOptions): CheckedSchema {
  const result = checkSchema(raw, {
    revision: options.from ?? LATEST_REVISION,
    limits: options.limits,
  });
  if (!result.ok) throw new SchemaError(result.errors);
  return result.schema;
}

const expansions = new WeakMap<CheckedSchema, Conversion>();

/** Lowers a checked schema to `to`. Memoised per checked schema for the legacy revision. */
export function lower(schema: CheckedSchema, to: Revision): Conversion {
  const features = revisionFeatures(to);
  const needsWork =
    !features.defaultsOnAll &&
    schema.fields.some(
      (f) =>
        f.kind === 'multiselect' ||
        f.default !== undefined ||
        (f.kind === 'select' && f.style === 'oneOf'),
    );
  if (!needsWork && (features.dollarSchema || schema.requestedSchema.$schema === undefined)) {
    return {
      revision: to,
      requestedSchema: schema.requestedSchema,
      notes: [],
      mapAnswer: identityMap,
      identity: true,
    };
  }
  const cached = expansions.get(schema);
  if (cached !== undefined && cached.revision === to) return cached;

  const notes: ConversionNote[] = [];
  const fields: Field[] = [];
  const taken = new Set(schema.fields.map((f) => f.name));
  const expanded: { field: MultiSelectField; keys: { key: string; value: string }[] }[] = [];
  for (const field of schema.fields) {
    if (field.kind === 'multiselect') {
      const keys: { key: string; value: string }[] = [];
      const label = field.title ?? field.name;
      field.options.forEach((option, i) => {
        let key = `${field.name}.${option.value}`;
        for (let n = 2; taken.has(key); n++) key = `${field.name}.${i}~${n}`;
        taken.add(key);
        keys.push({ key, value: option.value });
        const bool: BooleanField = {
          kind: 'boolean',
          name: key,
          title: `${label}: ${option.label}`,
          description: i === 0 ? field.description : undefined,
          required: false,
          default: field.default === undefined ? undefined : field.default.includes(option.value),
        };
        fields.push(bool);
      });
      expanded.push({ field, keys });
      notes.push({
        code: 'multiselect_as_booleans',
        field: field.name,
        message: `${field.name}: multi-select sent as ${keys.length} yes/no fields; the answer is mapped back to a list.`,
      });
      if (field.minItems !== undefined || field.maxItems !== undefined) {
        notes.push({
          code: 'items_bounds_after_answer',
          field: field.name,
          message: `${field.name}: minItems/maxItems cannot be shown to a ${to} client; they are checked on the answer.`,
        });
      }
      continue;
    }
    let lowered: Field = field;
    if (field.kind === 'select' && field.style === 'oneOf')
      lowered = { ...field, style: 'enumNames' };
    if (field.kind !== 'boolean' && field.default !== undefined) {
      notes.push({
        code: 'default_dropped',
        field: field.name,
        message: `${field.name}: a default on a ${field.kind} field cannot be sent to a ${to} client; it is applied if the answer leaves the field out.`,
      });
      lowered = { ...lowered, default: undefined } as Field;
    }
    fields.push(lowered);
  }
  const requestedSchema = emitSchema(fields);
  const mapAnswer = (content: Readonly<Record<string, unknown>>): Content => {
    if (expanded.length === 0) return content as Content;
    const out: Record<string, unknown> = {};
    const generated = new Set<string>();
    for (const { keys } of expanded) for (const { key } of keys) generated.add(key);
    for (const key of Object.keys(content)) if (!generated.has(key)) setOwn(out, key, content[key]);
    for (const { field, keys } of expanded) {
      // Unchecked boxes may be left out entirely: an accepted answer always has the list.
      const chosen: string[] = [];
      for (const { key, value } of keys) if (content[key] === true) chosen.push(value);
      setOwn(out, field.name, chosen);
    }
    return out as Content;
  };
  const conversion: Conversion = {
    revision: to,
    requestedSchema,
    notes,
    mapAnswer,
    identity: false,
  };
  expansions.set(schema, conversion);
  return conversion;
}
