/**
 * The replay engine (2026-07-28): the handler is replayed each round. A run opens the journal,
 * takes the client's answers for the keys the previous round asked (others are ignored), runs
 * the handler until the first unanswered ask, and collects every pending request.
 */

import type { ClientCapabilities, InputRequest, ServerContext } from '@modelcontextprotocol/server';
import { pooledRandom } from '../../kernel/random.ts';
import type { Ask, AskLimits } from '../ask.ts';
import { createAsk } from '../asks.ts';
import { declares } from '../capabilities.ts';
import {
  AskTimeoutError,
  AskUsageError,
  ElicitationUnsupportedError,
  ReplayError,
} from '../errors.ts';
import type { Faults } from '../faults.ts';
import {
  createQuestion,
  type InboxRequest,
  inboxCall,
  type ResolvedInbox,
  responseOf,
} from '../inbox.ts';
import { type OnceStore, OnceStoreFullError, OnceStoreUnavailableError } from '../once-store.ts';
import type { PendingAsks } from '../pending.ts';
import {
  ConnectNotConfiguredError,
  type ConnectSettings,
  linkMessage,
  waitForRecord,
} from '../url-mode.ts';
import type { RecordPurpose, UrlRecord } from '../url-port.ts';
import {
  type Engine,
  ESCALATE,
  type Receiver,
  SUSPEND,
  type UrlStepResult,
  urlStepKey,
} from './contract.ts';

/** What the sealed requestState carries between rounds. */
export interface Journal {
  /**
   * The conversation's nonce, minted on the fresh request and kept by every state after it:
   * single-use markers are named by it, so sibling states of one conversation share markers.
   */
  n: string;
  /**
   * Settled responses by key: checked again on a replay unless `c` names the form asking now.
   */
  a: Record<string, unknown>;
  /**
   * The form that checked each kept answer in this process, by key (`formTag`): a replay in
   * this process asking that same form takes the answer as checked, since the journal is
   * authenticated; another form, or another process, checks it again.
   */
  c: Record<string, string>;
  /** Step results by key. */
  s: Record<string, unknown>;
  /** Keys asked in the previous round: the only answers taken. */
  p: string[];
  /** Invalid attempts by key. */
  t: Record<string, number>;
}

export function freshJournal(): Journal {
  // Every first round of every call draws a nonce: from the pool, not a system call each time.
  return {
    n: Buffer.from(pooledRandom(16)).toString('base64url'),
    a: {},
    c: {},
    s: {},
    p: [],
    t: {},
  };
}

/**
 * The journal as sealed: empty parts left out (most rounds carry one or two of them), so the
 * state on the wire is shorter. `unpackJournal` puts them back.
 */
export function packJournal(j: Journal): Partial<Journal> {
  const out: Partial<Journal> = { n: j.n };
  if (Object.keys(j.a).length > 0) out.a = j.a;
  if (Object.keys(j.c).length > 0) out.c = j.c;
  if (Object.keys(j.s).length > 0) out.s = j.s;
  if (j.p.length > 0) out.p = j.p;
  if (Object.keys(j.t).length > 0) out.t = j.t;
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A sealed journal opened: undefined when it is not one (only elicit seals, but be exact). */
export function unpackJournal(raw: unknown): Journal | undefined {
  if (!isRecord(raw) || typeof raw.n !== 'string') return undefined;
  const { a = {}, c = {}, s = {}, p = [], t = {} } = raw;
  if (!isRecord(a) || !isRecord(c) || !isRecord(s) || !isRecord(t)) return undefined;
  if (!Array.isArray(p) || !p.every((k) => typeof k === 'string')) return undefined;
  if (!Object.values(c).every((v) => typeof v === 'string')) return undefined;
  return { n: raw.n, a, c: c as Record<string, string>, s, p, t: t as Record<string, number> };
}

/** What every run on one server shares: its settings, stores and counters. */
export interface ReplayHost {
  readonly once: OnceStore;
  /** How long a marker must outlive its consumption: as long as any state of the conversation. */
  readonly onceTtlMs: number;
  readonly limits: AskLimits;
  readonly connect: ConnectSettings | undefined;
  /** The server's count of waiting asks (a request waiting for a URL step holds a slot). */
  readonly waits: PendingAsks;
  /** Where failures of work outside the request (a URL-mode wait's poll) are told. */
  readonly faults: Faults;
  /** The inbox for forms the client cannot show (createServer's `inbox`), if any. */
  readonly inbox?: ResolvedInbox | undefined;
}

/** One run of a handler: the request's part (the host's is shared by every run). */
export interface Run {
  readonly host: ReplayHost;
  readonly journal: Journal;
  /** No requestState came in: answers for whatever this run asks are taken. */
  readonly fresh: boolean;
  readonly responses: Readonly<Record<string, unknown>> | undefined;
  readonly caps: ClientCapabilities | undefined;
  /** The requests this run left unanswered, by key. */
  readonly pending: Map<string, InputRequest>;
  /** The marker lifetime when this run needs a longer one than the host's (a task's). */
  readonly onceTtlMs?: number;
  readonly revision: string;
  readonly principal: string;
  readonly clientId: string | undefined;
  readonly signal: AbortSignal;
  /** `ask.background()` turns this call into a task (ESCALATE); otherwise it goes on. */
  readonly escalate?: boolean;
  /** Forms the client cannot show go to the inbox (a tool call with createServer's `inbox`). */
  readonly inbox?: InboxRun;
}

/** A run's use of the inbox: what it needs to find its questions, and what it found. */
export interface InboxRun {
  readonly inbox: ResolvedInbox;
  /** The tool called (the page names it). */
  readonly name: string;
  /** The call's binding (principal, method, name, canonical arguments): `inboxCall` hashes it. */
  readonly identity: string;
  /** Questions still waiting for an answer on the page: the call ends with their link. */
  readonly waiting: string[];
  /** Answered questions this run took: removed once the call has its result. */
  readonly used: string[];
}

export function replayAsk(run: Run, ctx?: ServerContext): Ask {
  return createAsk(new ReplayEngine(run), run.principal, run.host.connect, ctx);
}

/**
 * The replay engine of one run. A class, as the push engine is: its methods are shared on the
 * prototype, and the task engine (task.ts) extends it where a task differs.
 */
export class ReplayEngine implements Engine {
  readonly run: Run;
  /** Keys whose response in this round's inputResponses was already taken. */
  readonly #taken = new Set<string>();

  constructor(run: Run) {
    this.run = run;
  }

  get revision(): string {
    return this.run.revision;
  }
  get caps(): ClientCapabilities | undefined {
    return this.run.caps;
  }
  get limits(): AskLimits {
    return this.run.host.limits;
  }

  /** The response this round carries for `key`, if `key` was asked last round (or fresh). */
  #offered(key: string): unknown {
    const { responses, fresh, journal } = this.run;
    if (responses === undefined || !Object.hasOwn(responses, key)) return undefined;
    if (!fresh && !journal.p.includes(key)) return undefined;
    return responses[key];
  }

  #addPending(key: string, request: InputRequest): void {
    const { pending } = this.run;
    pending.set(key, request);
    const max = this.limits.maxKeysPerRound;
    if (pending.size > max) {
      throw new AskUsageError(
        `A handler asked for ${pending.size} inputs in one round; the limit is ${max} (limits.maxKeysPerRound).`,
      );
    }
  }

  recall(key: string): unknown {
    const { a } = this.run.journal;
    return Object.hasOwn(a, key) ? a[key] : undefined;
  }

  remember(key: string, response: unknown, checkedBy?: string): void {
    const { journal } = this.run;
    journal.a[key] = response;
    if (checkedBy === undefined) delete journal.c[key];
    else journal.c[key] = checkedBy;
  }

  checkedBy(key: string): string | undefined {
    const { c } = this.run.journal;
    return Object.hasOwn(c, key) ? c[key] : undefined;
  }

  // Not async: an ask that suspends is a rejected promise, without an async frame to unwind.
  exchange(key: string, request: InputRequest, receiver?: Receiver): Promise<unknown> {
    if (!this.#taken.has(key)) {
      this.#taken.add(key);
      const response = this.#offered(key);
      if (response !== undefined)
        return receiver === undefined
          ? Promise.resolve(response)
          : new Promise((resolve) => resolve(receiver.received(response)));
    }
    try {
      this.#addPending(key, request);
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.reject(SUSPEND);
  }

  failed(key: string): number {
    const { t } = this.run.journal;
    const n = (t[key] ?? 0) + 1;
    t[key] = n;
    return n;
  }

  async step(key: string, fn: () => Promise<unknown>, once: boolean): Promise<unknown> {
    const { run } = this;
    const { journal } = run;
    if (Object.hasOwn(journal.s, key)) return journal.s[key];
    // A fresh request's nonce was minted this moment, so nothing else can hold its markers.
    // Any other run may be a replay of this conversation (the same state twice, or a sibling
    // state minted from an earlier one): the marker decides, and a store error refuses.
    if (once && !run.fresh) {
      let first: boolean;
      try {
        first = await run.host.once.consume(
          `${journal.n}:${key}`,
          run.onceTtlMs ?? run.host.onceTtlMs,
        );
      } catch (error) {
        if (error instanceof OnceStoreFullError) throw error;
        throw new OnceStoreUnavailableError(key, error);
      }
      if (!first) throw new ReplayError(key);
    }
    const value = await fn();
    journal.s[key] = value;
    return value;
  }

  get inbox(): Engine['inbox'] {
    const ib = this.run.inbox;
    if (ib === undefined) return undefined;
    return (key, question, receiver) => this.#viaInbox(ib, key, question, receiver);
  }

  /**
   * A form on the inbox page (2026-07-28): an answer the page gave this call (found by principal
   * and call, taken once per run) is the response; otherwise the question waits there (made
   * now, or the one already waiting) and the run suspends, so the call ends with the link.
   */
  async #viaInbox(
    ib: InboxRun,
    key: string,
    question: InboxRequest,
    receiver: Receiver,
  ): Promise<unknown> {
    const { principal } = this.run;
    // A call that may become a task (the tasks extension, a tool registered with `task`) does,
    // here: the task waits for the page's answer, which a call cannot.
    if (this.run.escalate === true) throw ESCALATE;
    const call = inboxCall(ib.identity, key);
    const found = await ib.inbox.port.find(principal, call);
    if (found?.status === 'answered' && !ib.used.includes(found.id)) {
      ib.used.push(found.id);
      return receiver.received(responseOf(found));
    }
    const id =
      found?.status === 'pending'
        ? found.id
        : (await createQuestion(ib.inbox, principal, call, ib.name, question)).id;
    ib.waiting.push(id);
    throw SUSPEND;
  }

  async round<T>(asks: readonly (() => Promise<T>)[]): Promise<T[]> {
    // Every ask of the round runs, so every pending request (and every question for the inbox)
    // goes out together.
    const results: unknown[] = [];
    for (const a of asks) {
      try {
        results.push(await a());
      } catch (error) {
        if (error !== SUSPEND) throw error;
        results.push(undefined);
      }
    }
    const waiting = this.run.inbox?.waiting.length ?? 0;
    if (this.run.pending.size > 0 || waiting > 0) throw SUSPEND;
    return results as T[];
  }

  async mustStep(purpose: RecordPurpose, subject: string, fresh: boolean): Promise<boolean> {
    return fresh || this.run.journal.s[urlStepKey(purpose, subject)] !== undefined;
  }

  async background(): Promise<void> {
    if (this.run.escalate === true) throw ESCALATE;
  }

  /**
   * Waits for a URL record the person has opened (the spec lets the server block until the
   * out-of-band step is done), counted among the waits and at most a minute.
   */
  #blockOn(settings: ConnectSettings, record: string): Promise<UrlRecord['status'] | 'timeout'> {
    const { run } = this;
    return run.host.waits.hold({ principal: run.principal, session: undefined }, () =>
      waitForRecord(
        settings,
        record,
        Math.min(settings.waitMs ?? 60_000, 60_000),
        run.host.faults,
        run.signal,
      ),
    );
  }

  /**
   * One URL step on 2026-07-28: the journal keeps the record id. A complete record continues; a
   * pending one whose link the person accepted is waited for (bounded), then asked again; a
   * declined or expired one ends; none yet creates the record and asks.
   */
  async urlStep(
    purpose: RecordPurpose,
    subject: string,
    label: string,
    description: string | undefined,
    message: string | undefined,
  ): Promise<UrlStepResult> {
    const { run } = this;
    const { journal, host } = run;
    const settings = host.connect;
    if (settings === undefined)
      throw new ConnectNotConfiguredError(purpose === 'connect' ? 'ask.connect' : 'ask.secret');
    const jkey = urlStepKey(purpose, subject);
    const { records } = settings.app;
    if (!declares(run.caps, 'url', run.revision)) {
      const viaInbox = this.inbox;
      if (viaInbox === undefined) throw new ElicitationUnsupportedError('URL elicitation');
      const fields = { purpose, subject, label, description };
      const text = linkMessage(purpose, label, message);
      return run.inbox === undefined
        ? this.#urlHeld(settings, viaInbox, jkey, fields, text)
        : this.#urlViaInbox(settings, run.inbox, jkey, fields, text);
    }
    let id = journal.s[jkey] as string | undefined;
    if (id !== undefined) {
      const record = await records.get(id);
      if (record?.status === 'complete') return { outcome: 'complete', record: id };
      if (record?.status === 'declined') return { outcome: 'decline' };
      if (record?.status === 'pending') {
        const answer = (this.#offered(jkey) as { action?: unknown } | undefined)?.action;
        if (answer === 'decline' || answer === 'cancel') {
          await records.finish(id, 'declined');
          return { outcome: answer };
        }
        if (answer === 'accept') {
          const waiting = id;
          const status = await this.#blockOn(settings, waiting);
          if (status === 'complete') return { outcome: 'complete', record: waiting };
          if (status === 'declined') return { outcome: 'decline' };
        }
      } else id = undefined; // expired or gone: start again
    }
    if (!declares(run.caps, 'url', run.revision))
      throw new ElicitationUnsupportedError('URL elicitation');
    if (id === undefined) {
      const record = await records.create({
        principal: run.principal,
        clientId: run.clientId,
        purpose,
        subject,
        label,
        description,
        origin: undefined,
      });
      id = record.id;
      journal.s[jkey] = id;
    }
    this.#addPending(jkey, {
      method: 'elicitation/create',
      params: {
        mode: 'url',
        message: linkMessage(purpose, label, message),
        url: settings.app.link(id),
      },
    } as InputRequest);
    throw SUSPEND;
  }

  /**
   * A URL step through the inbox on a 2026-07-28 call (the client has no URL mode): the page
   * waits there and the call ends with the link. The same call made again finds its question
   * (by principal, call and step): still waiting, the call ends with the link again; declined
   * there, the step ends; opened there, its record decides: complete continues (counted once),
   * still open is waited for (bounded, as for a client that accepted the link), and past that
   * the page waits in the inbox again.
   */
  async #urlViaInbox(
    settings: ConnectSettings,
    ib: InboxRun,
    jkey: string,
    fields: UrlFields,
    text: string,
  ): Promise<UrlStepResult> {
    const { run } = this;
    const { records } = settings.app;
    // A call that may become a task does, here: the task holds the wait a call cannot.
    if (run.escalate === true) throw ESCALATE;
    const call = inboxCall(ib.identity, jkey);
    const found = await ib.inbox.port.find(run.principal, call);
    if (found?.status === 'pending') {
      ib.waiting.push(found.id);
      throw SUSPEND;
    }
    const record = found?.elicitationId;
    if (found?.status === 'answered' && record !== undefined && !ib.used.includes(found.id)) {
      const action = found.answer?.action;
      if (action !== 'opened') {
        ib.used.push(found.id);
        await records.finish(record, 'declined');
        return { outcome: action === 'decline' ? 'decline' : 'cancel' };
      }
      // Opened on the inbox page.
      const status = await this.#blockOn(settings, record);
      if (status === 'complete' && (await records.claim(record))) {
        ib.used.push(found.id);
        return { outcome: 'complete', record };
      }
      if (status === 'declined') {
        ib.used.push(found.id);
        return { outcome: 'decline' };
      }
    }
    const made = await records.create({
      ...fields,
      principal: run.principal,
      clientId: run.clientId,
      origin: undefined,
    });
    const question = await createQuestion(ib.inbox, run.principal, call, ib.name, {
      message: text,
      url: settings.app.link(made.id),
      elicitationId: made.id,
    });
    ib.waiting.push(question.id);
    throw SUSPEND;
  }

  /**
   * A URL step through the inbox where the engine holds the wait (a task): the page waits in
   * the inbox; once opened there, the record's completion is waited for.
   */
  async #urlHeld(
    settings: ConnectSettings,
    viaInbox: NonNullable<Engine['inbox']>,
    jkey: string,
    fields: UrlFields,
    text: string,
  ): Promise<UrlStepResult> {
    const { run } = this;
    const { records } = settings.app;
    const record = await records.create({
      ...fields,
      principal: run.principal,
      clientId: run.clientId,
      origin: undefined,
    });
    const response = (await viaInbox(
      jkey,
      { message: text, url: settings.app.link(record.id), elicitationId: record.id },
      { received: (r) => r },
    )) as { action?: unknown } | undefined;
    const action = response?.action;
    if (action !== 'accept') {
      await records.finish(record.id, 'declined');
      return { outcome: action === 'decline' ? 'decline' : 'cancel' };
    }
    const waitMs = settings.waitMs ?? this.limits.timeoutMs;
    const status = await waitForRecord(settings, record.id, waitMs, run.host.faults, run.signal);
    if (status === 'complete') return { outcome: 'complete', record: record.id };
    if (status === 'timeout') throw new AskTimeoutError(fields.subject, waitMs);
    return { outcome: status === 'declined' ? 'decline' : 'cancel' };
  }
}

/** What a URL-mode record is about, as a URL step creates it. */
interface UrlFields {
  readonly purpose: RecordPurpose;
  readonly subject: string;
  readonly label: string;
  readonly description: string | undefined;
}
