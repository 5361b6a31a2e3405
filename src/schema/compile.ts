/**
 * A compiled schema: checked once, validators prepared once, reused for every answer. The
 * cache is keyed by object identity first (free) and by content second (a handler that builds
 * its schema object per call still compiles once), and is bounded.
 */

import { ElicitError } from '../errors.ts';
import { ELICIT_SCHEMA_INVALID } from '../kernel/error-codes.ts';
import { setOwn } from '../kernel/own.ts';
import { type CheckedSchema, type CheckOptions, checkSchema } from './check.ts';
import { generateValidator } from './codegen.ts';
import type { AnswerIssue, SchemaIssue } from './issues.ts';
import { formatPath } from './issues.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { measureJson } from './measure.ts';
import { LATEST_REVISION } from './revision.ts';
import type { Content, Field } from './types.ts';
import { type PreparedField, prepareField } from './value.ts';

/** Thrown by compileSchema() when a requested schema is outside the restricted subset. */
export class SchemaError extends ElicitError {
  readonly issues: readonly SchemaIssue[];
  constructor(issues: readonly SchemaIssue[], context = 'requested schema') {
    const first = issues[0];
    const where = first === undefined ? '' : ` at ${formatPath(first.path)}`;
    super(
      ELICIT_SCHEMA_INVALID,
      `Invalid ${context}${where}: ${first?.message ?? 'unknown problem'}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`,
    );
    this.issues = issues;
  }
}

export type ParseResult<T = Content> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly AnswerIssue[] };

export interface CompiledSchema extends CheckedSchema {
  /** Problems with `content`; an empty (shared, frozen) array when it is valid. */
  validate(content: unknown): readonly AnswerIssue[];
  /** Applies defaults to missing fields, then validates. Never mutates `content`. */
  parse(content: unknown): ParseResult;
  /** The same checks without generated code (what runs where `new Function` is not allowed). */
  validateByClosures(content: unknown): readonly AnswerIssue[];
  /** Field by property name (`__proto__` and friends are plain names). */
  field(name: string): Field | undefined;
}

const NO_ISSUES: readonly AnswerIssue[] = Object.freeze([]);

const NOT_OBJECT: readonly AnswerIssue[] = Object.freeze([
  Object.freeze({
    code: 'not_object',
    field: undefined,
    message: 'The answer must be an object of field values.',
  } as const),
]);

export { setOwn };

function own(content: Record<string, unknown>, p: PreparedField): unknown {
  // Only names that Object.prototype also has need the (slower) own-property check.
  if (p.inherited && !Object.hasOwn(content, p.name)) return undefined;
  return content[p.name];
}

function build(checked: CheckedSchema): CompiledSchema {
  const limits = checked.limits;
  const prepared = checked.fields.map((f) => prepareField(f, limits));
  const byName = new Map<string, Field>(checked.fields.map((f) => [f.name, f]));
  const withDefaults = prepared.filter((p) => p.field.default !== undefined);

  const unknownIssues = new Map<string, AnswerIssue>();
  const unknownKey = (key: string): AnswerIssue => {
    let issue = unknownIssues.get(key);
    if (issue === undefined) {
      issue = Object.freeze({
        code: 'unknown_key',
        field: key,
        message: 'This field is not part of the form.',
      } as const);
      if (unknownIssues.size < 64) unknownIssues.set(key, issue);
    }
    return issue;
  };

  function validateByClosures(content: unknown): readonly AnswerIssue[] {
    if (content === null || typeof content !== 'object' || Array.isArray(content))
      return NOT_OBJECT;
    const record = content as Record<string, unknown>;
    let issues: AnswerIssue[] | undefined;
    let present = 0;
    for (let i = 0; i < prepared.length; i++) {
      const p = prepared[i] as PreparedField;
      const value = p.inherited && !Object.hasOwn(record, p.name) ? undefined : record[p.name];
      if (value === undefined) {
        if (p.required) (issues ??= []).push(p.missing);
        continue;
      }
      present++;
      const problem = p.check(value);
      if (problem !== undefined) (issues ??= []).push(problem);
    }
    let keys = 0;
    for (const _ in record) keys++;
    if (keys !== present) {
      for (const key of Object.keys(record)) {
        if (!byName.has(key) && record[key] !== undefined) {
          (issues ??= []).push(unknownKey(key));
          if (issues.length > prepared.length + 20) break;
        }
      }
    }
    return issues ?? NO_ISSUES;
  }

  const validate: (content: unknown) => readonly AnswerIssue[] =
    generateValidator({
      fields: prepared,
      byName,
      noIssues: NO_ISSUES,
      notObject: NOT_OBJECT,
      unknownKey,
      maxAnswerLength: limits.maxAnswerLength,
    }) ?? validateByClosures;

  function parse(content: unknown): ParseResult {
    if (content === null || typeof content !== 'object' || Array.isArray(content)) {
      return { ok: false, issues: NOT_OBJECT };
    }
    let value = content as Record<string, unknown>;
    for (const p of withDefaults) {
      if (own(value, p) === undefined) {
        if (value === content) value = { ...(content as Record<string, unknown>) };
        const d = p.field.default;
        setOwn(value, p.name, Array.isArray(d) ? [...d] : d);
      }
    }
    const issues = validate(value);
    return issues.length === 0 ? { ok: true, value: value as Content } : { ok: false, issues };
  }

  return Object.freeze({
    ...checked,
    validate,
    validateByClosures,
    parse,
    field: (name: string) => byName.get(name),
  });
}

export interface CompileOptions extends CheckOptions {}

/** Bounded LRU of compiled schemas by content; a WeakMap by identity in front of it. */
const MAX_CACHED = 256;
const byContent = new Map<string, CompiledSchema>();
const byIdentity = new WeakMap<object, Map<string, CompiledSchema>>();

/**
 * Checks and compiles a requested schema, or throws SchemaError naming every problem.
 * Treat a schema object as immutable once compiled: results are cached by identity.
 */
export function compileSchema(raw: unknown, options: CompileOptions = {}): CompiledSchema {
  const revision = options.revision ?? LATEST_REVISION;
  const limitsKey = options.limits === undefined ? '' : JSON.stringify(options.limits);
  const variant = limitsKey === '' ? revision : `${revision}\u0000${limitsKey}`;
  const isObj = raw !== null && typeof raw === 'object';
  if (isObj) {
    const hit = byIdentity.get(raw)?.get(variant);
    if (hit !== undefined) return hit;
  }
  const limits =
    options.limits === undefined ? DEFAULT_LIMITS : { ...DEFAULT_LIMITS, ...options.limits };
  // Measure before serialising so a hostile schema costs no more than the check itself.
  let contentKey: string | undefined;
  if (isObj && measureJson(raw, limits) === undefined) {
    contentKey = `${variant}\u0000${JSON.stringify(raw)}`;
    const hit = byContent.get(contentKey);
    if (hit !== undefined) {
      byContent.delete(contentKey);
      byContent.set(contentKey, hit);
      remember(raw, variant, hit);
      return hit;
    }
  }
  const result = checkSchema(raw, options);
  if (!result.ok) throw new SchemaError(result.errors);
  const compiled = build(result.schema);
  if (contentKey !== undefined) {
    byContent.set(contentKey, compiled);
    if (byContent.size > MAX_CACHED) byContent.delete(byContent.keys().next().value as string);
    remember(raw as object, variant, compiled);
  }
  return compiled;
}

function remember(raw: object, variant: string, compiled: CompiledSchema): void {
  let variants = byIdentity.get(raw);
  if (variants === undefined) byIdentity.set(raw, (variants = new Map()));
  variants.set(variant, compiled);
}

/** Compiles an already checked schema (no cache, no re-check). */
export function compileChecked(checked: CheckedSchema): CompiledSchema {
  return build(checked);
}

/** Number of schemas in the content cache (for tests and diagnostics). */
export function compiledCacheSize(): number {
  return byContent.size;
}
