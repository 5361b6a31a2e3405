/**
 * Straight-line validators. A form's answer is validated on every elicitation, so each
 * compiled schema gets one generated function with every field's checks inlined, which runs
 * as fast as Ajv's precompiled code.
 *
 * Safety: the only schema data written into source text are property names and option values
 * through JSON.stringify (always a valid, inert string literal) and finite numbers checked
 * here. Regexes, format checkers and issue objects are passed in as arguments, never written
 * as source. Where code generation is unavailable (a page whose CSP forbids 'unsafe-eval')
 * compile() falls back to the per-field closures, which behave identically.
 */
import { InternalError } from '../errors.ts';
import { checkFormat } from './formats.ts';
import type { AnswerIssue, AnswerIssueCode } from './issues.ts';
import { codePointLength, type PreparedField } from './value.ts';

export type Validate = (content: unknown) => readonly AnswerIssue[];

interface Env {
  readonly fields: readonly PreparedField[];
  readonly byName: ReadonlyMap<string, unknown>;
  readonly noIssues: readonly AnswerIssue[];
  readonly notObject: readonly AnswerIssue[];
  readonly unknownKey: (key: string) => AnswerIssue;
  readonly maxAnswerLength: number;
}

const lit = (value: string): string => JSON.stringify(value);
function num(value: number): string {
  if (!Number.isFinite(value)) throw new InternalError('non-finite number in a compiled schema');
  return Object.is(value, -0) ? '0' : String(value);
}

let available: boolean | undefined;
function canGenerate(): boolean {
  if (available === undefined) {
    try {
      available = new Function('return 1')() === 1;
    } catch {
      available = false;
    }
  }
  return available;
}

/** Returns a generated validator, or undefined where code generation is not allowed. */
export function generateValidator(env: Env): Validate | undefined {
  if (!canGenerate()) return undefined;
  const lines: string[] = [];
  const issues: AnswerIssue[] = [];
  const push = (s: string) => lines.push(s);
  push('return function validate(data) {');
  push('if (data === null || typeof data !== "object" || Array.isArray(data)) return NOT_OBJECT;');
  push('let issues; let v;');
  env.fields.forEach((p, i) => {
    const f = p.field;
    const read = p.inherited
      ? `(Object.hasOwn(data, ${lit(p.name)}) ? data[${lit(p.name)}] : undefined)`
      : `data[${lit(p.name)}]`;
    push(`v = ${read};`);
    push(
      `if (v === undefined) { ${p.required ? `(issues ??= []).push(F[${i}].missing)` : ''} } else {`,
    );
    // Each branch pushes the field's own pre-built issue object: I[n] is filled below.
    const at = (code: AnswerIssueCode): string => {
      const issue = p.issues[code];
      if (issue === undefined) throw new InternalError(`no ${code} issue prepared for ${p.name}`);
      issues.push(issue);
      return `(issues ??= []).push(I[${issues.length - 1}])`;
    };
    const chain = (branches: [string, string][]) =>
      push(`${branches.map(([cond, then]) => `if (${cond}) ${then};`).join(' else ')}`);
    switch (f.kind) {
      case 'text': {
        const b: [string, string][] = [
          ['typeof v !== "string"', at('type')],
          [`v.length > ${num(p.maxChars)}`, at('too_large')],
        ];
        if (f.minLength !== undefined)
          b.push([
            `v.length < ${num(f.minLength * 2)} && CPL(v) < ${num(f.minLength)}`,
            at('min_length'),
          ]);
        if (f.maxLength !== undefined)
          b.push([
            `v.length > ${num(f.maxLength)} && CPL(v) > ${num(f.maxLength)}`,
            at('max_length'),
          ]);
        if (f.format !== undefined) b.push([`!FMT(${lit(f.format)}, v)`, at('format')]);
        if (f.pattern !== undefined) b.push([`!R[${i}].test(v)`, at('pattern')]);
        chain(b);
        break;
      }
      case 'number': {
        const b: [string, string][] = [
          ['typeof v !== "number" || !Number.isFinite(v)', at('type')],
        ];
        if (f.integer) b.push(['!Number.isInteger(v)', at('integer')]);
        if (f.minimum !== undefined) b.push([`v < ${num(f.minimum)}`, at('minimum')]);
        if (f.maximum !== undefined) b.push([`v > ${num(f.maximum)}`, at('maximum')]);
        chain(b);
        break;
      }
      case 'boolean':
        chain([['typeof v !== "boolean"', at('type')]]);
        break;
      case 'select':
        if (f.options.length <= 8)
          chain([[f.options.map((o) => `v !== ${lit(o.value)}`).join(' && '), at('option')]]);
        else push(`{ const e = F[${i}].check(v); if (e !== undefined) (issues ??= []).push(e); }`);
        break;
      case 'multiselect':
        push(`{ const e = F[${i}].check(v); if (e !== undefined) (issues ??= []).push(e); }`);
        break;
    }
    push('}');
  });
  // Unknown keys: one pass, known names compared inline for small forms.
  const known =
    env.fields.length <= 16
      ? env.fields.map((p) => `k !== ${lit(p.name)}`).join(' && ') || 'true'
      : '!BY_NAME.has(k)';
  push('for (const k in data) {');
  push(`if (${known} && data[k] !== undefined && Object.hasOwn(data, k)) {`);
  push(
    `(issues ??= []).push(UNKNOWN(k)); if (issues.length > ${env.fields.length + 20}) break; } }`,
  );
  push('return issues === undefined ? NO_ISSUES : issues;');
  push('};');
  const regexes = env.fields.map((p) => p.pattern);
  let factory: (...args: unknown[]) => unknown;
  try {
    factory = new Function(
      'F',
      'I',
      'R',
      'CPL',
      'FMT',
      'BY_NAME',
      'UNKNOWN',
      'NO_ISSUES',
      'NOT_OBJECT',
      lines.join('\n'),
    ) as typeof factory;
  } catch {
    // The probe can pass where this call does not (a page's CSP applies to its own code but not
    // to a debugger's evaluation, which may have run the probe): the checks without generated code.
    available = false;
    return undefined;
  }
  return factory(
    env.fields,
    issues,
    regexes,
    codePointLength,
    checkFormat,
    env.byName,
    env.unknownKey,
    env.noIssues,
    env.notObject,
  ) as Validate;
}
