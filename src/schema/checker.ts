/**
 * The checker's state and the keyword-level checks every field kind shares (text, counts, bounds,
 * order, revision features, options, unknown keywords). Field kinds are in check-fields.ts, the
 * root in check.ts.
 */
import { hasOwnValue } from '../kernel/own.ts';
import {
  describeType,
  formatPath,
  preview,
  type SchemaIssue,
  type SchemaIssueCode,
} from './issues.ts';
import type { Limits } from './limits.ts';
import { type Revision, revisionFeatures } from './revision.ts';
import type { Option } from './types.ts';

/** At most this many errors are reported for one schema; the last one says how many more. */
const MAX_ISSUES = 50;

export type Path = readonly (string | number)[];
export type Obj = Record<string, unknown>;

const COMMON = ['type', 'title', 'description', 'default'];
export const KNOWN: Record<string, ReadonlySet<string>> = {
  text: new Set([...COMMON, 'minLength', 'maxLength', 'pattern', 'format']),
  number: new Set([...COMMON, 'minimum', 'maximum']),
  boolean: new Set(COMMON),
  enum: new Set([...COMMON, 'enum', 'enumNames']),
  oneOf: new Set([...COMMON, 'oneOf']),
  multiselect: new Set([...COMMON, 'items', 'minItems', 'maxItems']),
};
export const ROOT_KNOWN = new Set(['$schema', 'type', 'properties', 'required']);

export function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export const has: (obj: Obj, key: string) => boolean = hasOwnValue;

export class Checker {
  readonly errors: SchemaIssue[] = [];
  readonly warnings: SchemaIssue[] = [];
  private dropped = 0;
  readonly revision: Revision;
  readonly limits: Limits;
  readonly features: ReturnType<typeof revisionFeatures>;
  /** Matcher steps the form's patterns can take on one answer, summed as fields are checked. */
  patternSteps = 0;
  /** The pattern fields and their steps, for the message when the sum is over the limit. */
  readonly patternFields: { readonly name: string; readonly steps: number }[] = [];

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
    // Paths are built only for a report.
    const at = (i: number): Path => [...path, i];
    const valueAt = (i: number): Path => (titled ? [...path, i, 'const'] : [...path, i]);
    for (let i = 0; i < list.length; i++) {
      const entry: unknown = list[i];
      let value: unknown = entry;
      let label: unknown;
      if (titled) {
        if (!isObject(entry)) {
          this.error(
            'option_invalid',
            at(i),
            `${formatPath(at(i))} must be an object {const, title}, got ${describeType(entry)}.`,
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
            [...at(i), 'title'],
            `${formatPath([...at(i), 'title'])} must be a non-empty string of at most ${this.limits.maxTextLength} characters.`,
          );
          ok = false;
          continue;
        }
        this.warnUnknown(entry, OPTION_KNOWN, at(i));
      }
      if (
        typeof value !== 'string' ||
        value.length === 0 ||
        value.length > this.limits.maxTextLength
      ) {
        this.error(
          'option_invalid',
          valueAt(i),
          `${formatPath(valueAt(i))} must be a non-empty string of at most ${this.limits.maxTextLength} characters, got ${preview(value)}.`,
        );
        ok = false;
        continue;
      }
      if (seen.has(value)) {
        this.error(
          'option_duplicate',
          valueAt(i),
          `${formatPath(valueAt(i))} repeats the option ${preview(value)}; each option must be unique.`,
        );
        ok = false;
        continue;
      }
      seen.add(value);
      out.push({ value, label: typeof label === 'string' ? label : value });
    }
    return ok ? out : undefined;
  }
}

const OPTION_KNOWN = new Set(['const', 'title']);
export const ITEMS_ANYOF_KNOWN = new Set(['anyOf', 'type']);
export const ITEMS_ENUM_KNOWN = new Set(['type', 'enum']);
