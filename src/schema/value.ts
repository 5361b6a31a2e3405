/**
 * Checks one answer value against one normalised field. Shared by answer validation and by the
 * schema checker (a `default` must be a valid answer for its own field).
 */
import { checkFormat } from './formats.ts';
import type { AnswerIssue, AnswerIssueCode } from './issues.ts';
import type { Field, Option, StringFormat } from './types.ts';

/** A field plus what validation needs precomputed (compiled regex, option lookup). */
export interface PreparedField {
  readonly field: Field;
  readonly name: string;
  readonly required: boolean;
  /** The name is also a property of Object.prototype: read it with an own-property check. */
  readonly inherited: boolean;
  readonly regex: RegExp | undefined;
  readonly options: ReadonlySet<string> | undefined;
  readonly maxAnswerLength: number;
}

export function prepareField(field: Field, maxAnswerLength: number): PreparedField {
  const options =
    field.kind === 'select' || field.kind === 'multiselect'
      ? new Set(field.options.map((o) => o.value))
      : undefined;
  return {
    field,
    name: field.name,
    required: field.required,
    inherited: field.name in Object.prototype,
    regex:
      field.kind === 'text' && field.pattern !== undefined
        ? new RegExp(field.pattern, 'u')
        : undefined,
    options,
    maxAnswerLength,
  };
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

function optionList(options: readonly Option[]): string {
  if (options.length > 8) return 'one of the listed options';
  return `one of: ${options.map((o) => o.label).join(', ')}`;
}

function issue(code: AnswerIssueCode, field: string, message: string): AnswerIssue {
  return { code, field, message };
}

/** Returns the first problem with `value` for this field, or undefined when it is valid. */
export function checkValue(p: PreparedField, value: unknown): AnswerIssue | undefined {
  const f = p.field;
  switch (f.kind) {
    case 'text': {
      if (typeof value !== 'string') return issue('type', p.name, 'Enter text.');
      if (value.length > p.maxAnswerLength) {
        return issue('too_large', p.name, `Enter at most ${p.maxAnswerLength} characters.`);
      }
      if (f.minLength !== undefined && value.length < f.minLength * 2) {
        if (codePointLength(value) < f.minLength) {
          return issue(
            'min_length',
            p.name,
            `Enter at least ${plural(f.minLength, 'character', 'characters')}.`,
          );
        }
      }
      if (f.maxLength !== undefined && value.length > f.maxLength) {
        if (codePointLength(value) > f.maxLength) {
          return issue(
            'max_length',
            p.name,
            `Enter at most ${plural(f.maxLength, 'character', 'characters')}.`,
          );
        }
      }
      if (f.format !== undefined && !checkFormat(f.format, value)) {
        return issue('format', p.name, FORMAT_HINT[f.format]);
      }
      if (p.regex !== undefined && !p.regex.test(value)) {
        return issue('pattern', p.name, `Use the expected format (pattern ${f.pattern}).`);
      }
      return undefined;
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        return issue('type', p.name, f.integer ? 'Enter a whole number.' : 'Enter a number.');
      }
      if (f.integer && !Number.isInteger(value))
        return issue('integer', p.name, 'Enter a whole number.');
      if (f.minimum !== undefined && value < f.minimum) {
        return issue('minimum', p.name, `Enter a number of at least ${f.minimum}.`);
      }
      if (f.maximum !== undefined && value > f.maximum) {
        return issue('maximum', p.name, `Enter a number of at most ${f.maximum}.`);
      }
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : issue('type', p.name, 'Choose yes or no.');
    case 'select':
      if (typeof value !== 'string' || !(p.options as ReadonlySet<string>).has(value)) {
        return issue('option', p.name, `Choose ${optionList(f.options)}.`);
      }
      return undefined;
    case 'multiselect': {
      if (!Array.isArray(value)) return issue('type', p.name, 'Choose from the listed options.');
      const options = p.options as ReadonlySet<string>;
      if (f.maxItems !== undefined && value.length > f.maxItems) {
        return issue('max_items', p.name, `Choose at most ${f.maxItems}.`);
      }
      if (value.length > options.size) {
        return issue('duplicate_item', p.name, 'Choose each option only once.');
      }
      const seen = value.length > 8 ? new Set<string>() : undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item !== 'string' || !options.has(item)) {
          return issue(
            'option',
            p.name,
            `Choose only from ${optionList(f.options).replace(/^one of/, 'these')}.`,
          );
        }
        if (seen !== undefined) {
          if (seen.has(item))
            return issue('duplicate_item', p.name, 'Choose each option only once.');
          seen.add(item);
        } else {
          for (let j = 0; j < i; j++) {
            if (value[j] === item)
              return issue('duplicate_item', p.name, 'Choose each option only once.');
          }
        }
      }
      if (f.minItems !== undefined && value.length < f.minItems) {
        return issue('min_items', p.name, `Choose at least ${f.minItems}.`);
      }
      return undefined;
    }
  }
}
