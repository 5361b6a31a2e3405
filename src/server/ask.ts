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
  CreateMessageRequestParams,
  CreateMessageResult,
  ListRootsResult,
} from '@modelcontextprotocol/server';
import type { Content, Form, StandardSchemaLike } from '../schema/index.ts';
import type { FormInput } from './forms.ts';
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
