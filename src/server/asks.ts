/**
 * The `ask` a handler receives, written once for every engine (src/server/engines/contract.ts). What a
 * method means, how answers are judged and re-asked, what a client must have declared and what a
 * step returns are decided here, so the eras cannot drift apart.
 */
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  InputRequest,
  ListRootsResult,
  ServerContext,
} from '@modelcontextprotocol/server';
import { isAtLeast } from '../kernel/revision.ts';
import {
  type AnswerIssue,
  boolean,
  form as buildForm,
  type Content,
  type Conversion,
  type Form,
  isRevision,
  revisionFeatures,
} from '../schema/index.ts';
import { lower } from '../schema/internal.ts';
import type {
  AllResult,
  AllSpec,
  AnswerOf,
  Ask,
  FormOptions,
  FormResult,
  UrlResult,
} from './ask.ts';
import { declares } from './capabilities.ts';
import { type Engine, type Receiver, SUSPEND } from './engines/contract.ts';
import { AnswerRejectedError, AskUsageError, ElicitationUnsupportedError } from './errors.ts';
import {
  type FormInput,
  formTag,
  type ResolvedForm,
  refuseSensitive,
  resolveForm,
} from './forms.ts';
import {
  askConnect,
  askSecret,
  type ConnectResult,
  type ConnectSettings,
  type SecretResult,
} from './url-mode.ts';

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

const KEY = /^[A-Za-z0-9_.:-]{1,64}$/;
function checkKey(key: string): void {
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new AskUsageError(
      `ask key ${JSON.stringify(key)} must be 1-64 letters, digits, "_", ".", ":" or "-", and stable across calls.`,
    );
  }
}

const defaultMessages = new WeakMap<ResolvedForm['schema'], string>();

/** The message of a form asked without one: made once per checked schema. */
function defaultMessage(form: ResolvedForm): string {
  const known = defaultMessages.get(form.schema);
  if (known !== undefined) return known;
  const names = form.schema.fields.map((f) => f.title ?? f.name);
  const message = names.length === 0 ? 'Please confirm.' : `Please provide: ${names.join(', ')}.`;
  defaultMessages.set(form.schema, message);
  return message;
}

function withReasons(message: string, issues: readonly AnswerIssue[], form: ResolvedForm): string {
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
function keepAnswers(
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

type Verdict = { result: FormResult<unknown> } | { issues: readonly AnswerIssue[] };

/**
 * Checks one elicitation response for a form. Returns the result to hand to the handler, or
 * the issues to re-ask with; a promise only when the form has an asynchronous refinement (no
 * suspended frame or extra turn for the common check). `mapAnswer` undoes a conversion for an
 * older peer.
 */
function judge(
  form: ResolvedForm,
  response: unknown,
  mapAnswer?: (c: Readonly<Record<string, unknown>>) => Content,
): Verdict | Promise<Verdict> {
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
  if (form.refine !== undefined) return refined(form.refine, parsed.value);
  return { result: { action: 'accept', content: parsed.value } };
}

/** A kept result (`FormExchange.tag`) as the handler gets it: a new object each replay. */
function keptResult(kept: unknown): FormResult<unknown> {
  const { action, content } = kept as {
    action: 'accept' | 'decline' | 'cancel';
    content?: unknown;
  };
  return (action === 'accept' ? { action, content } : { action }) as FormResult<unknown>;
}

/** The verdict of a form's refinement (which may be asynchronous) on a parsed answer. */
async function refined(
  refine: NonNullable<ResolvedForm['refine']>,
  value: unknown,
): Promise<Verdict> {
  const r = await refine(value as never);
  if (!r.ok) return { issues: r.issues };
  return { result: { action: 'accept', content: r.value } };
}

function rejected(
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
function forRevision(form: ResolvedForm, revision: string) {
  return lower(form.schema, isAtLeast(revision, '2025-11-25') ? '2025-11-25' : '2025-06-18');
}

type ConfirmForm = Form<{ confirmed: boolean }>;
const confirmForms = new Map<string, ConfirmForm>();

/** `ask.confirm` for any engine: one boolean form per label, kept (a few) so it is compiled once. */
async function confirm(
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

/**
 * The `ask` of one request over an engine. Its methods live on the prototype and are bound to
 * the instance the first time they are read, then kept as its own property: a handler may still
 * destructure them (`async (args, { form }) => …`), and a waiting call holds only the methods it
 * used, not a closure per method (thousands of calls may wait on people at once).
 */
class EngineAsk implements Ask {
  readonly #engine: Engine;
  readonly #principal: string;
  readonly #connect: ConnectSettings | undefined;
  readonly #ctx: ServerContext | undefined;

  constructor(
    engine: Engine,
    principal: string,
    connect: ConnectSettings | undefined,
    ctx: ServerContext | undefined,
  ) {
    this.#engine = engine;
    this.#principal = principal;
    this.#connect = connect;
    this.#ctx = ctx;
  }

  get revision(): string {
    return this.#engine.revision;
  }

  // `form`, bound at each read and not kept: the one method nearly every handler uses is read
  // to be called, so a waiting call holds no bound copy of it (a destructured one still works).
  get form(): Ask['form'] {
    return this.#askForm.bind(this) as Ask['form'];
  }

  async progress(progress: number, options?: { total?: number; message?: string }): Promise<void> {
    if (!Number.isFinite(progress))
      throw new AskUsageError(`ask.progress: progress must be a finite number, got ${progress}.`);
    const req = this.#ctx?.mcpReq;
    const token = req?._meta?.progressToken;
    if (req === undefined || token === undefined) return;
    const total = options?.total;
    const message = options?.message;
    await req.notify({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      },
    });
  }

  can(what: 'form' | 'url' | 'sampling' | 'roots'): boolean {
    return declares(this.#engine.caps, what, this.#engine.revision);
  }

  #askForm<F extends FormInput>(
    key: string,
    input: F,
    opts?: FormOptions,
  ): Promise<FormResult<AnswerOf<F>>> {
    const engine = this.#engine;
    let asking: FormExchange;
    try {
      checkKey(key);
      const form = resolveForm(input);
      refuseSensitive(key, form, opts?.allowSensitive);
      asking = new FormExchange(engine, key, form, lowerFor(engine, form), opts);
    } catch (error) {
      return Promise.reject(error);
    }
    const kept = engine.recall(key);
    if (kept === undefined) return asking.start() as never;
    // Checked when it came in, by this very form, and kept in an authenticated journal: the
    // result as it was then (content with its defaults), without a second check.
    const tag = asking.tag;
    if (tag !== undefined && engine.checkedBy?.(key) === tag)
      return Promise.resolve(keptResult(kept)) as never;
    return Promise.resolve(judge(asking.form, kept, asking.mapAnswer)).then((verdict) =>
      'result' in verdict ? verdict.result : asking.start(),
    ) as never;
  }

  confirm(key: string, message: string, options?: { label?: string }): Promise<boolean> {
    return confirm(this, key, message, options);
  }

  async all<S extends Record<string, AllSpec>>(
    specs: S,
  ): Promise<{ [K in keyof S]: AllResult<S[K]> }> {
    const keys = Object.keys(specs);
    const { limits } = this.#engine;
    if (keys.length > limits.maxKeysPerRound)
      throw new AskUsageError(
        `A handler asked for ${keys.length} inputs in one round; the limit is ${limits.maxKeysPerRound} (limits.maxKeysPerRound).`,
      );
    // Every member's capability first: a refusal must come before anything is on screen. A
    // form goes to the inbox where the server has one and the client cannot show it.
    for (const k of keys) {
      const spec = specs[k] as AllSpec;
      if ('form' in spec && this.#engine.inbox !== undefined) continue;
      need(this.#engine, 'form' in spec ? 'form' : 'sample' in spec ? 'sampling' : 'roots');
    }
    const results = await this.#engine.round(
      keys.map((k) => () => {
        const spec = specs[k] as AllSpec;
        if ('form' in spec) return this.form(k, spec.form, spec) as Promise<unknown>;
        if ('sample' in spec) return this.sample(k, spec.sample) as Promise<unknown>;
        return this.roots(k) as Promise<unknown>;
      }),
    );
    return Object.fromEntries(keys.map((k, i) => [k, results[i]])) as never;
  }

  async url(
    key: string,
    request: { message: string; url: string; elicitationId?: string },
  ): Promise<UrlResult> {
    const engine = this.#engine;
    checkKey(key);
    const kept = engine.recall(key) as { action?: unknown } | undefined;
    if (kept !== undefined) return { action: kept.action } as never;
    // A client without URL mode: the page waits in the inbox where the server has one.
    const inbox = declares(engine.caps, 'url', engine.revision) ? undefined : engine.inbox;
    if (inbox === undefined) need(engine, 'url');
    const response = (
      inbox !== undefined
        ? await inbox(key, { message: request.message, url: request.url }, { received: (r) => r })
        : await engine.exchange(
            key,
            elicit({
              mode: 'url',
              message: request.message,
              url: request.url,
              ...(request.elicitationId === undefined
                ? {}
                : { elicitationId: request.elicitationId }),
            }),
          )
    ) as { action?: unknown } | undefined;
    const a = response?.action;
    const action = a === 'accept' || a === 'decline' ? a : 'cancel';
    engine.remember(key, { action });
    return { action };
  }

  async step<T>(key: string, fn: () => T | Promise<T>): Promise<T> {
    checkKey(key);
    return (await this.#engine.step(key, async () => toJson(key, await fn()), false)) as T;
  }

  async once<T>(key: string, fn: () => T | Promise<T>): Promise<T> {
    checkKey(key);
    return (await this.#engine.step(key, async () => toJson(key, await fn()), true)) as T;
  }

  sample(key: string, params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    return raw(
      this.#engine,
      key,
      'sampling',
      { method: 'sampling/createMessage', params } as InputRequest,
      isSampling,
    );
  }

  roots(key: string): Promise<ListRootsResult> {
    return raw(
      this.#engine,
      key,
      'roots',
      { method: 'roots/list', params: {} } as InputRequest,
      isRoots,
    );
  }

  async connect(
    provider: string,
    opts?: { message?: string; label?: string; description?: string },
  ): Promise<ConnectResult> {
    const engine = this.#engine;
    const force = await engine.mustStep('connect', provider, false);
    return askConnect(this.#connect, this.#principal, provider, opts, force, (...a) =>
      engine.urlStep(...a),
    );
  }

  background(): Promise<void> {
    return this.#engine.background();
  }

  async secret(
    key: string,
    opts: { label: string; description?: string; message?: string; fresh?: boolean },
  ): Promise<SecretResult> {
    checkKey(key);
    const engine = this.#engine;
    const force = await engine.mustStep('secret', key, opts.fresh === true);
    return askSecret(this.#connect, this.#principal, key, opts, force, (...a) =>
      engine.urlStep(...a),
    );
  }
}

/**
 * The form as this client is asked it: lowered for its revision, or, when it goes to the inbox
 * (the server has one and the client cannot show forms, or cannot express this one), as it is:
 * `<elicit-form>` on the page speaks the latest revision, and its answer needs no mapping.
 */
function lowerFor(engine: Engine, form: ResolvedForm): Conversion | undefined {
  if (engine.inbox === undefined) return forRevision(form, engine.revision);
  if (!declares(engine.caps, 'form', engine.revision)) return undefined;
  try {
    return forRevision(form, engine.revision);
  } catch {
    return undefined;
  }
}

/**
 * One form asked until it has a usable answer, re-asked with reasons up to `maxAttempts`. A
 * promise chain over one small object rather than an async frame: while a person answers, a
 * waiting call holds only this and the engine's own wait.
 */
class FormExchange implements Receiver {
  readonly form: ResolvedForm;
  readonly mapAnswer: ((c: Readonly<Record<string, unknown>>) => Content) | undefined;
  readonly #engine: Engine;
  readonly #key: string;
  /** The form lowered for the client; undefined when it goes to the inbox as it is. */
  readonly #lowered: Conversion | undefined;
  readonly #message: string | undefined;

  constructor(
    engine: Engine,
    key: string,
    form: ResolvedForm,
    lowered: Conversion | undefined,
    opts: FormOptions | undefined,
  ) {
    this.form = form;
    this.mapAnswer = lowered === undefined || lowered.identity ? undefined : lowered.mapAnswer;
    this.#engine = engine;
    this.#key = key;
    this.#lowered = lowered;
    this.#message = opts?.message;
  }

  /**
   * The form's tag when its result is its check's alone (no refinement, no mapping from an older
   * revision): only then can a kept result stand for a check.
   */
  get tag(): string | undefined {
    return this.form.refine === undefined && this.mapAnswer === undefined
      ? formTag(this.form)
      : undefined;
  }

  get #requestedSchema(): object {
    return (this.#lowered ?? { requestedSchema: this.form.schema.requestedSchema }).requestedSchema;
  }

  get #text(): string {
    return this.#message ?? defaultMessage(this.form);
  }

  start(): Promise<FormResult<unknown>> {
    try {
      if (this.#lowered !== undefined) need(this.#engine, 'form');
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#ask(this.#text, this.#requestedSchema);
  }

  #ask(message: string, requestedSchema: object): Promise<FormResult<unknown>> {
    const engine = this.#engine;
    if (this.#lowered === undefined && engine.inbox !== undefined)
      return engine.inbox(this.#key, { message, requestedSchema }, this) as Promise<
        FormResult<unknown>
      >;
    return engine.exchange(
      this.#key,
      elicit({ mode: 'form', message, requestedSchema }),
      this,
    ) as Promise<FormResult<unknown>>;
  }

  /**
   * The client's response to this form (the engine calls it where the response arrives): the
   * result, or a promise of it when the form's refinement is asynchronous or the form is asked
   * again. Throws when the answers have run out of attempts.
   */
  received(response: unknown): FormResult<unknown> | Promise<FormResult<unknown>> {
    const verdict = judge(this.form, response, this.mapAnswer);
    if (verdict instanceof Promise) return verdict.then((v) => this.#settle(response, v));
    return this.#settle(response, verdict);
  }

  #settle(response: unknown, verdict: Verdict): FormResult<unknown> | Promise<FormResult<unknown>> {
    const engine = this.#engine;
    const key = this.#key;
    if ('result' in verdict) {
      const tag = this.tag;
      // A result this form's check alone made (JSON in, its defaults added) is kept as the
      // result, named by the form, so a later round takes it as it is; anything else (a
      // refinement's value, an answer mapped from an older revision) is kept as the response.
      if (tag === undefined) engine.remember(key, response);
      else engine.remember(key, verdict.result, tag);
      return verdict.result;
    }
    const attempts = engine.failed(key);
    if (attempts >= engine.limits.maxAttempts) throw rejected(key, attempts, verdict.issues);
    return this.#ask(
      withReasons(this.#text, verdict.issues, this.form),
      this.#lowered === undefined || this.#lowered.identity
        ? keepAnswers(this.form, engine.revision, response, verdict.issues)
        : this.#lowered.requestedSchema,
    );
  }
}

// Each method becomes a getter that binds it to the instance on first read (see EngineAsk).
for (const name of Object.getOwnPropertyNames(EngineAsk.prototype)) {
  const own = Object.getOwnPropertyDescriptor(EngineAsk.prototype, name);
  if (name === 'constructor' || typeof own?.value !== 'function') continue;
  const method = (EngineAsk.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[
    name
  ] as (...a: unknown[]) => unknown;
  Object.defineProperty(EngineAsk.prototype, name, {
    configurable: true,
    enumerable: false,
    get(this: EngineAsk) {
      const bound = method.bind(this);
      Object.defineProperty(this, name, { value: bound, configurable: true, writable: true });
      return bound;
    },
  });
}

/** A request the client answers with a result (sampling, roots); kept once it has the right shape. */
async function raw<T>(
  engine: Engine,
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
    if (n >= engine.limits.maxAttempts)
      throw rejected(key, n, [
        {
          code: 'type',
          field: undefined,
          message: `The client's ${what} result had the wrong shape.`,
        },
      ]);
  }
}

/**
 * The `ask` of one request over `engine`; `connect` and `principal` serve ask.connect/secret,
 * `ctx` (the context the handler receives) ask.progress.
 */
export function createAsk(
  engine: Engine,
  principal: string,
  connect: ConnectSettings | undefined,
  ctx: ServerContext | undefined,
): Ask {
  return new EngineAsk(engine, principal, connect, ctx);
}

export { SUSPEND };
