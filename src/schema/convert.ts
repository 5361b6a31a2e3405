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
 *
 * A lowered form is checked against the target revision with the form's own limits before it
 * is handed out: one that a peer would refuse (a multi-select expanded past `maxProperties`,
 * a generated name past `maxKeyLength`, …) throws ConversionError instead of being sent.
 */

import { ElicitError } from '../errors.ts';
import { ELICIT_CONVERSION_LIMIT } from '../kernel/error-codes.ts';
import { type CheckedSchema, type CheckOptions, checkSchema } from './check.ts';
import { SchemaError, setOwn } from './compile.ts';
import { emitSchema } from './emit.ts';
import type { SchemaIssue } from './issues.ts';
import type { Limits } from './limits.ts';
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

/**
 * A form cannot be lowered for an older peer without breaking one of the limits it would be
 * checked against there. Nothing was sent; `field` and `limit` say what to change.
 */
export class ConversionError extends ElicitError {
  /** The field of the original form (undefined: the form as a whole). */
  readonly field: string | undefined;
  /** The limit the lowered form would break (a `Limits` name), or `revision` for anything else. */
  readonly limit: keyof Limits | 'revision';
  constructor(
    revision: Revision,
    field: string | undefined,
    limit: keyof Limits | 'revision',
    detail: string,
  ) {
    super(
      ELICIT_CONVERSION_LIMIT,
      `This form cannot be sent to a ${revision} client: ${field === undefined ? 'the form' : `field "${field}"`} ${detail} Ask the person with a smaller form (fewer options or fields), or ask a client on a newer revision.`,
    );
    this.field = field;
    this.limit = limit;
  }
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

// Every conversion is kept per checked schema and revision: a form asked on every call lowers once.
const conversions = new WeakMap<CheckedSchema, Map<Revision, Conversion>>();

/** Lowers a checked schema to `to`. Memoised per checked schema and revision. */
export function lower(schema: CheckedSchema, to: Revision): Conversion {
  let byRevision = conversions.get(schema);
  const known = byRevision?.get(to);
  if (known !== undefined) return known;
  const made = convert(schema, to);
  if (byRevision === undefined) conversions.set(schema, (byRevision = new Map()));
  byRevision.set(to, made);
  return made;
}

function convert(schema: CheckedSchema, to: Revision): Conversion {
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
    return Object.freeze({
      revision: to,
      requestedSchema: schema.requestedSchema,
      notes: Object.freeze([]),
      mapAnswer: identityMap,
      identity: true,
    });
  }

  const notes: ConversionNote[] = [];
  const fields: Field[] = [];
  const { limits } = schema;
  const taken = new Set(schema.fields.map((f) => f.name));
  // Expanding multi-selects adds a property per option, less the one it replaces.
  let properties = schema.fields.length;
  const expanded: { field: MultiSelectField; keys: { key: string; value: string }[] }[] = [];
  for (const field of schema.fields) {
    if (field.kind === 'multiselect') {
      properties += field.options.length - 1;
      if (properties > limits.maxProperties)
        throw new ConversionError(
          to,
          field.name,
          'maxProperties',
          `is a multi-select of ${field.options.length} options, sent as one yes/no field each, which makes the form ${properties} properties; the limit is ${limits.maxProperties} (maxProperties).`,
        );
      const keys: { key: string; value: string }[] = [];
      const label = field.title ?? field.name;
      field.options.forEach((option, i) => {
        let key = `${field.name}.${option.value}`;
        // A long option value makes a long name: the option's index names it instead.
        if (key.length > limits.maxKeyLength) key = `${field.name}.${i}`;
        for (let n = 2; taken.has(key); n++) key = `${field.name}.${i}~${n}`;
        if (key.length > limits.maxKeyLength)
          throw new ConversionError(
            to,
            field.name,
            'maxKeyLength',
            `is a multi-select whose yes/no fields would be named "${key.slice(0, 40)}…" (${key.length} characters); the limit is ${limits.maxKeyLength} (maxKeyLength). Use a shorter field name.`,
          );
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
  // The safety net: the lowered form passes the check the peer will run, or is not sent.
  const verdict = checkSchema(requestedSchema, { revision: to, limits });
  if (!verdict.ok) throw refusal(to, verdict.errors, expanded);
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
  // Shared by every call that lowers this schema: frozen.
  return Object.freeze({
    revision: to,
    requestedSchema,
    notes: Object.freeze(notes),
    mapAnswer,
    identity: false,
  });
}

const LIMIT_OF: Partial<Record<SchemaIssue['code'], keyof Limits>> = {
  too_many_properties: 'maxProperties',
  too_many_options: 'maxOptions',
  too_long: 'maxTextLength',
  too_large: 'maxSize',
  too_deep: 'maxDepth',
  property_name: 'maxKeyLength',
};

/** The first issue of a lowered form, named by the original field it came from. */
function refusal(
  to: Revision,
  issues: readonly SchemaIssue[],
  expanded: readonly { field: MultiSelectField; keys: readonly { key: string }[] }[],
): ConversionError {
  const issue = issues[0] as SchemaIssue;
  const name = issue.path[0] === 'properties' ? issue.path[1] : undefined;
  let field = typeof name === 'string' ? name : undefined;
  for (const { field: multi, keys } of expanded)
    if (keys.some((k) => k.key === field)) field = multi.name;
  if (field === undefined && issue.code === 'too_large') {
    // The whole form grew too large: name the multi-select that grew it most.
    let most = 0;
    for (const { field: multi, keys } of expanded)
      if (keys.length > most) [most, field] = [keys.length, multi.name];
  }
  const limit = LIMIT_OF[issue.code] ?? 'revision';
  return new ConversionError(
    to,
    field,
    limit,
    `would be refused once lowered: ${issue.message}${limit === 'revision' ? '' : ` (${limit})`}`,
  );
}
