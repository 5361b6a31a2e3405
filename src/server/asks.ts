/**
 * The `ask` a handler receives, written once for every engine (src/server/engine.ts). What a
 * method means, how answers are judged and re-asked, what a client must have declared and what a
 * step returns are decided here, so the eras cannot drift apart.
 */
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  InputRequest,
  ListRootsResult,
} from '@modelcontextprotocol/server';
import {
  type AllSpec,
  type Ask,
  checkKey,
  confirm,
  declares,
  defaultMessage,
  forRevision,
  judge,
  keepAnswers,
  rejected,
  withReasons,
} from './ask.ts';
import { type Engine, SUSPEND } from './engine.ts';
import { AskUsageError, ElicitationUnsupportedError } from './errors.ts';
import { refuseSensitive, resolveForm } from './forms.ts';
import { askConnect, askSecret, type ConnectSettings } from './url-mode.ts';

const CAPABILITY_NAMES = {
  form: 'form elicitation',
  url: 'URL elicitation',
  sampling: 'sampling',
  roots: 'roots',
} as const;

function need(engine: Engine, what: keyof typeof CAPABILITY_NAMES): void {
  if (!declares(engine.caps, what, engine.revision))
    throw new ElicitationUnsupportedError(CAPABILITY_NAMES[what]);
}

const elicit = (params: object) => ({ method: 'elicitation/create', params }) as InputRequest;

/** What the client sent back is the shape asked for (the SDK checks this on 2025 sessions too). */
function isSampling(r: unknown): r is CreateMessageResult {
  return typeof r === 'object' && r !== null && 'content' in r && 'role' in r;
}
function isRoots(r: unknown): r is ListRootsResult {
  return typeof r === 'object' && r !== null && Array.isArray((r as { roots?: unknown }).roots);
}

/**
 * A step's result as JSON, the same on every era (a replay can only give back JSON). `undefined`
 * becomes null; anything JSON cannot carry faithfully is a usage error naming where it is.
 */
export function toJson(key: string, value: unknown): unknown {
  if (value === undefined) return null;
  const problem = notJson(value, '', 0);
  if (problem !== undefined)
    throw new AskUsageError(
      `ask.step('${key}') must return a JSON value (string, finite number, boolean, null, array or plain object); ${problem}. Return a JSON form instead, e.g. a date as date.toISOString().`,
    );
  return JSON.parse(JSON.stringify(value));
}

function notJson(v: unknown, at: string, depth: number): string | undefined {
  const where = at === '' ? 'the result' : `the result at ${at}`;
  if (depth > 64) return `${where} is nested more than 64 levels deep`;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : `${where} is ${v}`;
  if (typeof v !== 'object') return `${where} is a ${typeof v}`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p =
        v[i] === undefined
          ? `${where}[${i}] is undefined`
          : notJson(v[i], `${at}[${i}]`, depth + 1);
      if (p !== undefined) return p;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null)
    return `${where} is a ${(v as object).constructor?.name ?? 'non-plain'} object`;
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined) continue; // dropped, as JSON does
    const p = notJson(x, `${at}.${k}`, depth + 1);
    if (p !== undefined) return p;
  }
  return undefined;
}

/** The `ask` of one request over `engine`; `connect` and `principal` serve ask.connect/secret. */
export function createAsk(
  engine: Engine,
  principal: string,
  connect: ConnectSettings | undefined,
): Ask {
  const { limits } = engine;

  /** A request the client answers with a result (sampling, roots); kept once it has the right shape. */
  async function raw<T>(
    key: string,
    what: 'sampling' | 'roots',
    request: InputRequest,
    valid: (r: unknown) => r is T,
  ): Promise<T> {
    checkKey(key);
    const kept = engine.recall(key);
    if (kept !== undefined) return kept as T;
    need(engine, what);
    for (;;) {
      const response = await engine.exchange(key, request);
      if (valid(response)) {
        engine.remember(key, response);
        return response;
      }
      const n = engine.failed(key);
      if (n >= limits.maxAttempts)
        throw rejected(key, n, [
          {
            code: 'type',
            field: undefined,
            message: `The client's ${what} result had the wrong shape.`,
          },
        ]);
    }
  }

  const ask: Ask = {
    revision: engine.revision,
    can: (what) => declares(engine.caps, what, engine.revision),

    async form(key, input, opts) {
      checkKey(key);
      const form = resolveForm(input);
      refuseSensitive(key, form, opts?.allowSensitive);
      const lowered = forRevision(form, engine.revision);
      const mapAnswer = lowered.identity ? undefined : lowered.mapAnswer;
      const kept = engine.recall(key);
      if (kept !== undefined) {
        const verdict = await judge(form, kept, mapAnswer);
        if ('result' in verdict) return verdict.result as never;
      }
      need(engine, 'form');
      const message = opts?.message ?? defaultMessage(form);
      let request = elicit({ mode: 'form', message, requestedSchema: lowered.requestedSchema });
      for (;;) {
        const response = await engine.exchange(key, request);
        const verdict = await judge(form, response, mapAnswer);
        if ('result' in verdict) {
          engine.remember(key, response);
          return verdict.result as never;
        }
        const attempts = engine.failed(key);
        if (attempts >= limits.maxAttempts) throw rejected(key, attempts, verdict.issues);
        request = elicit({
          mode: 'form',
          message: withReasons(message, verdict.issues, form),
          requestedSchema: lowered.identity
            ? keepAnswers(form, engine.revision, response, verdict.issues)
            : lowered.requestedSchema,
        });
      }
    },

    confirm: (key, message, options) => confirm(ask, key, message, options),

    async all(specs) {
      const keys = Object.keys(specs);
      if (keys.length > limits.maxKeysPerRound)
        throw new AskUsageError(
          `A handler asked for ${keys.length} inputs in one round; the limit is ${limits.maxKeysPerRound} (limits.maxKeysPerRound).`,
        );
      const results = await engine.round(
        keys.map((k) => () => {
          const spec = specs[k] as AllSpec;
          if ('form' in spec) return ask.form(k, spec.form, spec) as Promise<unknown>;
          if ('sample' in spec) return ask.sample(k, spec.sample) as Promise<unknown>;
          return ask.roots(k) as Promise<unknown>;
        }),
      );
      return Object.fromEntries(keys.map((k, i) => [k, results[i]])) as never;
    },

    async url(key, request) {
      checkKey(key);
      const kept = engine.recall(key) as { action?: unknown } | undefined;
      if (kept !== undefined) return { action: kept.action } as never;
      need(engine, 'url');
      const response = (await engine.exchange(
        key,
        elicit({ mode: 'url', message: request.message, url: request.url }),
      )) as { action?: unknown } | undefined;
      const a = response?.action;
      const action = a === 'accept' || a === 'decline' ? a : 'cancel';
      engine.remember(key, { action });
      return { action };
    },

    async step(key, fn) {
      checkKey(key);
      return (await engine.step(key, async () => toJson(key, await fn()), false)) as never;
    },

    async once(key, fn) {
      checkKey(key);
      return (await engine.step(key, async () => toJson(key, await fn()), true)) as never;
    },

    sample: (key, params: CreateMessageRequestParams) =>
      raw(
        key,
        'sampling',
        { method: 'sampling/createMessage', params } as InputRequest,
        isSampling,
      ),

    roots: (key) =>
      raw(key, 'roots', { method: 'roots/list', params: {} } as InputRequest, isRoots),

    async connect(provider, opts) {
      const force = await engine.mustStep('connect', provider, false);
      return askConnect(connect, principal, provider, opts, force, engine.urlStep);
    },

    background: () => engine.background(),

    async secret(key, opts) {
      checkKey(key);
      const force = await engine.mustStep('secret', key, opts.fresh === true);
      return askSecret(connect, principal, key, opts, force, engine.urlStep);
    },
  };
  return ask;
}

export { SUSPEND };
