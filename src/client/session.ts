/**
 * Headless state of one form request: values per field (from typed text), errors, the review
 * summary. Renderers drive it; it knows nothing about terminals or the DOM.
 */
import { type AnswerIssue, coerceText, type Field } from '../schema/index.ts';
import { inert } from './inert.ts';
import type { FormRequest, FormResponse } from './types.ts';

export interface ReviewRow {
  readonly name: string;
  readonly label: string;
  readonly value: string;
  readonly error: string | undefined;
}

export class FormSession {
  readonly request: FormRequest;
  readonly fields: readonly Field[];
  private readonly values = new Map<string, unknown>();
  private readonly errors = new Map<string, string>();

  constructor(request: FormRequest) {
    this.request = request;
    this.fields = request.schema.fields;
    for (const f of this.fields) {
      if (Object.hasOwn(request.initial, f.name) && request.initial[f.name] !== undefined)
        this.values.set(f.name, request.initial[f.name]);
    }
    for (const issue of request.issues)
      if (issue.field !== undefined) this.errors.set(issue.field, issue.message);
  }

  label(f: Field): string {
    return inert(f.title ?? f.name, 120, false);
  }

  value(name: string): unknown {
    return this.values.get(name);
  }

  error(name: string): string | undefined {
    return this.errors.get(name);
  }

  /** Sets a field from typed text; returns an error message, or undefined when accepted. */
  enter(f: Field, text: string): string | undefined {
    const coerced = coerceText(f, text);
    if (!coerced.ok) return coerced.message;
    if (coerced.value === undefined) {
      if (f.required) return 'This field is required.';
      this.values.delete(f.name);
      this.errors.delete(f.name);
      return undefined;
    }
    return this.set(f, coerced.value);
  }

  /** Sets a field to a typed value (selects, booleans); returns an error or undefined. */
  set(f: Field, value: unknown): string | undefined {
    const issue: AnswerIssue | undefined = this.request.schema
      .validate({ [f.name]: value })
      .find((i) => i.field === f.name && i.code !== 'required');
    if (issue !== undefined) return issue.message;
    this.values.set(f.name, value);
    this.errors.delete(f.name);
    return undefined;
  }

  content(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of this.fields)
      if (this.values.has(f.name))
        Object.defineProperty(out, f.name, {
          value: this.values.get(f.name),
          enumerable: true,
          writable: true,
          configurable: true,
        });
    return out;
  }

  /** Problems the whole answer still has (required fields, cross-field bounds). */
  problems(): readonly AnswerIssue[] {
    return this.request.schema.validate(this.content());
  }

  review(): ReviewRow[] {
    const problems = new Map(this.problems().map((i) => [i.field, i.message]));
    return this.fields.map((f) => ({
      name: f.name,
      label: this.label(f),
      value: this.display(f),
      error: problems.get(f.name),
    }));
  }

  display(f: Field): string {
    const v = this.values.get(f.name);
    if (v === undefined) return '—';
    if (f.kind === 'select')
      return inert(f.options.find((o) => o.value === v)?.label ?? String(v), 120, false);
    if (f.kind === 'multiselect' && Array.isArray(v)) {
      return (
        v
          .map((x) => inert(f.options.find((o) => o.value === x)?.label ?? String(x), 60, false))
          .join(', ') || '(none)'
      );
    }
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    return inert(String(v), 200, false);
  }

  accept(): FormResponse {
    return { action: 'accept', content: this.content() };
  }
}
