/**
 * Each field kind of the restricted subset, one function per kind: select (enum / oneOf /
 * enumNames), text, number, boolean and multi-select, plus the `default` every kind may carry.
 * What each problem says is in one table (SAY), so the wording stays consistent.
 */
import {
  type Checker,
  has,
  ITEMS_ANYOF_KNOWN,
  ITEMS_ENUM_KNOWN,
  isObject,
  KNOWN,
  type Obj,
  type Path,
} from './checker.ts';
import { describeType, formatPath, preview } from './issues.ts';
import { patternCost } from './pattern.ts';
import {
  type Field,
  type MultiSelectStyle,
  type Option,
  STRING_FORMATS,
  type StringFormat,
} from './types.ts';
import { prepareField } from './value.ts';

const TYPES = '"string", "number", "integer", "boolean" or "array"';

/** What the field checks say, by problem. */
const SAY = {
  notFieldObject: (p: Path, raw: unknown) =>
    `${formatPath(p)} must be a field schema object, got ${describeType(raw)}.`,
  enumAndOneOf: (p: Path) => `${formatPath(p)} has both enum and oneOf; use one of them.`,
  enumNamesType: (p: Path) => `${formatPath(p)} must be an array of strings.`,
  enumNamesLength: (p: Path, names: number, values: number) =>
    `${formatPath(p)} has ${names} names for ${values} enum values; give exactly one name per value.`,
  unknownFormat: (p: Path, format: unknown) =>
    `${formatPath(p)} is ${preview(format)}; the known formats are ${STRING_FORMATS.join(', ')}. Remove it or use one of them.`,
  pattern: (p: Path, problem: string) => `${formatPath(p)} ${problem}.`,
  nested: (p: Path) =>
    `${formatPath(p)} is an object; elicitation forms are flat. Split it into top-level properties.`,
  typeMissing: (p: Path) => `${formatPath(p)} is missing; use ${TYPES}.`,
  typeUnknown: (p: Path, type: unknown) => `${formatPath(p)} is ${preview(type)}; use ${TYPES}.`,
  itemsType: (p: Path, items: unknown) =>
    `${formatPath(p)} must be an object with enum or anyOf, got ${describeType(items)}.`,
  itemsNested: (p: Path) =>
    `${formatPath(p)} describes objects; multi-select items must be string options.`,
  enumItemsType: (p: Path) => `${formatPath(p)} must be "string" for enum items.`,
  itemsShape: (p: Path) =>
    `${formatPath(p)} must have exactly one of enum (untitled options) or anyOf (titled options); arrays of free values are not allowed.`,
  minItemsOverOptions: (p: Path, minItems: number, options: number) =>
    `${formatPath(p)} is ${minItems} but there are only ${options} options.`,
  defaultInvalid: (p: Path, value: unknown, problem: string) =>
    `${formatPath(p)} (${preview(value)}) is not a valid answer for its own field: ${problem}`,
} as const;

type Base = Pick<Field, 'name' | 'title' | 'description' | 'required'>;
/** A kind's verdict: the field (undefined when its keywords had errors) and its known keywords. */
type Checked = { readonly field: Field | undefined; readonly known: ReadonlySet<string> };

/** One property: its kind decided by `type` (and enum/oneOf), its keywords checked. */
export function checkField(
  c: Checker,
  name: string,
  raw: unknown,
  path: Path,
  required: boolean,
): Field | undefined {
  if (!isObject(raw)) {
    c.error('property_not_object', path, SAY.notFieldObject(path, raw));
    return undefined;
  }
  const type = raw.type;
  const before = c.errors.length;
  const title = c.text(raw, 'title', path);
  const description = c.text(raw, 'description', path);
  const base: Base = { name, title, description, required };
  let checked: Checked | undefined;
  if (type === 'string' && (has(raw, 'enum') || has(raw, 'oneOf')))
    checked = checkSelect(c, raw, path, base);
  else if (type === 'string') checked = checkText(c, raw, path, base);
  else if (type === 'number' || type === 'integer')
    checked = checkNumber(c, raw, path, base, type === 'integer');
  else if (type === 'boolean')
    checked = {
      field: { ...base, kind: 'boolean', default: undefined },
      known: KNOWN.boolean as ReadonlySet<string>,
    };
  else if (type === 'array') checked = checkMultiselect(c, raw, path, base);
  else if (type === 'object' || (type === undefined && has(raw, 'properties')))
    c.error('nested', path, SAY.nested(path));
  else {
    const at = [...path, 'type'];
    c.error(
      'property_type',
      at,
      type === undefined ? SAY.typeMissing(at) : SAY.typeUnknown(at, type),
    );
  }
  if (checked === undefined) return undefined;
  c.warnUnknown(raw, checked.known, path);
  if (checked.field === undefined || c.errors.length > before) return undefined;
  return withDefault(c, checked.field, raw, path);
}

function checkSelect(c: Checker, raw: Obj, path: Path, base: Base): Checked | undefined {
  if (has(raw, 'enum') && has(raw, 'oneOf')) {
    c.error('keyword_conflict', path, SAY.enumAndOneOf(path));
    return undefined;
  }
  const titled = has(raw, 'oneOf');
  const known = KNOWN[titled ? 'oneOf' : 'enum'] as ReadonlySet<string>;
  if (
    titled &&
    !c.needs(c.features.titledSelect, raw, 'oneOf', path, 'a titled single-select (oneOf)')
  )
    return undefined;
  const options = c.options(
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
      names.some((n) => typeof n !== 'string' || n.length > c.limits.maxTextLength)
    ) {
      c.error('keyword_type', at, SAY.enumNamesType(at));
    } else if (names.length !== options.length) {
      c.error('enum_names_length', at, SAY.enumNamesLength(at, names.length, options.length));
    } else {
      style = 'enumNames';
      labelled = options.map((o, i) => ({ value: o.value, label: names[i] as string }));
    }
  }
  c.needs(c.features.defaultsOnAll, raw, 'default', path, '`default` on a select field');
  const field: Field | undefined =
    labelled === undefined
      ? undefined
      : { ...base, kind: 'select', style, options: labelled, default: undefined };
  return { field, known };
}

function checkText(c: Checker, raw: Obj, path: Path, base: Base): Checked {
  const minLength = c.count(raw, 'minLength', path);
  const maxLength = c.count(raw, 'maxLength', path);
  c.order(minLength, maxLength, path, 'minLength', 'maxLength');
  let format: StringFormat | undefined;
  if (has(raw, 'format')) {
    if (STRING_FORMATS.includes(raw.format as StringFormat)) format = raw.format as StringFormat;
    else {
      const at = [...path, 'format'];
      c.error('format_unknown', at, SAY.unknownFormat(at, raw.format));
    }
  }
  const pattern = c.text(raw, 'pattern', path, c.limits.maxPatternLength);
  // Once the form is over its pattern budget it is refused: compiling more patterns would only
  // spend the time the budget exists to bound.
  const cost =
    pattern === undefined || c.patternSteps > c.limits.maxPatternWork
      ? undefined
      : patternCost(pattern, c.limits, maxLength);
  if (cost !== undefined && 'code' in cost) {
    const at = [...path, 'pattern'];
    c.error(cost.code, at, SAY.pattern(at, cost.message));
  } else if (cost !== undefined) {
    c.patternSteps += cost.steps;
    c.patternFields.push({ name: base.name, steps: cost.steps });
  }
  c.needs(c.features.defaultsOnAll, raw, 'default', path, '`default` on a text field');
  return {
    field: { ...base, kind: 'text', minLength, maxLength, pattern, format, default: undefined },
    known: KNOWN.text as ReadonlySet<string>,
  };
}

function checkNumber(c: Checker, raw: Obj, path: Path, base: Base, integer: boolean): Checked {
  const minimum = c.bound(raw, 'minimum', path);
  const maximum = c.bound(raw, 'maximum', path);
  c.order(minimum, maximum, path, 'minimum', 'maximum');
  c.needs(c.features.defaultsOnAll, raw, 'default', path, '`default` on a number field');
  return {
    field: { ...base, kind: 'number', integer, minimum, maximum, default: undefined },
    known: KNOWN.number as ReadonlySet<string>,
  };
}

function checkMultiselect(c: Checker, raw: Obj, path: Path, base: Base): Checked | undefined {
  if (!c.needs(c.features.multiSelect, raw, 'type', path, 'a multi-select (type "array")'))
    return undefined;
  const known = KNOWN.multiselect as ReadonlySet<string>;
  const items = raw.items;
  const at = [...path, 'items'];
  if (!isObject(items)) {
    c.error('keyword_type', at, SAY.itemsType(at, items));
    return { field: undefined, known };
  }
  if (items.type === 'object' || has(items, 'properties')) {
    c.error('nested', at, SAY.itemsNested(at));
    return { field: undefined, known };
  }
  let style: MultiSelectStyle;
  let options: Option[] | undefined;
  if (has(items, 'anyOf') && !has(items, 'enum')) {
    style = 'anyOf';
    options = c.options(items.anyOf, [...at, 'anyOf'], true);
    c.warnUnknown(items, ITEMS_ANYOF_KNOWN, at);
  } else if (has(items, 'enum') && !has(items, 'anyOf')) {
    style = 'enum';
    if (items.type !== 'string')
      c.error('keyword_type', [...at, 'type'], SAY.enumItemsType([...at, 'type']));
    options = c.options(items.enum, [...at, 'enum'], false);
    c.warnUnknown(items, ITEMS_ENUM_KNOWN, at);
  } else {
    c.error(has(items, 'enum') ? 'keyword_conflict' : 'property_type', at, SAY.itemsShape(at));
    return { field: undefined, known };
  }
  const minItems = c.count(raw, 'minItems', path);
  const maxItems = c.count(raw, 'maxItems', path);
  c.order(minItems, maxItems, path, 'minItems', 'maxItems');
  if (options !== undefined && minItems !== undefined && minItems > options.length) {
    const p = [...path, 'minItems'];
    c.error('keyword_range', p, SAY.minItemsOverOptions(p, minItems, options.length));
  }
  if (options === undefined) return { field: undefined, known };
  const field = {
    ...base,
    kind: 'multiselect',
    style,
    options,
    minItems,
    maxItems,
    default: undefined,
  } as Field;
  return { field, known };
}

/** A `default`, checked as an answer to its own field. */
function withDefault(c: Checker, field: Field, raw: Obj, path: Path): Field | undefined {
  if (!has(raw, 'default')) return field;
  // Once the patterns so far are over the form's budget the form is refused (form_too_costly):
  // testing more defaults would only spend the time the budget exists to bound.
  if (c.patternSteps > c.limits.maxPatternWork) return field;
  const value = raw.default;
  const limits = { ...c.limits, maxAnswerLength: c.limits.maxTextLength };
  const problem = prepareField(field, limits).check(value);
  if (problem !== undefined) {
    const at = [...path, 'default'];
    c.error('default_invalid', at, SAY.defaultInvalid(at, value, problem.message));
    return undefined;
  }
  return { ...field, default: Array.isArray(value) ? Object.freeze([...value]) : value } as Field;
}
