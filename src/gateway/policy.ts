/**
 * Answer policies for headless runs, and the audit log. A policy is a list of rules matched on
 * server, tool, mode and field; the first that matches says what happens to a question: ask the
 * host, decline, cancel, accept the form's defaults, or accept a fixed answer (both checked
 * against the form; an answer the form refuses cancels). A URL-mode question is never accepted
 * by a rule: `defaults` and a fixed answer decline it. Every question and its outcome can be
 * written to an audit log, one JSON object a line, with sensitive fields and URL queries
 * redacted.
 */
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { ElicitError } from '../errors.ts';
import { ELICIT_GATEWAY_POLICY } from '../kernel/error-codes.ts';
import { hasOwnValue } from '../kernel/own.ts';
import { applyDefaults, type CompiledSchema } from '../schema/index.ts';

/** What a rule does with a question. */
export type PolicyAction =
  | 'ask'
  | 'inbox'
  | 'decline'
  | 'cancel'
  | 'defaults'
  | { readonly answer: Readonly<Record<string, unknown>> };

export interface PolicyRule {
  /** Every given key must match; `*` matches anything. `field`: the form has a field so named. */
  readonly match?: {
    readonly server?: string;
    readonly tool?: string;
    readonly mode?: 'form' | 'url';
    readonly field?: string;
  };
  readonly action: PolicyAction;
}

export interface Policy {
  readonly rules: readonly PolicyRule[];
  /** When no rule matches; default `ask`. */
  readonly otherwise?: PolicyAction;
}

/** A policy file that cannot be used: the message names the rule and what is wrong. */
export class PolicyError extends ElicitError {
  constructor(message: string) {
    super(ELICIT_GATEWAY_POLICY, message);
  }
}

/** Rules in one policy; more is a mistake, not a policy. */
const MAX_RULES = 1000;
const MATCH_KEYS = ['server', 'tool', 'mode', 'field'];

function checkAction(action: unknown, where: string): PolicyAction {
  if (
    action === 'ask' ||
    action === 'inbox' ||
    action === 'decline' ||
    action === 'cancel' ||
    action === 'defaults'
  )
    return action;
  const answer = (action as { answer?: unknown } | null)?.answer;
  if (
    typeof action === 'object' &&
    action !== null &&
    Object.keys(action).length === 1 &&
    typeof answer === 'object' &&
    answer !== null &&
    !Array.isArray(answer)
  )
    return { answer: answer as Record<string, unknown> };
  throw new PolicyError(
    `${where}: the action must be "ask", "inbox", "decline", "cancel", "defaults" or {"answer": {…}}; got ${JSON.stringify(action)?.slice(0, 80)}.`,
  );
}

/** Checks a parsed policy; `file` names it in errors. */
export function checkPolicy(raw: unknown, file = 'the policy'): Policy {
  const rules = (raw as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules))
    throw new PolicyError(`${file}: expected {"rules": [ … ], "otherwise": "ask"}.`);
  if (rules.length > MAX_RULES)
    throw new PolicyError(`${file}: ${rules.length} rules; at most ${MAX_RULES}.`);
  const checked = rules.map((rule: unknown, i): PolicyRule => {
    const where = `${file}: rule ${i + 1}`;
    const r = rule as { match?: unknown; action?: unknown } | null;
    if (typeof r !== 'object' || r === null) throw new PolicyError(`${where} is not an object.`);
    const match = r.match ?? {};
    if (typeof match !== 'object' || match === null || Array.isArray(match))
      throw new PolicyError(`${where}: "match" must be an object.`);
    for (const [k, v] of Object.entries(match)) {
      if (!MATCH_KEYS.includes(k))
        throw new PolicyError(
          `${where}: unknown match key ${JSON.stringify(k)}; use ${MATCH_KEYS.join(', ')}.`,
        );
      if (typeof v !== 'string' || v.length === 0 || v.length > 256)
        throw new PolicyError(`${where}: match.${k} must be a non-empty string.`);
    }
    const mode = (match as { mode?: string }).mode;
    if (mode !== undefined && mode !== 'form' && mode !== 'url' && mode !== '*')
      throw new PolicyError(`${where}: match.mode must be "form" or "url".`);
    return { match: match as PolicyRule['match'], action: checkAction(r.action, where) };
  });
  const otherwise =
    (raw as { otherwise?: unknown }).otherwise === undefined
      ? undefined
      : checkAction((raw as { otherwise?: unknown }).otherwise, `${file}: "otherwise"`);
  return { rules: checked, ...(otherwise === undefined ? {} : { otherwise }) };
}

/** Reads and checks a policy file (JSON). */
export function readPolicy(file: string): Policy {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new PolicyError(`cannot read the policy ${file}: ${(error as Error).message}`);
  }
  return checkPolicy(raw, file);
}

/** One question as rules see it. */
export interface Question {
  readonly server: string;
  readonly tool: string;
  readonly mode: 'form' | 'url';
  readonly fields: readonly string[];
}

const matches = (want: string | undefined, have: string) =>
  want === undefined || want === '*' || want === have;

/** The action for a question, and which rule said so (0 when none did). */
export function decide(policy: Policy, q: Question): { action: PolicyAction; rule: number } {
  for (let i = 0; i < policy.rules.length; i++) {
    const { match = {}, action } = policy.rules[i] as PolicyRule;
    if (
      matches(match.server, q.server) &&
      matches(match.tool, q.tool) &&
      matches(match.mode, q.mode) &&
      (match.field === undefined || match.field === '*' || q.fields.includes(match.field))
    )
      return { action, rule: i + 1 };
  }
  return { action: policy.otherwise ?? 'ask', rule: 0 };
}

/** What a rule answers for a form, or undefined when the host is to be asked. */
export function formOutcome(
  action: PolicyAction,
  schema: CompiledSchema,
):
  | { action: 'accept'; content: Record<string, unknown> }
  | { action: 'decline' | 'cancel' }
  | undefined {
  if (action === 'ask' || action === 'inbox') return undefined;
  if (action === 'decline' || action === 'cancel') return { action };
  const content = applyDefaults(schema, action === 'defaults' ? {} : { ...action.answer });
  return schema.validate(content).length === 0
    ? { action: 'accept', content }
    : { action: 'cancel' };
}

/** What a rule answers for a URL page: never an accept. */
export function urlOutcome(action: PolicyAction): { action: 'decline' | 'cancel' } | undefined {
  if (action === 'ask') return undefined;
  // `inbox` reaches here only without an inbox (the gateway sends the page there otherwise).
  return { action: action === 'cancel' ? 'cancel' : 'decline' };
}

/** One line of the audit log. */
export interface AuditEntry {
  readonly at: string;
  readonly server: string;
  readonly tool: string;
  readonly mode: 'form' | 'url';
  readonly message: string;
  /** The page's origin and path (query and fragment left out: they often carry tokens). */
  readonly url?: string;
  readonly fields?: readonly string[];
  /** Who answered: a rule of the policy (its number), or the host. */
  readonly by: 'host' | 'inbox' | `rule ${number}` | 'otherwise';
  readonly action: string;
  /** The answer, sensitive fields as "[redacted]". */
  readonly content?: Record<string, unknown>;
}

export interface AuditLog {
  write(entry: AuditEntry): void;
  close(): Promise<void>;
}

/** Appends entries to `file`, one JSON object a line. */
export function auditFile(file: string): AuditLog {
  const out: WriteStream = createWriteStream(file, { flags: 'a', mode: 0o600 });
  return {
    write(entry) {
      out.write(`${JSON.stringify(entry)}\n`);
    },
    close: () => new Promise((resolve) => out.end(resolve)),
  };
}

/** The answer with every field the schema check reads as sensitive replaced. */
export function redact(
  schema: CompiledSchema,
  content: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const sensitive = new Set(
    schema.warnings.filter((w) => w.code === 'sensitive_field').map((w) => String(w.path[1])),
  );
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(content))
    if (hasOwnValue(content, key)) out[key] = sensitive.has(key) ? '[redacted]' : content[key];
  return out;
}

/** A URL for the log: origin and path only. */
export function auditUrl(href: string): string {
  try {
    const u = new URL(href);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '[unparsable]';
  }
}
