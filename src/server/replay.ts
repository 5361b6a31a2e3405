/**
 * The modern engine (2026-07-28): the handler is replayed each round. A run opens the journal,
 * takes the client's answers for the keys the previous round asked (others are ignored), runs
 * the handler until the first unanswered ask, and collects every pending request.
 */
import { randomBytes } from 'node:crypto';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  InputRequest,
} from '@modelcontextprotocol/server';
import type { RecordPurpose } from '../connect/records.ts';
import {
  type AllSpec,
  type Ask,
  type AskLimits,
  checkKey,
  confirm,
  declares,
  defaultMessage,
  type FormOptions,
  type FormResult,
  judge,
  keepAnswers,
  rejected,
  withReasons,
} from './ask.ts';
import { AskUsageError, ElicitationUnsupportedError, ReplayError } from './errors.ts';
import { type FormInput, refuseSensitive, resolveForm } from './forms.ts';
import { type OnceStore, OnceStoreFullError, OnceStoreUnavailableError } from './once-store.ts';
import type { PendingAsks } from './pending.ts';
import {
  askConnect,
  askSecret,
  ConnectNotConfiguredError,
  type ConnectSettings,
  linkMessage,
  waitForRecord,
} from './url-mode.ts';

/** What the sealed requestState carries between rounds. */
export interface Journal {
  /**
   * The conversation's nonce, minted on the fresh request and kept by every state after it:
   * single-use markers are named by it, so sibling states of one conversation share markers.
   */
  n: string;
  /** Accepted responses by key (re-validated on every replay). */
  a: Record<string, unknown>;
  /** Step results by key. */
  s: Record<string, unknown>;
  /** Keys asked in the previous round: the only answers taken. */
  p: string[];
  /** Invalid attempts by key. */
  t: Record<string, number>;
}

export function freshJournal(): Journal {
  return { n: randomBytes(16).toString('base64url'), a: {}, s: {}, p: [], t: {} };
}

/** Thrown by an ask that has to wait for the client; the runner turns it into input_required. */
export const SUSPEND: unique symbol = Symbol('elicit.suspend');

export interface Run {
  readonly journal: Journal;
  /** No requestState came in: answers for whatever this run asks are taken. */
  readonly fresh: boolean;
  readonly responses: Readonly<Record<string, unknown>> | undefined;
  readonly caps: ClientCapabilities | undefined;
  readonly pending: Map<string, InputRequest>;
  readonly once: OnceStore;
  /** How long a marker must outlive its consumption: as long as any state of the conversation. */
  readonly onceTtlMs: number;
  readonly limits: AskLimits;
  readonly revision: string;
  readonly principal: string;
  readonly clientId: string | undefined;
  readonly connect: ConnectSettings | undefined;
  readonly signal: AbortSignal;
  /** The server's count of waiting asks (a request waiting for a URL step holds a slot). */
  readonly waits: PendingAsks;
}

function offered(run: Run, key: string): unknown {
  if (run.responses === undefined || !Object.hasOwn(run.responses, key)) return undefined;
  if (!run.fresh && !run.journal.p.includes(key)) return undefined;
  return run.responses[key];
}

function addPending(run: Run, key: string, request: InputRequest): void {
  run.pending.set(key, request);
  if (run.pending.size > run.limits.maxKeysPerRound) {
    throw new AskUsageError(
      `A handler asked for ${run.pending.size} inputs in one round; the limit is ${run.limits.maxKeysPerRound} (limits.maxKeysPerRound).`,
    );
  }
}

function suspendIfPending(run: Run): void {
  if (run.pending.size > 0) throw SUSPEND;
}

export function modernAsk(run: Run): Ask {
  const { journal } = run;

  async function resolveOne(
    key: string,
    input: FormInput,
    opts?: FormOptions,
  ): Promise<FormResult<unknown> | undefined> {
    checkKey(key);
    const form = resolveForm(input);
    refuseSensitive(key, form, opts?.allowSensitive);
    if (Object.hasOwn(journal.a, key)) {
      const verdict = await judge(form, journal.a[key]);
      if ('result' in verdict) return verdict.result;
    }
    if (!declares(run.caps, 'form')) throw new ElicitationUnsupportedError('form elicitation');
    const message = opts?.message ?? defaultMessage(form);
    const response = offered(run, key);
    let text = message;
    let requestedSchema: object = form.schema.requestedSchema;
    if (response !== undefined) {
      const verdict = await judge(form, response);
      if ('result' in verdict) {
        journal.a[key] = response;
        return verdict.result;
      }
      const attempts = (journal.t[key] ?? 0) + 1;
      journal.t[key] = attempts;
      if (attempts >= run.limits.maxAttempts) throw rejected(key, attempts, verdict.issues);
      text = withReasons(message, verdict.issues, form);
      requestedSchema = keepAnswers(form, run.revision, response, verdict.issues);
    }
    addPending(run, key, {
      method: 'elicitation/create',
      params: { mode: 'form', message: text, requestedSchema },
    } as InputRequest);
    return undefined;
  }

  async function journaled<T>(key: string, fn: () => T | Promise<T>): Promise<T> {
    const value = await fn();
    // Journal the JSON form, and hand back the same form the replays will see.
    const json = value === undefined ? null : JSON.parse(JSON.stringify(value));
    journal.s[key] = json;
    return json as T;
  }

  /** A sampling or roots request: the client's result is kept as it came, once it has the right shape. */
  function raw(key: string, capability: 'sampling' | 'roots', request: InputRequest): unknown {
    checkKey(key);
    if (Object.hasOwn(journal.a, key)) return journal.a[key];
    if (!declares(run.caps, capability)) throw new ElicitationUnsupportedError(capability);
    const response = offered(run, key);
    const valid =
      typeof response === 'object' &&
      response !== null &&
      (capability === 'sampling'
        ? 'content' in response && 'role' in response
        : Array.isArray((response as { roots?: unknown }).roots));
    if (valid) {
      journal.a[key] = response;
      return response;
    }
    addPending(run, key, request);
    return undefined;
  }
  const sampling = (params: CreateMessageRequestParams) =>
    ({ method: 'sampling/createMessage', params }) as InputRequest;
  const rootsList = { method: 'roots/list', params: {} } as InputRequest;

  /**
   * One URL step on 2026-07-28: the journal keeps the record id. A complete record continues; a
   * pending one whose link the person accepted is waited for (bounded), then asked again; a
   * declined or expired one ends; none yet creates the record and asks.
   */
  async function urlStep(
    purpose: RecordPurpose,
    subject: string,
    label: string,
    description: string | undefined,
    message: string | undefined,
  ): Promise<'complete' | 'decline' | 'cancel'> {
    const settings = run.connect;
    if (settings === undefined)
      throw new ConnectNotConfiguredError(purpose === 'connect' ? 'ask.connect' : 'ask.secret');
    const jkey = `${purpose}:${subject}`;
    const { records } = settings.app;
    let id = journal.s[jkey] as string | undefined;
    if (id !== undefined) {
      const record = await records.get(id);
      if (record?.status === 'complete') return 'complete';
      if (record?.status === 'declined') return 'decline';
      if (record?.status === 'pending') {
        const answer = (offered(run, jkey) as { action?: unknown } | undefined)?.action;
        if (answer === 'decline' || answer === 'cancel') {
          await records.finish(id, 'declined');
          return answer;
        }
        if (answer === 'accept') {
          // The spec lets the server block until the out-of-band step is done.
          const waiting = id;
          const status = await run.waits.hold(
            { principal: run.principal, session: undefined },
            () =>
              waitForRecord(
                settings,
                waiting,
                Math.min(settings.waitMs ?? 60_000, 60_000),
                run.signal,
              ),
          );
          if (status === 'complete') return 'complete';
          if (status === 'declined') return 'decline';
        }
      } else id = undefined; // expired or gone: start again
    }
    if (!declares(run.caps, 'url')) throw new ElicitationUnsupportedError('URL elicitation');
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
    addPending(run, jkey, {
      method: 'elicitation/create',
      params: {
        mode: 'url',
        message: linkMessage(purpose, label, message),
        url: settings.app.link(id),
      },
    } as InputRequest);
    throw SUSPEND;
  }

  const ask: Ask = {
    confirm: (key, message, options) => confirm(ask, key, message, options),
    revision: run.revision,
    async connect(provider, opts) {
      const underway = journal.s[`connect:${provider}`] !== undefined;
      return askConnect(run.connect, run.principal, provider, opts, underway, urlStep);
    },
    async secret(key, opts) {
      checkKey(key);
      const underway = journal.s[`secret:${key}`] !== undefined;
      return askSecret(
        run.connect,
        run.principal,
        key,
        opts,
        opts.fresh === true || underway,
        urlStep,
      );
    },
    can: (what) => declares(run.caps, what),
    async form(key, input, opts) {
      const result = await resolveOne(key, input, opts);
      if (result === undefined) throw SUSPEND;
      return result as never;
    },
    async all(specs) {
      const results: Record<string, unknown> = {};
      for (const k of Object.keys(specs)) {
        const spec = specs[k] as AllSpec;
        if ('form' in spec) results[k] = await resolveOne(k, spec.form, spec);
        else if ('sample' in spec) results[k] = raw(k, 'sampling', sampling(spec.sample));
        else results[k] = raw(k, 'roots', rootsList);
      }
      suspendIfPending(run);
      return results as never;
    },
    async step(key, fn) {
      checkKey(key);
      if (Object.hasOwn(journal.s, key)) return journal.s[key] as never;
      return journaled(key, fn);
    },
    async once(key, fn) {
      checkKey(key);
      if (Object.hasOwn(journal.s, key)) return journal.s[key] as never;
      // A fresh request's nonce was minted this moment, so nothing else can hold its markers.
      // Any other run may be a replay of this conversation (the same state twice, or a sibling
      // state minted from an earlier one): the marker decides, and a store error refuses.
      if (!run.fresh) {
        let first: boolean;
        try {
          first = await run.once.consume(`${journal.n}:${key}`, run.onceTtlMs);
        } catch (error) {
          if (error instanceof OnceStoreFullError) throw error;
          throw new OnceStoreUnavailableError(key, error);
        }
        if (!first) throw new ReplayError(key);
      }
      return journaled(key, fn);
    },
    async url(key, request) {
      checkKey(key);
      const done = journal.a[key] as { action?: unknown } | undefined;
      if (done !== undefined) return { action: done.action } as never;
      if (!declares(run.caps, 'url')) throw new ElicitationUnsupportedError('URL elicitation');
      const response = offered(run, key) as { action?: unknown } | undefined;
      if (
        response?.action === 'accept' ||
        response?.action === 'decline' ||
        response?.action === 'cancel'
      ) {
        journal.a[key] = { action: response.action };
        return { action: response.action };
      }
      addPending(run, key, {
        method: 'elicitation/create',
        params: { mode: 'url', message: request.message, url: request.url },
      } as InputRequest);
      throw SUSPEND;
    },
    async sample(key, params) {
      const result = raw(key, 'sampling', sampling(params));
      if (result === undefined) throw SUSPEND;
      return result as never;
    },
    async roots(key) {
      const result = raw(key, 'roots', rootsList);
      if (result === undefined) throw SUSPEND;
      return result as never;
    },
  };
  return ask;
}
