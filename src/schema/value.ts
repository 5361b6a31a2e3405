/**
 * Checks one answer value against one normalised field. Shared by answer validation and by the
 * schema checker (a `default` must be a valid answer for its own field).
 *
 * Each field is prepared once into a specialised closure, and every issue it can report is a
 * frozen object built at preparation time: validating allocates nothing but the issues array.
 */
import { checkFormat } from './formats.ts';
import type { AnswerIssue, AnswerIssueCode } from './issues.ts';
import type { Limits } from './limits.ts';
import { type CompiledPattern, compilePattern } from './pattern.ts';
import type { Field, Option, StringFormat } from './types.ts';

/** A field plus its specialised check. */
export interface PreparedField {
  readonly field: Field;
  readonly name: string;
  readonly required: boolean;
  /** The name is also a property of Object.prototype: read it with an own-property check. */
  readonly inherited: boolean;
  readonly missing: AnswerIssue;
  /** Longest string answer checked (lower for a pattern field: limits.maxPatternInput). */
  readonly maxChars: number;
  /** The field's pattern, compiled for linear-time tests. */
  readonly pattern: CompiledPattern | undefined;
  /** Every issue this field can report, by code (built once, frozen). */
  readonly issues: Readonly<Partial<Record<AnswerIssueCode, AnswerIssue>>>;
  /** The first problem with a present value, or undefined when it is valid. */
  readonly check: (value: unknown) => AnswerIssue | undefined;
}

/** Length in Unicode code points, as JSON Schema counts it. */
export function codePointLength(value: string): number {
  let n = value.length;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const d = value.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

const FORMAT_HINT: Record<StringFormat, string> = {
  email: 'Enter an email address such as name@example.com.',
  uri: 'Enter an absolute URL such as https://example.com/page.',
  date: 'Enter a date as YYYY-MM-DD, for example 2025-01-31.',
  'date-time': 'Enter a date and time such as 2025-01-31T09:30:00Z.',
};

export function formatHint(format: StringFormat): string {
  return FORMAT_HINT[format];
}

function optionList(options: readonly Option[], lead: string): string {
  if (options.length > 8) return `${lead} the listed options`;
  return `${lead}: ${options.map((o) => o.label).join(', ')}`;
}

type FieldLimits = Pick<
  Limits,
  'maxAnswerLength' | 'maxPatternStates' | 'maxPatternInput' | 'maxPatternWork'
>;

export function prepareField(field: Field, limits: FieldLimits): PreparedField {
  const name = field.name;
  const issues: Partial<Record<AnswerIssueCode, AnswerIssue>> = {};
  const issue = (code: AnswerIssueCode, message: string): AnswerIssue => {
    const made = Object.freeze({ code, field: name, message });
    issues[code] = made;
    return made;
  };
  const missing = issue('required', 'This field is required.');
  const pattern =
    field.kind === 'text' && field.pattern !== undefined
      ? compilePattern(field.pattern, limits, field.maxLength)
      : undefined;
  // A pattern is only ever tested on input it can check quickly: longer answers are refused.
  const maxChars =
    pattern === undefined
      ? limits.maxAnswerLength
      : Math.min(limits.maxAnswerLength, limits.maxPatternInput);
  const check = specialise(field, maxChars, pattern, issue);
  return {
    field,
    maxChars,
    pattern,
    name,
    required: field.required,
    inherited: name in Object.prototype,
    missing,
    issues,
    check,
  };
}

type MakeIssue = (code: AnswerIssueCode, message: string) => AnswerIssue;

function specialise(
  f: Field,
  maxAnswerLength: number,
  regex: CompiledPattern | undefined,
  issue: MakeIssue,
): (value: unknown) => AnswerIssue | undefined {
  switch (f.kind) {
    case 'text': {
      const { minLength: min, maxLength: max, format } = f;
      const wrongType = issue('type', 'Enter text.');
      const tooLarge = issue('too_large', `Enter at most ${maxAnswerLength} characters.`);
      const short =
        min === undefined
          ? undefined
          : issue('min_length', `Enter at least ${plural(min, 'character', 'characters')}.`);
      const long =
        max === undefined
          ? undefined
          : issue('max_length', `Enter at most ${plural(max, 'character', 'characters')}.`);
      const badFormat = format === undefined ? undefined : issue('format', FORMAT_HINT[format]);
      const badPattern = issue('pattern', `Use the expected format (pattern ${f.pattern}).`);
      return (v) => {
        if (typeof v !== 'string') return wrongType;
        const len = v.length;
        if (len > maxAnswerLength) return tooLarge;
        // UTF-16 length bounds the code point count from both sides: count only when unsure.
        if (min !== undefined && len < min * 2 && codePointLength(v) < min) return short;
        if (max !== undefined && len > max && codePointLength(v) > max) return long;
        if (format !== undefined && !checkFormat(format, v)) return badFormat;
        if (regex !== undefined && !regex.test(v)) return badPattern;
        return undefined;
      };
    }
    case 'number': {
      const { minimum: min, maximum: max, integer } = f;
      const wrongType = issue('type', integer ? 'Enter a whole number.' : 'Enter a number.');
      const notInteger = issue('integer', 'Enter a whole number.');
      const low = issue('minimum', `Enter a number of at least ${min}.`);
      const high = issue('maximum', `Enter a number of at most ${max}.`);
      return (v) => {
        if (typeof v !== 'number' || !Number.isFinite(v)) return wrongType;
        if (integer && !Number.isInteger(v)) return notInteger;
        if (min !== undefined && v < min) return low;
        if (max !== undefined && v > max) return high;
        return undefined;
      };
    }
    case 'boolean': {
      const wrongType = issue('type', 'Choose yes or no.');
      return (v) => (typeof v === 'boolean' ? undefined : wrongType);
    }
    case 'select': {
      const values = f.options.map((o) => o.value);
      const set = values.length > 8 ? new Set(values) : undefined;
      const wrong = issue('option', `Choose ${optionList(f.options, 'one of')}.`);
      return (v) => {
        if (typeof v !== 'string') return wrong;
        return (set === undefined ? values.includes(v) : set.has(v)) ? undefined : wrong;
      };
    }
    case 'multiselect': {
      const options = new Set(f.options.map((o) => o.value));
      const { minItems, maxItems } = f;
      const wrongType = issue('type', 'Choose from the listed options.');
      const wrong = issue('option', `Choose only ${optionList(f.options, 'from')}.`);
      const repeated = issue('duplicate_item', 'Choose each option only once.');
      const few = issue('min_items', `Choose at least ${minItems}.`);
      const many = issue('max_items', `Choose at most ${maxItems}.`);
      return (v) => {
        if (!Array.isArray(v)) return wrongType;
        if (maxItems !== undefined && v.length > maxItems) return many;
        if (v.length > options.size) return repeated;
        const seen = v.length > 8 ? new Set<string>() : undefined;
        for (let i = 0; i < v.length; i++) {
          const item: unknown = v[i];
          if (typeof item !== 'string' || !options.has(item)) return wrong;
          if (seen !== undefined) {
            if (seen.has(item)) return repeated;
            seen.add(item);
          } else {
            for (let j = 0; j < i; j++) if (v[j] === item) return repeated;
          }
        }
        if (minItems !== undefined && v.length < minItems) return few;
        return undefined;
      };
    }
  }
}
