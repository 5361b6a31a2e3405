/**
 * What an engine does for `ask` (src/server/asks.ts, where every ask method is written once).
 * An engine only knows how to exchange one request with the client, remember answers and count
 * invalid ones, journal a step, run several asks as one round, and take a person through a URL
 * step behind a connect link. Three engines implement it, side by side in this folder:
 * - push (push.ts, 2025 sessions) sends each request through the SDK and waits;
 * - replay (replay.ts, 2026-07-28) answers from the round's `inputResponses` or records the
 *   request as pending and suspends the run (`SUSPEND`);
 * - task (task.ts, 2026-07-28 with the tasks extension) is replay with its journal in a task
 *   record, each step result written there as it is made.
 */
import type { ClientCapabilities, InputRequest } from '@modelcontextprotocol/server';
import type { Json } from '../../kernel/store.ts';
import type { AskLimits } from '../ask.ts';
import type { InboxRequest } from '../inbox.ts';
import type { UrlStepResult } from '../url-mode.ts';
import type { RecordPurpose } from '../url-port.ts';

/** Thrown by an ask that has to wait for the client; the runner turns it into input_required. */
/** Takes the client's response where it arrives (see Engine.exchange). */
export interface Receiver {
  received(response: unknown): unknown;
}

export const SUSPEND: unique symbol = Symbol('elicit.suspend');

export type UrlOutcome = 'complete' | 'decline' | 'cancel';

// How a URL step ended: declared with URL mode, which names it too (no import back to here).
export type { UrlStepResult } from '../url-mode.ts';

export interface Engine {
  /** The protocol revision of this request. */
  readonly revision: string;
  readonly caps: ClientCapabilities | undefined;
  readonly limits: AskLimits;
  /** The response an earlier round (or an earlier ask in this call) gave for `key`. */
  recall(key: string): unknown;
  /**
   * Keeps the response that settled `key` (accepted, declined or cancelled); `checkedBy`, the
   * tag of the form that checked it (`formTag`), when the kept value is that form's result.
   */
  remember(key: string, response: unknown, checkedBy?: string): void;
  /**
   * The tag of the form that checked the kept response of `key` in this process, where the
   * engine keeps one across rounds (the replay engine, in its authenticated journal).
   */
  checkedBy?(key: string): string | undefined;
  /**
   * The client's response to `request`, asked under `key`. The push engine sends and waits; the
   * replay engine gives the response this round carries for `key` (once per run), or records the
   * request as pending and throws SUSPEND. With a `receiver`, what it makes of the response is
   * the result: one promise per wait instead of one per layer (thousands may wait at once).
   */
  exchange(key: string, request: InputRequest, receiver?: Receiver): Promise<unknown>;
  /** Counts one more unusable response for `key` and returns how many there have been. */
  failed(key: string): number;
  /**
   * The journaled result of step `key`, running `run` if there is none. `once`: also refused
   * (ReplayError) when the conversation already consumed it elsewhere.
   */
  step(key: string, run: () => Promise<unknown>, once: boolean): Promise<unknown>;
  /** Runs several asks as one round (in parallel, or collecting every pending request). */
  round<T>(asks: readonly (() => Promise<T>)[]): Promise<T[]>;
  /** The person's trip through a connect link (create the record, send it, wait for it). */
  urlStep(
    purpose: RecordPurpose,
    subject: string,
    label: string,
    description: string | undefined,
    message: string | undefined,
  ): Promise<UrlStepResult>;
  /**
   * Whether a URL step must run even with a value in the vault: `fresh` was asked for and not
   * yet satisfied, or a step for this subject is already under way in this conversation.
   */
  mustStep(purpose: RecordPurpose, subject: string, fresh: boolean): Promise<boolean>;
  /**
   * A form the client cannot be asked, through the inbox (createServer's `inbox`; inbox.ts):
   * undefined without it, or where the engine cannot wait for one (a task). The push engine
   * holds the call until the page's answer comes; the replay engine takes an answer the page
   * already gave this call, or ends the call with the link (SUSPEND, the runner makes the result).
   */
  readonly inbox?: (key: string, question: InboxRequest, receiver: Receiver) => Promise<unknown>;
  /** `ask.background()`: the replay engine escalates the call to a task (ESCALATE); others go on. */
  background(): Promise<void>;
}

/** Thrown by `ask.background()` in a call that becomes a task there; the runner creates it. */
export const ESCALATE: unique symbol = Symbol('elicit.escalate');

/** Journal keys the engines use for URL steps: `~` is never in a user's key, so no collision. */
export const urlStepKey = (purpose: RecordPurpose, subject: string) => `~${purpose}:${subject}`;

/** What the task engine keeps in a record's `context` to run the handler again anywhere. */
export interface TaskContext {
  readonly revision: string;
  readonly caps: ClientCapabilities | undefined;
  readonly clientId: string | undefined;
  /** Rounds of input so far (bounded by limits.maxRounds). */
  readonly rounds: number;
}

/**
 * A call that becomes a task, as the runner hands it back: what the task engine needs to run
 * the handler from here on. The runner knows nothing more of tasks.
 */
export interface TaskStart {
  readonly principal: string;
  /** The tool's name (a task runs the registration of that name on any replica). */
  readonly name: string;
  readonly args: Json;
  /** The journal so far, with nothing asked (the task's first run asks again). */
  readonly journal: Json;
  readonly context: TaskContext;
}
