/**
 * Checks a raw `requestedSchema` against the restricted subset of one protocol revision and
 * turns it into the normalised field model. Never throws on bad input: every problem becomes a
 * SchemaIssue with a path, a stable code and a message that says what to do.
 */
import { checkField } from './check-fields.ts';
import { Checker, has, isObject, ROOT_KNOWN } from './checker.ts';
import { describeType, formatPath, preview, type SchemaIssue } from './issues.ts';
import { DEFAULT_LIMITS, type Limits, resolveLimits } from './limits.ts';
import { measureJson } from './measure.ts';
import { formatSteps } from './pattern.ts';
import { LATEST_REVISION, type Revision } from './revision.ts';
import { sensitiveKind } from './sensitive.ts';
import type { Field, RequestedSchema } from './types.ts';

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
    const field = checkField(c, name, props[name], path, required.has(name));
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
  if (c.patternSteps > limits.maxPatternWork) {
    const costliest = [...c.patternFields]
      .sort((a, b) => b.steps - a.steps)
      .slice(0, 3)
      .map((f) => `${preview(f.name)} ${formatSteps(f.steps)}`)
      .join(', ');
    c.error(
      'form_too_costly',
      ['properties'],
      `Checking an answer against this form's patterns can take ${formatSteps(c.patternSteps)} matcher steps, more than limits.maxPatternWork (${formatSteps(limits.maxPatternWork)}); the costliest are ${costliest}. Give those fields a smaller maxLength, simplify their patterns, or split the form.`,
    );
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
