/**
 * Headless state of one form: what the person entered per field, the errors, the review, the
 * answer. Every renderer (terminal, web element, scripted) drives one, so they all behave the
 * same: optional fields may stay empty, what was entered is kept when it is invalid (typed text,
 * multi-select ticks) so it can be corrected, and field names are only ever keys of Maps or own
 * properties (`constructor`, `__proto__`, `toString` are ordinary names here).
 */
import { hasOwnValue, setOwn } from '../kernel/own.ts';
import {
  type AnswerIssue,
  applyDefaults,
  type CompiledSchema,
  coerceText,
  type Field,
} from '../schema/index.ts';
import { sensitiveKind } from '../schema/internal.ts';
import { inert } from './inert.ts';
import type { FormResponse } from './types.ts';

export interface ReviewRow {
  readonly name: string;
  readonly label: string;
  readonly value: string;
  readonly error: string | undefined;
}

/** What a form's state starts from: a `FormRequest` is one. */
export interface FormStart {
  readonly schema: CompiledSchema;
  /** Problems of a previous attempt, shown until the field changes. */
  readonly issues?: readonly { readonly field?: string | undefined; readonly message: string }[];
  /**
   * Values to start from (own properties only), defaults included: a field missing here starts
   * empty, so a field cleared in a previous attempt stays cleared. Absent: the schema's defaults.
   */
  readonly initial?: Readonly<Record<string, unknown>>;
}

/** A problem with the answer as entered: a field's, or the whole answer's (`field` undefined). */
export interface FormProblem {
  readonly field: string | undefined;
  readonly message: string;
}

export type SubmitResult =
  | { readonly ok: true; readonly content: Record<string, unknown> }
  | { readonly ok: false; readonly problems: readonly FormProblem[] };

/** How text from the server is made safe for display; the terminal's default is `inert`. */
export type SafeText = (text: string, max: number) => string;

const inertText: SafeText = (text, max) => inert(text, max, false);

const REQUIRED_MESSAGE = 'This field is required.';

/** An object with exactly one own property, whatever its name (`__proto__` included). */
function only(name: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  setOwn(out, name, value);
  return out;
}

export class FormState {
  readonly schema: CompiledSchema;
  readonly fields: readonly Field[];
  /** Entered values (coerced; possibly invalid against the schema, so they can be shown again). */
  private readonly values = new Map<string, unknown>();
  /** Typed text that could not be read as a value, kept so the person can correct it. */
  private readonly drafts = new Map<string, string>();
  private readonly errors = new Map<string, string>();
  private readonly byName = new Map<string, Field>();

  constructor(start: FormStart) {
    this.schema = start.schema;
    this.fields = start.schema.fields;
    for (const f of this.fields) this.byName.set(f.name, f);
    const from = start.initial ?? applyDefaults(start.schema, {});
    for (const f of this.fields)
      if (hasOwnValue(from, f.name)) this.values.set(f.name, from[f.name]);
    for (const issue of start.issues ?? [])
      if (issue.field !== undefined && this.byName.has(issue.field))
        this.errors.set(issue.field, issue.message);
  }

  field(name: string): Field | undefined {
    return this.byName.get(name);
  }

  /**
   * A caution for the person when the server's form asks for something a form must never ask for
   * (a password, token, API key, card or account number): such values belong on the server's own
   * page (URL mode), so a form asking for them may be an attempt to collect them. Empty otherwise.
   */
  cautions(safe: SafeText = inertText): string[] {
    const out: string[] = [];
    for (const f of this.fields) {
      const what = sensitiveKind(f);
      if (what !== undefined)
        out.push(
          `"${safe(f.title ?? f.name, 80)}" looks like it asks for ${what}. Servers must not ask for that in a form; unless you expected it, decline.`,
        );
    }
    return out;
  }

  label(f: Field, safe: SafeText = inertText): string {
    return safe(f.title ?? f.name, 120);
  }

  /** The entered value, or undefined when the field is empty (or holds unreadable text). */
  value(name: string): unknown {
    return this.values.get(name);
  }

  /** What a text input for the field shows: the unreadable text typed last, or the value. */
  text(name: string): string {
    const draft = this.drafts.get(name);
    if (draft !== undefined) return draft;
    const v = this.values.get(name);
    return v === undefined ? '' : String(v);
  }

  /** Multi-select ticks as entered (kept when they fail validation). */
  ticks(name: string): string[] {
    const v = this.values.get(name);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }

  error(name: string): string | undefined {
    return this.errors.get(name);
  }

  /** Sets a text or number field from typed text; returns the error, or undefined when accepted. */
  enter(f: Field, text: string): string | undefined {
    const coerced = coerceText(f, text);
    if (!coerced.ok) {
      this.values.delete(f.name);
      this.drafts.set(f.name, text);
      return this.mark(f, coerced.message);
    }
    this.drafts.delete(f.name);
    return this.set(f, coerced.value);
  }

  /**
   * Sets a field to a value (`undefined` empties it). The value is kept even when invalid, so a
   * renderer can show it again; the error is returned. An optional multi-select left with no
   * ticks is omitted when an empty list would not be valid (the spec lets optional fields be
   * left out).
   */
  set(f: Field, value: unknown): string | undefined {
    this.drafts.delete(f.name);
    if (
      f.kind === 'multiselect' &&
      !f.required &&
      Array.isArray(value) &&
      value.length === 0 &&
      this.check(f, value) !== undefined
    )
      value = undefined;
    if (value === undefined) {
      this.values.delete(f.name);
      return this.mark(f, f.required ? REQUIRED_MESSAGE : undefined);
    }
    this.values.set(f.name, value);
    return this.mark(f, this.check(f, value));
  }

  clear(f: Field): string | undefined {
    return this.set(f, undefined);
  }

  private check(f: Field, value: unknown): string | undefined {
    return this.schema
      .validate(only(f.name, value))
      .find((i) => i.field === f.name && i.code !== 'required')?.message;
  }

  private mark(f: Field, message: string | undefined): string | undefined {
    if (message === undefined) this.errors.delete(f.name);
    else this.errors.set(f.name, message);
    return message;
  }

  /** The answer as entered (own properties only; may still have problems). */
  content(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of this.fields)
      if (this.values.has(f.name)) setOwn(out, f.name, this.values.get(f.name));
    return out;
  }

  /** Problems the answer still has: unreadable text, field checks, required fields. */
  problems(): readonly FormProblem[] {
    const out: FormProblem[] = [];
    for (const [field, text] of this.drafts) {
      const f = this.byName.get(field);
      const coerced = f === undefined ? undefined : coerceText(f, text);
      if (coerced !== undefined && !coerced.ok) out.push({ field, message: coerced.message });
    }
    const issues: readonly AnswerIssue[] = this.schema.validate(this.content());
    for (const i of issues)
      if (i.field === undefined || !this.drafts.has(i.field))
        out.push({ field: i.field, message: i.message });
    return out;
  }

  review(safe: SafeText = inertText): ReviewRow[] {
    const problems = new Map<string | undefined, string>();
    for (const p of this.problems()) if (!problems.has(p.field)) problems.set(p.field, p.message);
    return this.fields.map((f) => ({
      name: f.name,
      label: this.label(f, safe),
      value: this.display(f, safe),
      error: problems.get(f.name),
    }));
  }

  display(f: Field, safe: SafeText = inertText): string {
    if (this.drafts.has(f.name)) return safe(this.drafts.get(f.name) as string, 200);
    const v = this.values.get(f.name);
    if (v === undefined) return '—';
    if (f.kind === 'select')
      return safe(f.options.find((o) => o.value === v)?.label ?? String(v), 120);
    if (f.kind === 'multiselect' && Array.isArray(v))
      return (
        v
          .map((x) => safe(f.options.find((o) => o.value === x)?.label ?? String(x), 60))
          .join(', ') || '(none)'
      );
    if (typeof v === 'boolean') return v ? 'Yes' : 'No';
    return safe(String(v), 200);
  }

  /** The answer when it has no problems; otherwise every problem, also marked on its field. */
  submit(): SubmitResult {
    const problems = this.problems();
    if (problems.length === 0) return { ok: true, content: this.content() };
    for (const p of problems)
      if (p.field !== undefined && !this.errors.has(p.field)) this.errors.set(p.field, p.message);
    return { ok: false, problems };
  }

  /** `accept` with the answer as entered (the pipeline validates it again). */
  accept(): FormResponse {
    return { action: 'accept', content: this.content() };
  }
}
