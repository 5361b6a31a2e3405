/**
 * The `ask` object a handler receives: its interface and limits. One API over three engines
 * (src/server/engines/):
 * - push (2025-06-18 / 2025-11-25 sessions): each ask sends a request through the SDK and
 *   awaits the answer;
 * - replay (2026-07-28): the handler is replayed. Answers and step results live in a sealed
 *   journal carried in `requestState`; the first unanswered ask suspends the run, and every
 *   pending request goes back to the client in one `input_required` result;
 * - task (2026-07-28 with the tasks extension): replay with the journal in a task record.
 *
 * Every engine validates every answer against the form before the handler sees it, re-asking
 * with the reasons (bounded), and never sends a mode the client did not declare.
 */
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ListRootsResult,
} from '@modelcontextprotocol/server';
import { lower } from '../schema/convert.ts';
import {
  type AnswerIssue,
  boolean,
  form as buildForm,
  type Content,
  type Form,
  type StandardSchemaLike,
} from '../schema/index.ts';
import { isRevision, revisionFeatures } from '../schema/revision.ts';
import {
  AnswerRejectedError,
  AskUsageError,
  ElicitationUnsupportedError,
  ReplayError,
} from './errors.ts';
import type { FormInput, ResolvedForm } from './forms.ts';
import { DEFAULT_PENDING_LIMITS, type PendingLimits } from './pending.ts';

/** The outcome of one form: values, not exceptions. */
export type FormResult<T> =
  | { readonly action: 'accept'; readonly content: T }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

export interface FormOptions {
  /** What is asked and why; shown to the user. Defaults to a list of the field titles. */
  readonly message?: string;
  /**
   * Fields that look sensitive to the schema check (a name, title or description like password,
   * token, API key, card or account number) but are not; any other such field is refused with
   * `SensitiveFieldError`, since form mode must not ask for sensitive information.
   */
  readonly allowSensitive?: readonly string[];
}

/** The answer type of a form input: typed for builders and Standard Schemas, Content otherwise. */
export type AnswerOf<F> =
  F extends Form<infer T> ? T : F extends StandardSchemaLike<infer T> ? T : Content;

export type { ConnectResult, SecretResult } from './url-mode.ts';

import type { ConnectResult, SecretResult } from './url-mode.ts';

/** The outcome of a URL-mode ask. */
export type UrlResult = { readonly action: 'accept' | 'decline' | 'cancel' };

/** One entry of `ask.all`: a form, a sampling request or a roots request. */
export type AllSpec =
  | {
      readonly form: FormInput;
      readonly message?: string;
      readonly allowSensitive?: readonly string[];
    }
  | { readonly sample: CreateMessageRequestParams }
  | { readonly roots: true };
/** A form entry of `ask.all`. */
export interface FormSpec<F extends FormInput = FormInput> {
  readonly form: F;
  readonly message?: string;
  readonly allowSensitive?: readonly string[];
}
/** What `ask.all` returns for each kind of entry. */
export type AllResult<S> = S extends { form: infer F }
  ? FormResult<AnswerOf<F>>
  : S extends { sample: unknown }
    ? CreateMessageResult
    : ListRootsResult;

export interface Ask {
  /** Asks for a form and returns the user's validated answer (or decline / cancel). */
  form<F extends FormInput>(
    key: string,
    form: F,
    options?: FormOptions,
  ): Promise<FormResult<AnswerOf<F>>>;
  /**
   * Asks the person to open a page (URL mode). `accept` means they consented and opened it;
   * it does not mean the page's flow is finished.
   */
  url(
    key: string,
    request: {
      message: string;
      url: string;
      /** 2025-11-25: the id `notifications/elicitation/complete` will name; default random. */
      elicitationId?: string;
    },
  ): Promise<UrlResult>;
  /**
   * A handle for calling `provider`'s API as this user. If no valid token is stored, sends a URL
   * elicitation to the connect page (same-user check, then the provider's OAuth flow) and continues
   * when it completes. Needs `connect` in createServer's options.
   */
  connect(
    provider: string,
    options?: { message?: string; label?: string; description?: string },
  ): Promise<ConnectResult>;
  /**
   * Sensitive input (an API key, a password) collected on the server's own secure page and kept
   * encrypted; the value comes back to this handler only, never through MCP. `fresh` asks even
   * when a value is stored.
   */
  secret(
    key: string,
    options: { label: string; description?: string; message?: string; fresh?: boolean },
  ): Promise<SecretResult>;
  /** Asks several things in one round (in parallel on legacy sessions). */
  all<S extends Record<string, AllSpec>>(specs: S): Promise<{ [K in keyof S]: AllResult<S[K]> }>;
  /** Runs a side effect once; its JSON result is journaled so a replay returns it without running it. */
  step<T>(key: string, fn: () => T | Promise<T>): Promise<T>;
  /** Like step, and refused if the same request state is presented again (single-use). */
  once<T>(key: string, fn: () => T | Promise<T>): Promise<T>;
  /** Asks the client's model for a completion (sampling). */
  sample(key: string, params: CreateMessageRequestParams): Promise<CreateMessageResult>;
  /** Asks the client for its roots. */
  roots(key: string): Promise<ListRootsResult>;
  /**
   * A yes/no question: a form with one required yes/no field (`label`, default "Yes"), which
   * every client that supports forms can render. True only for an accepted yes; no, decline and
   * cancel are all false (use `ask.form` to tell them apart).
   */
  confirm(key: string, message: string, options?: { label?: string }): Promise<boolean>;
  /**
   * Marks where a tool registered with `task` and `taskStart: 'background'` becomes a task: the
   * asks before it are answered in rounds of the call itself, and from here on the handler runs
   * in the background as a task (when the client declared the tasks extension). Resolves at once
   * everywhere else, so the same handler also runs straight through.
   */
  background(): Promise<void>;
  /**
   * Reports progress on this call: a `notifications/progress` on the call's progress token
   * (nothing is sent when the client gave none). In a task the progress becomes the task's
   * status message. `progress` should rise from call to call; on a replayed run the reports
   * before the current ask are sent again on the new request's token.
   */
  progress(progress: number, options?: { total?: number; message?: string }): Promise<void>;
  /** Whether the client declared a capability: `form`, `url`, `sampling` or `roots`. */
  can(what: 'form' | 'url' | 'sampling' | 'roots'): boolean;
  /** The protocol revision of this request. */
  readonly revision: string;
}

export interface AskLimits extends PendingLimits {
  /** Attempts at a valid answer per form before giving up; default 3. */
  readonly maxAttempts: number;
  /** Milliseconds to wait for a person on legacy sessions; default 10 minutes. */
  readonly timeoutMs: number;
  /**
   * Milliseconds between progress notifications while an ask waits on a legacy session (only
   * when the call carries a progress token); default 15 seconds.
   */
  readonly progressEveryMs: number;
  /** Rounds of input on 2026-07-28 before giving up; default 16. */
  readonly maxRounds: number;
  /** Keys asked in one round; default 32. */
  readonly maxKeysPerRound: number;
}

export const DEFAULT_ASK_LIMITS: AskLimits = Object.freeze({
  maxAttempts: 3,
  timeoutMs: 600_000,
  progressEveryMs: 15_000,
  maxRounds: 16,
  maxKeysPerRound: 32,
  ...DEFAULT_PENDING_LIMITS,
});

const KEY = /^[A-Za-z0-9_.:-]{1,64}$/;
export function checkKey(key: string): void {
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new AskUsageError(
      `ask key ${JSON.stringify(key)} must be 1-64 letters, digits, "_", ".", ":" or "-", and stable across calls.`,
    );
  }
}

/**
 * Whether the client can be asked `what` on this revision: it declared the capability, and the
 * revision has it (URL-mode elicitation arrived in 2025-11-25, so a 2025-06-18 peer never gets it
 * even if it declares more than its revision knows).
 */
export function declares(
  caps: ClientCapabilities | undefined,
  what: 'form' | 'url' | 'sampling' | 'roots',
  revision: string,
): boolean {
  if (caps === undefined) return false;
  if (what === 'url' && revision === '2025-06-18') return false;
  if (what === 'sampling') return caps.sampling !== undefined;
  if (what === 'roots') return caps.roots !== undefined;
  const e = caps.elicitation as Record<string, unknown> | undefined;
  if (e === undefined || e === null) return false;
  if (what === 'form') return e.form !== undefined || Object.keys(e).length === 0;
  return e.url !== undefined;
}

const defaultMessages = new WeakMap<ResolvedForm['schema'], string>();

/** The message of a form asked without one: made once per checked schema. */
export function defaultMessage(form: ResolvedForm): string {
  const known = defaultMessages.get(form.schema);
  if (known !== undefined) return known;
  const names = form.schema.fields.map((f) => f.title ?? f.name);
  const message = names.length === 0 ? 'Please confirm.' : `Please provide: ${names.join(', ')}.`;
  defaultMessages.set(form.schema, message);
  return message;
}

export function withReasons(
  message: string,
  issues: readonly AnswerIssue[],
  form: ResolvedForm,
): string {
  const lines = issues.map((i) => {
    const field = i.field === undefined ? undefined : form.schema.field(i.field);
    return `- ${field?.title ?? i.field ?? 'answer'}: ${i.message}`;
  });
  return `${message}\n\nThe previous answer could not be used:\n${lines.join('\n')}`;
}

/**
 * The requestedSchema for a re-ask: each field the person answered validly carries that answer
 * as its `default`, so a client shows what they entered instead of a blank form. Only where the
 * revision allows defaults on every field kind, and only when the form was sent unconverted.
 */
export function keepAnswers(
  form: ResolvedForm,
  revision: string,
  response: unknown,
  issues: readonly AnswerIssue[],
): object {
  const requested = form.schema.requestedSchema as unknown as {
    properties: Record<string, object>;
  };
  if (!isRevision(revision) || !revisionFeatures(revision).defaultsOnAll) return requested;
  const content = (response as { content?: unknown } | null)?.content;
  if (content === null || typeof content !== 'object' || Array.isArray(content)) return requested;
  if (issues.some((i) => i.field === undefined)) return requested;
  const bad = new Set(issues.map((i) => i.field));
  const properties: Record<string, object> = {};
  let kept = 0;
  for (const name of Object.keys(requested.properties)) {
    const field = form.schema.field(name);
    const value = Object.hasOwn(content, name)
      ? (content as Record<string, unknown>)[name]
      : undefined;
    const keep = field !== undefined && value !== undefined && !bad.has(name);
    // defineProperty: a field named __proto__ stays a plain own property.
    Object.defineProperty(properties, name, {
      value: keep ? { ...requested.properties[name], default: value } : requested.properties[name],
      enumerable: true,
      writable: true,
      configurable: true,
    });
    if (keep) kept++;
  }
  return kept === 0 ? requested : { ...requested, properties };
}

/**
 * Checks one elicitation response for a form. Returns the result to hand to the handler, or
 * the issues to re-ask with. `mapAnswer` undoes a conversion for an older peer.
 */
export async function judge(
  form: ResolvedForm,
  response: unknown,
  mapAnswer?: (c: Readonly<Record<string, unknown>>) => Content,
): Promise<{ result: FormResult<unknown> } | { issues: readonly AnswerIssue[] }> {
  if (response === null || typeof response !== 'object' || Array.isArray(response)) {
    return {
      issues: [
        {
          code: 'not_object',
          field: undefined,
          message: 'The response was not an elicitation result.',
        },
      ],
    };
  }
  const { action, content } = response as { action?: unknown; content?: unknown };
  if (action === 'decline' || action === 'cancel') return { result: { action } };
  if (action !== 'accept') {
    return {
      issues: [
        {
          code: 'type',
          field: undefined,
          message: 'The response had no valid action (accept, decline or cancel).',
        },
      ],
    };
  }
  let answer = content ?? {};
  if (
    mapAnswer !== undefined &&
    answer !== null &&
    typeof answer === 'object' &&
    !Array.isArray(answer)
  ) {
    answer = mapAnswer(answer as Record<string, unknown>);
  }
  const parsed = form.schema.parse(answer);
  if (!parsed.ok) return { issues: parsed.issues };
  if (form.refine !== undefined) {
    const refined = await form.refine(parsed.value as never);
    if (!refined.ok) return { issues: refined.issues };
    return { result: { action: 'accept', content: refined.value } };
  }
  return { result: { action: 'accept', content: parsed.value } };
}

export function rejected(
  key: string,
  attempts: number,
  issues: readonly AnswerIssue[],
): AnswerRejectedError {
  return new AnswerRejectedError(
    key,
    attempts,
    issues.map((i) => `${i.field ?? 'answer'}: ${i.message}`).join('; '),
  );
}

/** Lowers a form for an older peer (memoised per compiled schema). */
export function forRevision(form: ResolvedForm, revision: string) {
  return lower(form.schema, revision === '2025-06-18' ? '2025-06-18' : '2025-11-25');
}

export { AskUsageError, ElicitationUnsupportedError, ReplayError };

type ConfirmForm = Form<{ confirmed: boolean }>;
const confirmForms = new Map<string, ConfirmForm>();

/** `ask.confirm` for any engine: one boolean form per label, kept (a few) so it is compiled once. */
export async function confirm(
  ask: Ask,
  key: string,
  message: string,
  options?: { label?: string },
): Promise<boolean> {
  if (typeof message !== 'string' || message.length === 0)
    throw new AskUsageError(
      `ask.confirm('${key}', message): the message is the question; give one.`,
    );
  const label = options?.label ?? 'Yes';
  let yesNo = confirmForms.get(label);
  if (yesNo === undefined) {
    if (confirmForms.size >= 64) confirmForms.clear();
    yesNo = buildForm({ confirmed: boolean({ title: label }) });
    confirmForms.set(label, yesNo);
  }
  const r = await ask.form(key, yesNo, { message });
  return r.action === 'accept' && r.content.confirmed === true;
}
