/**
 * The inbox fallback (`createServer({ connect, inbox })`): a form the client cannot be asked (it
 * declared no form elicitation) is shown instead on the connect pages' inbox, an identity-bound
 * page (`<base>/elicit/inbox`), as a record in the connect store bound to the principal whose
 * call asked. How the call waits depends on the era:
 * - 2025 sessions (push engine): the call is held open, with progress on its token (the push
 *   engine's keep-alive) and the link sent once as a log message, until the page's answer
 *   arrives on the completion bus (or the record's poll sees it), or the question expires;
 * - 2026-07-28 (replay engine): the call ends at once with a tool result carrying the link
 *   (`_meta["elicit/inbox"]`); the person answers on the page and calls the tool again with the
 *   same arguments, and the ask finds the answered record by principal, tool, canonical
 *   arguments and key. Records a finished call used are removed, so an answer counts for one
 *   completed call.
 * Either way the answer is judged as every answer is (schema, refine, re-asked with reasons).
 * A URL page (`ask.url`, `ask.connect`, `ask.secret` of a client without URL mode) waits the
 * same way; opening it on the page is its accept, after which the engines' URL steps wait for
 * the URL-mode record as they do for a client that accepted the link.
 */
import { createHash } from 'node:crypto';
import { ElicitError } from '../errors.ts';
import {
  ELICIT_INBOX_EXPIRED,
  ELICIT_INBOX_FULL,
  ELICIT_INBOX_NOT_CONFIGURED,
  ELICIT_LIMIT_INVALID,
} from '../kernel/error-codes.ts';
import type { Json } from '../kernel/store.ts';
import type { Faults } from './faults.ts';
import type { InboxPort, InboxRecord } from './url-port.ts';

export interface InboxSettings {
  /** Questions waiting in the inbox for one principal; default 20. Past it an ask fails (InboxFullError). */
  readonly maxPerPrincipal?: number;
  /** Questions waiting in the inbox for everyone (in the connect store); default 1000. */
  readonly maxTotal?: number;
  /** How long a question waits for its answer; default the ask timeout (`limits.timeoutMs`). */
  readonly waitMs?: number;
  /**
   * Called when a question starts waiting (to notify the person another way: mail, chat, a
   * desktop notification). Errors it throws are ignored.
   */
  readonly onWaiting?: (question: InboxWaiting) => void;
}

/** A question that started waiting in the inbox, as `onWaiting` is told of it. */
export interface InboxWaiting {
  readonly id: string;
  readonly principal: string;
  readonly tool: string;
  readonly message: string;
  /** The inbox page (sign-in first): where the person answers. */
  readonly url: string;
}

/** The inbox a server uses: the port, the caps and the lifetime, resolved once. */
export interface ResolvedInbox {
  readonly port: InboxPort;
  readonly server: string;
  readonly waitMs: number;
  readonly maxPerPrincipal: number;
  readonly maxTotal: number;
  readonly onWaiting: ((question: InboxWaiting) => void) | undefined;
}

/** `createServer({ inbox })` without connect pages that serve an inbox. */
export class InboxConfigError extends ElicitError {
  constructor() {
    super(
      ELICIT_INBOX_NOT_CONFIGURED,
      'createServer({ inbox }) needs the connect pages, which serve the inbox page: pass connect: { app: createConnectStack(...) } too.',
    );
  }
}

/** Too many questions already wait in the inbox, for this user or for everyone. */
export class InboxFullError extends ElicitError {
  readonly scope: 'principal' | 'total';
  readonly limit: number;
  constructor(scope: 'principal' | 'total', limit: number) {
    super(
      ELICIT_INBOX_FULL,
      scope === 'principal'
        ? `You already have ${limit} questions waiting in the inbox; answer or let them expire, then try again.`
        : `The server's inbox holds ${limit} waiting questions, its limit; try again later.`,
    );
    this.scope = scope;
    this.limit = limit;
  }
}

/** Nobody answered the question in the inbox within its lifetime. */
export class InboxExpiredError extends ElicitError {
  readonly key: string;
  constructor(key: string, waitMs: number, url: string) {
    super(
      ELICIT_INBOX_EXPIRED,
      `Nobody answered "${key}" in the inbox (${url}) within ${Math.round(waitMs / 1000)} s; the question was withdrawn and nothing was done. Call the tool again when you are ready to answer.`,
    );
    this.key = key;
  }
}

const positive = (name: string, v: number | undefined, fallback: number): number => {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v <= 0)
    throw new ElicitError(
      ELICIT_LIMIT_INVALID,
      `inbox.${name} must be a positive whole number, got ${v}.`,
    );
  return v;
};

/** The server's inbox from its options, or undefined without the option. */
export function resolveInbox(
  settings: InboxSettings | undefined,
  port: InboxPort | undefined,
  server: string,
  timeoutMs: number,
): ResolvedInbox | undefined {
  if (settings === undefined) return undefined;
  if (port === undefined) throw new InboxConfigError();
  return {
    port,
    server,
    waitMs: positive('waitMs', settings.waitMs, timeoutMs),
    maxPerPrincipal: positive('maxPerPrincipal', settings.maxPerPrincipal, 20),
    maxTotal: positive('maxTotal', settings.maxTotal, 1000),
    onWaiting: settings.onWaiting,
  };
}

/**
 * What the inbox is asked: a form (the schema `<elicit-form>` renders) or a URL page
 * (`<elicit-url-consent>` shows it with its analysis; `elicitationId`: the URL-mode record behind
 * it, for `ask.connect` and `ask.secret`).
 */
export type InboxRequest =
  | { readonly message: string; readonly requestedSchema: object }
  | { readonly message: string; readonly url: string; readonly elicitationId?: string };

/**
 * What a call is, for finding its question again on a retry: principal, method, name and
 * canonical arguments (the sealed state's binding), hashed, and the ask's key.
 */
export function inboxCall(identity: string, key: string): string {
  return `${createHash('sha256').update(identity).digest('base64url')}:${key}`;
}

/** A new waiting question (InboxFullError past a cap); `onWaiting` is told. */
export async function createQuestion(
  inbox: ResolvedInbox,
  principal: string,
  call: string,
  tool: string,
  question: InboxRequest,
): Promise<InboxRecord> {
  const made = await inbox.port.create(
    {
      principal,
      call,
      server: inbox.server,
      tool,
      message: question.message,
      ...('url' in question
        ? { requestedSchema: null, url: question.url, elicitationId: question.elicitationId }
        : { requestedSchema: question.requestedSchema as Json }),
    },
    inbox.waitMs,
    { perPrincipal: inbox.maxPerPrincipal, total: inbox.maxTotal },
  );
  if ('full' in made)
    throw new InboxFullError(
      made.full,
      made.full === 'principal' ? inbox.maxPerPrincipal : inbox.maxTotal,
    );
  try {
    inbox.onWaiting?.({
      id: made.id,
      principal,
      tool,
      message: question.message,
      url: inbox.port.url,
    });
  } catch {
    // The notification is a courtesy; the question waits on the page either way.
  }
  return made;
}

/**
 * The text a person (or the model) reads while a question waits in the inbox; `callAgain`: the
 * call has ended and takes the answer when made again (2026-07-28), else it waits.
 */
export function waitingText(url: string, callAgain = true): string {
  return callAgain
    ? `This tool needs an answer your client cannot show. Answer it at ${url} (sign in first), then call the tool again with the same arguments.`
    : `This tool needs an answer your client cannot show: answer it at ${url} (sign in first). The call waits for it.`;
}

const POLL_MS = 2000;
const RETRY_MS = 250;
const WAIT = 'An inbox wait reading its question';

/**
 * Resolves with the record once it is answered (via the bus, with a store read against races
 * and a slow poll for a missed event), or `timeout` when `ms` pass or `signal` aborts. Never
 * rejects: a failing store is told once to `faults` and read again every quarter second.
 */
export function waitForAnswer(
  inbox: ResolvedInbox,
  bus: {
    subscribe(listener: (event: { readonly id: string }) => void): () => void;
  },
  id: string,
  ms: number,
  faults: Faults,
  signal: AbortSignal,
): Promise<InboxRecord | 'timeout'> {
  return new Promise((resolve) => {
    let settled = false;
    let poll: ReturnType<typeof setTimeout> | undefined;
    const finish = (result: InboxRecord | 'timeout') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(poll);
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const check = async () => {
      if (settled) return;
      clearTimeout(poll);
      poll = undefined;
      let next = POLL_MS;
      try {
        const r = await inbox.port.get(id);
        faults.recovered(WAIT);
        if (r === undefined || r.status === 'expired') finish('timeout');
        else if (r.status === 'answered') finish(r);
      } catch (error) {
        faults.failed(WAIT, error);
        next = RETRY_MS;
      }
      if (!settled) poll = setTimeout(() => void check(), next);
    };
    const unsubscribe = bus.subscribe((e) => {
      if (e.id === id) void check();
    });
    const onAbort = () => finish('timeout');
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => finish('timeout'), ms);
    void check();
  });
}

/** The response an answered record stands for, as a client's elicitation result. */
export function responseOf(record: InboxRecord): unknown {
  const answer = record.answer;
  if (answer === undefined) return { action: 'cancel' };
  // A URL page opened is URL mode's accept, which carries no content.
  if (answer.action === 'opened') return { action: 'accept' };
  return answer.action === 'accept'
    ? { action: 'accept', content: answer.content }
    : { action: answer.action };
}
