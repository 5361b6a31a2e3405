/**
 * One forwarded call (tools/call, prompts/get, resources/read), written once over elicit/server's
 * `ask`, so each question reaches the host the way the host's revision asks: pushed as
 * `elicitation/create` on a 2025 session, or an `input_required` round with a sealed,
 * principal-bound requestState on 2026-07-28 (the forwarding handler is then replayed each
 * round, and what it learnt from the server is journaled with `ask.step`).
 *
 * Toward the server, two ways:
 * - a 2026-07-28 server answers `input_required`: the gateway asks each inputRequest and retries
 *   with `inputResponses` and the server's `requestState` (`rounds`);
 * - a 2025 server pushes its questions while the call is open: the call is held (held.ts), and
 *   each pushed question is the held call's next event (`held`).
 */
import { randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequest,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/server';
import {
  callToolAsTask,
  followTask,
  TASKS_EXTENSION,
  TaskFailed,
  TaskRefused,
} from '../client/index.ts';
import { createdTask, sdkTaskWire } from '../client/internal.ts';
import { ElicitError } from '../errors.ts';
import { joinKey } from '../kernel/keys.ts';
import type { TokenBuckets } from '../kernel/rate-limit.ts';
import { eraOf, hasUrlCompletions, schemaRevisionOf } from '../kernel/revision.ts';
import {
  applyDefaults,
  type CompiledSchema,
  compileSchema,
  emitSchema,
  SchemaError,
} from '../schema/index.ts';
import type { Ask } from '../server/index.ts';
import { runsAsLegacyTask, type TaskEnd } from '../server/internal.ts';
import { analyzeUrl, type UrlAnalysis } from '../url/index.ts';
import type { HeldCall, HeldCalls } from './held.ts';
import type { Inbox } from './inbox.ts';
import {
  type AuditEntry,
  type AuditLog,
  auditUrl,
  decide,
  formOutcome,
  type Policy,
  redact,
  urlOutcome,
} from './policy.ts';
import type { HeldAnswer, Upstream } from './upstream.ts';

export type CallMethod = 'tools/call' | 'prompts/get' | 'resources/read';

/** What a forwarded call needs from its gateway. */
export interface ForwardHost {
  readonly upstream: Upstream;
  readonly held: HeldCalls;
  /** Questions per principal and server (the client pipeline's default: 10 at once, 30 a minute). */
  readonly buckets: TokenBuckets;
  /** Milliseconds a round toward a 2026-07-28 server may stay silent; progress resets it. */
  readonly callTimeoutMs: number;
  /** Rounds toward the server in one call. */
  readonly maxRounds: number;
  /** Answer policies (headless runs) and the audit log. */
  readonly policy?: Policy | undefined;
  readonly audit?: AuditLog | undefined;
  /** The tool, prompt or resource of this call (set per call by `forward`). */
  readonly tool?: string;
  /** Where forms wait when the host cannot show them (or a rule says `inbox`). */
  readonly inbox?: Inbox | undefined;
  /**
   * The call's signal, its principal (whose inbox a question waits in) and progress keep-alive
   * while a question waits there (per call).
   */
  readonly call?: {
    readonly signal: AbortSignal;
    readonly principal: string;
    keepAlive(): () => void;
  };
  /** How long a page of a -32042 may take to be reported complete before the call is made again. */
  readonly pageWaitMs: number;
  principalOf(ctx: ServerContext): string;
  /**
   * When `ctx` is a run of a 2026-07-28 task: watches the task and calls `onEnd` when it ends;
   * the result stops the watch. Undefined outside a task.
   */
  watchTask(ctx: ServerContext, onEnd: (end: TaskEnd) => void): (() => void) | undefined;
}

type Result = Record<string, unknown>;

/** The keys `ask` takes (server/ask.ts). */
const ASK_KEY = /^[A-Za-z0-9_.:-]{1,64}$/;

function isInputRequired(r: unknown): r is {
  resultType: 'input_required';
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
} {
  return (r as { resultType?: unknown } | null)?.resultType === 'input_required';
}

/** The server's progress, on the host's token. */
function progressTo(ctx: ServerContext) {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  return (p: { progress: number; total?: number; message?: string }) => {
    void ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { ...p, progressToken: token } } as never)
      .catch(() => {});
  };
}

/**
 * What the host can be asked, as client capabilities: a 2026-07-28 server reads them per request,
 * so it asks only what will reach the host (a 2025 server saw the gateway's at initialize).
 */
function hostCapabilities(host: ForwardHost, ask: Ask, task: boolean): Record<string, unknown> {
  // With a policy the gateway itself can answer (and decline a page) when the host cannot.
  const ruled = host.policy !== undefined;
  const elicitation: Record<string, object> = {};
  if (ruled || host.inbox !== undefined || ask.can('form')) elicitation.form = {};
  if (ruled || host.inbox !== undefined || ask.can('url')) elicitation.url = {};
  return {
    ...(Object.keys(elicitation).length > 0 ? { elicitation } : {}),
    ...(ask.can('sampling') ? { sampling: {} } : {}),
    ...(ask.can('roots') ? { roots: {} } : {}),
    // A call the host runs as a task may be one on the server too (followed by `followTask`).
    ...(task ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
  };
}

/** Sends one request to the server and returns its result, input_required included. */
function send(
  host: ForwardHost,
  method: CallMethod,
  call: Result,
  ctx: ServerContext,
  signal: AbortSignal,
  timeout: number,
  ask?: Ask,
  task = false,
): Promise<Result> {
  const onprogress = progressTo(ctx);
  const params =
    ask === undefined
      ? call
      : { ...call, _meta: { [CLIENT_CAPABILITIES_META_KEY]: hostCapabilities(host, ask, task) } };
  return host.upstream.client.request(
    { method, params } as never,
    {
      signal,
      timeout,
      resetTimeoutOnProgress: true,
      allowInputRequired: true,
      ...(onprogress === undefined ? {} : { onprogress }),
    } as never,
  ) as Promise<Result>;
}

/** Progress on the host's token every 15 s while a question waits in the inbox. */
function callContext(ctx: ServerContext, principal: string): NonNullable<ForwardHost['call']> {
  const token = ctx.mcpReq._meta?.progressToken;
  return {
    signal: ctx.mcpReq.signal,
    principal,
    keepAlive() {
      if (token === undefined) return () => {};
      let beat = 0;
      const timer = setInterval(() => {
        void ctx.mcpReq
          .notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: ++beat, message: 'waiting in the inbox' },
          } as never)
          .catch(() => {});
      }, 15_000);
      return () => clearInterval(timer);
    },
  };
}

/** Forwards one call; what the server asks on the way is asked of the host through `ask`. */
export function forward(
  host: ForwardHost,
  method: CallMethod,
  params: Result,
  ask: Ask,
  ctx: ServerContext,
): Promise<unknown> {
  // Only what the call is: a host's own _meta (progress token, envelope) is not the server's.
  const { _meta: _ignored, inputResponses: _r, requestState: _s, ...call } = params;
  const name =
    typeof call.name === 'string' ? call.name : typeof call.uri === 'string' ? call.uri : '';
  const scoped: ForwardHost = {
    ...host,
    tool: name,
    call: callContext(ctx, host.principalOf(ctx)),
  };
  return host.upstream.modern
    ? rounds(scoped, method, call, ask, ctx)
    : held(scoped, method, call, ask, ctx);
}

async function rounds(
  host: ForwardHost,
  method: CallMethod,
  call: Result,
  ask: Ask,
  ctx: ServerContext,
): Promise<unknown> {
  let retry: Result = {};
  const used = new Set<string>();
  // URL pages asked of a 2025 host: told complete once the server stops asking for them.
  let pages = new Map<string, string>();
  // A tools/call the host runs as a 2025-11-25 task is offered to the server as a task too.
  const task = method === 'tools/call' && runsAsLegacyTask(ctx);
  for (let round = 0; round <= host.maxRounds; round++) {
    const r = await ask.step(`u${round}`, () =>
      send(
        host,
        method,
        { ...call, ...retry },
        ctx,
        ctx.mcpReq.signal,
        host.callTimeoutMs,
        ask,
        task,
      ).catch((error: unknown) => {
        // The server made the call a task: its CreateTaskResult, followed below.
        const created = task ? createdTask(error) : undefined;
        if (created === undefined) throw error;
        return { ...created, resultType: 'task' } as Result;
      }),
    );
    if (task && r.resultType === 'task') return followServerTask(host, ask, ctx, r, used);
    const requests = isInputRequired(r) ? (r.inputRequests ?? {}) : {};
    const asked = new Map<string, string>();
    for (const request of Object.values(requests)) {
      const url = (request.params as { url?: unknown } | undefined)?.url;
      if (request.method === 'elicitation/create' && typeof url === 'string') {
        asked.set(url, pages.get(url) ?? randomUUID());
      }
    }
    for (const [url, id] of pages)
      if (!asked.has(url)) await completed(ctx, ask, id).catch(() => {});
    pages = asked;
    if (!isInputRequired(r)) return r;
    const allowed = await ask.step(`l${round}`, () =>
      Object.keys(requests).map(() => takeToken(host, ctx)),
    );
    const responses = await answerAll(
      host,
      ask,
      (key, i) => {
        // The host sees the server's own keys, each once per conversation (a replay makes the
        // same choices); a key elicit cannot use, or one an earlier round used, is renamed.
        const own =
          ASK_KEY.test(key) && key.length <= 60 && !used.has(key) ? key : `r${round}.${i}`;
        used.add(own);
        return own;
      },
      Object.entries(requests),
      allowed,
      asked,
    );
    retry = {
      inputResponses: responses,
      ...(r.requestState === undefined ? {} : { requestState: r.requestState }),
    };
  }
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `The server asked for input more than ${host.maxRounds} times in one call; the gateway stopped.`,
  );
}

/**
 * The pages of a -32042 (URL elicitation required), or undefined for any other error. Only a
 * 2025 server answers it: on 2026-07-28 the SDK refuses to send it (a server asks for a page
 * with a URL input request there, which reaches the host or the inbox as any other question).
 */
function urlRequired(error: unknown): Page[] | undefined {
  if (error instanceof UrlElicitationRequiredError) return error.elicitations;
  // The client's and the server's packages may each carry their own class: the code decides.
  const e = error as { code?: unknown; data?: { elicitations?: unknown } } | null;
  if (e?.code !== URL_REQUIRED_CODE || !Array.isArray(e.data?.elicitations)) return undefined;
  return e.data.elicitations as Page[];
}

/** One page of a -32042. */
type Page = { url: string; message: string; elicitationId: string };

const URL_REQUIRED_CODE = -32042;

/**
 * A task the server made of a call the host runs as a 2025-11-25 task: followed to its end with
 * elicit/client's `followTask` (tasks/get at the server's interval, each input request asked of
 * the host through the host's own task, the answer sent with tasks/update). Cancelling the
 * host's task cancels the server's; a failed task fails the host's with the server's error.
 */
async function followServerTask(
  host: ForwardHost,
  ask: Ask,
  ctx: ServerContext,
  created: Result,
  used: Set<string>,
): Promise<unknown> {
  let asked = 0;
  try {
    return await followTask(
      created,
      sdkTaskWire(host.upstream.client, host.callTimeoutMs),
      async (key, request) => {
        const allowed = takeToken(host, ctx);
        const n = asked++;
        try {
          const out = await answerAll(
            host,
            ask,
            (k) => {
              const own = ASK_KEY.test(k) && k.length <= 60 && !used.has(k) ? k : `t${n}`;
              used.add(own);
              return own;
            },
            [[key, request as InputRequest]],
            [allowed],
            new Map(),
          );
          return out[key];
        } catch (error) {
          // The host cannot be asked this: the server's task is cancelled, saying why.
          if (error instanceof ElicitError || error instanceof ProtocolError)
            throw new TaskRefused(error.message);
          throw error;
        }
      },
      { signal: ctx.mcpReq.signal },
    );
  } catch (error) {
    if (error instanceof TaskFailed)
      throw new ProtocolError(error.error.code, error.error.message, error.error.data);
    if (error instanceof ElicitError)
      throw new ProtocolError(ProtocolErrorCode.InternalError, error.message, {
        code: error.code,
      });
    throw error;
  }
}

function takeToken(host: ForwardHost, ctx: ServerContext): boolean {
  const server = host.upstream.client.getServerVersion()?.name ?? '';
  // Both parts may be chosen by a peer (a resolver's principal, the server's own name).
  return host.buckets.take(joinKey(host.principalOf(ctx), server));
}

/** Tells a 2025-11-25 host that a URL page it was sent to is done. */
async function completed(ctx: ServerContext, ask: Ask, id: string): Promise<void> {
  if (!hasUrlCompletions(ask.revision)) return;
  await ctx.mcpReq.notify({
    method: 'notifications/elicitation/complete',
    params: { elicitationId: id },
  } as never);
}

/** Every request of a round: forms, sampling and roots in one host round; URL pages after. */
async function answerAll(
  host: ForwardHost,
  ask: Ask,
  keyOf: (key: string, index: number) => string,
  entries: [string, InputRequest][],
  allowed: readonly boolean[],
  pages: ReadonlyMap<string, string>,
): Promise<Result> {
  const out: Result = {};
  const batch: Record<string, Parameters<Ask['all']>[0][string]> = {};
  const batched: [string, string, CompiledSchema | undefined, string][] = [];
  const later: [string, string, InputRequest][] = [];
  // Keys are chosen in the server's order (ask.all's batch, then URL pages), the same each replay.
  for (const [i, [key, request]] of entries.entries()) {
    const askKey = keyOf(key, i);
    if (allowed[i] === false) {
      out[key] = request.method === 'elicitation/create' ? { action: 'decline' } : undefined;
      continue;
    }
    const params = (request.params ?? {}) as Result;
    if (request.method === 'elicitation/create' && params.mode !== 'url') {
      const schema = params.requestedSchema as Result | undefined;
      const message = typeof params.message === 'string' ? params.message : '';
      const compiled = compiled_(host, schema);
      const ruled = compiled === undefined ? undefined : policyForm(host, compiled);
      if (ruled !== undefined) {
        out[key] = ruled.outcome;
        await audit(host, ask, askKey, {
          mode: 'form',
          message,
          by: ruled.by,
          outcome: ruled.outcome,
          schema: compiled,
        });
        continue;
      }
      const toInbox =
        host.inbox !== undefined &&
        compiled !== undefined &&
        (!ask.can('form') || policyInbox(host, compiled));
      if (toInbox && compiled !== undefined) {
        out[key] = await ask.step(`i.${askKey}`, () => viaInbox(host, compiled, message));
        await audit(host, ask, askKey, {
          mode: 'form',
          message,
          by: 'inbox',
          outcome: out[key] as Outcome,
          schema: compiled,
        });
        continue;
      }
      batch[askKey] = {
        form: schema ?? {},
        message,
        allowSensitive: Object.keys((schema?.properties as Result | undefined) ?? {}),
      };
      batched.push([key, askKey, compiled, message]);
    } else if (request.method === 'sampling/createMessage') {
      batch[askKey] = { sample: params as never };
      batched.push([key, askKey, undefined, '']);
    } else if (request.method === 'roots/list') {
      batch[askKey] = { roots: true };
      batched.push([key, askKey, undefined, '']);
    } else later.push([askKey, key, request]);
  }
  if (batched.length > 0) {
    const answers = await ask.all(batch);
    for (const [key, askKey, compiled, message] of batched) {
      out[key] = formAnswer(answers[askKey]);
      if (compiled !== undefined)
        await audit(host, ask, askKey, {
          mode: 'form',
          message,
          by: 'host',
          outcome: out[key] as Outcome,
          schema: compiled,
        });
    }
  }
  for (const [askKey, key, request] of later) {
    const url = (request.params as { url?: unknown } | undefined)?.url;
    out[key] = await answerOne(
      host,
      ask,
      askKey,
      request,
      typeof url === 'string' ? pages.get(url) : undefined,
    );
  }
  return out;
}

type Outcome =
  | { action: 'accept'; content?: Record<string, unknown> }
  | { action: 'decline' | 'cancel' };

/** The form as the server's revision reads it, or undefined when elicit refuses it (ask says why). */
function compiled_(host: ForwardHost, schema: Result | undefined): CompiledSchema | undefined {
  try {
    return compileSchema(schema ?? {}, { revision: schemaRevisionOf(host.upstream.revision) });
  } catch (error) {
    if (error instanceof SchemaError) return undefined;
    throw error;
  }
}

/** What the policy answers for a form, or undefined when the host is to be asked. */
function policyForm(
  host: ForwardHost,
  schema: CompiledSchema,
): { outcome: Outcome; by: AuditEntry['by'] } | undefined {
  if (host.policy === undefined) return undefined;
  const { action, rule } = decide(host.policy, formFacts(host, schema));
  const outcome = formOutcome(action, schema);
  return outcome === undefined
    ? undefined
    : { outcome, by: rule === 0 ? 'otherwise' : `rule ${rule}` };
}

/** Whether the policy sends this form to the inbox. */
function policyInbox(host: ForwardHost, schema: CompiledSchema): boolean {
  if (host.policy === undefined) return false;
  return decide(host.policy, formFacts(host, schema)).action === 'inbox';
}

/** What a policy rule matches a form on: server, tool, mode and the fields asked. */
function formFacts(host: ForwardHost, schema: CompiledSchema): Parameters<typeof decide>[1] {
  return {
    server: serverName(host),
    tool: host.tool ?? '',
    mode: 'form',
    fields: schema.fields.map((f) => f.name),
  };
}

/** Whose inbox a question waits in (the call's principal), and the call's signal. */
function inboxCall(host: ForwardHost): { principal: string; signal: AbortSignal } {
  // Only `forward` asks the inbox, and it always scopes the host to its call.
  const call = host.call as NonNullable<ForwardHost['call']>;
  return { principal: call.principal, signal: call.signal };
}

/** A form answered in the inbox; the answer is checked here as any other (a page can be bypassed). */
async function viaInbox(
  host: ForwardHost,
  schema: CompiledSchema,
  message: string,
): Promise<Outcome> {
  const inbox = host.inbox as Inbox;
  const stop = host.call?.keepAlive() ?? (() => {});
  try {
    const answer = await inbox.ask(
      {
        server: serverName(host),
        tool: host.tool ?? '',
        message,
        mode: 'form',
        requestedSchema: emitSchema(schema.fields),
      },
      inboxCall(host),
    );
    if (answer.action === 'opened') return { action: 'cancel' };
    if (answer.action !== 'accept') return answer;
    const content = applyDefaults(schema, answer.content);
    return schema.validate(content).length === 0
      ? { action: 'accept', content }
      : { action: 'cancel' };
  } finally {
    stop();
  }
}

/** A URL page shown in the inbox with the gateway's analysis; opening it there accepts it. */
async function urlViaInbox(
  host: ForwardHost,
  analysis: UrlAnalysis,
  message: string,
): Promise<{ action: 'accept' | 'decline' | 'cancel' }> {
  const inbox = host.inbox as Inbox;
  const stop = host.call?.keepAlive() ?? (() => {});
  try {
    const answer = await inbox.ask(
      { server: serverName(host), tool: host.tool ?? '', message, mode: 'url', analysis },
      inboxCall(host),
    );
    return {
      action:
        answer.action === 'opened' ? 'accept' : answer.action === 'decline' ? 'decline' : 'cancel',
    };
  } finally {
    stop();
  }
}

const serverName = (host: ForwardHost) => host.upstream.client.getServerVersion()?.name ?? '';

/** One line in the audit log, written once per conversation (a replay finds the step done). */
async function audit(
  host: ForwardHost,
  ask: Ask,
  askKey: string,
  q: {
    mode: 'form' | 'url';
    message: string;
    url?: string;
    fields?: readonly string[] | undefined;
    by: AuditEntry['by'];
    outcome: Outcome;
    schema?: CompiledSchema | undefined;
  },
): Promise<void> {
  const log = host.audit;
  if (log === undefined) return;
  // A form's fields are named by its schema unless the caller names them.
  const fields = q.fields ?? q.schema?.fields.map((f) => f.name);
  await ask.step(`a.${askKey}`, () => {
    const content =
      q.outcome.action === 'accept' && q.outcome.content !== undefined && q.schema !== undefined
        ? redact(q.schema, q.outcome.content)
        : undefined;
    log.write({
      at: new Date().toISOString(),
      server: serverName(host),
      tool: host.tool ?? '',
      mode: q.mode,
      message: q.message.slice(0, 500),
      ...(q.url === undefined ? {} : { url: auditUrl(q.url) }),
      ...(fields === undefined ? {} : { fields }),
      by: q.by,
      action: q.outcome.action,
      ...(content === undefined ? {} : { content }),
    });
    return 1;
  });
}

/** A form's outcome as an ElicitResult; other answers as they are. */
function formAnswer(answer: unknown): unknown {
  const a = answer as { action?: string; content?: unknown } | undefined;
  if (a?.action === 'accept' && 'content' in a) return { action: 'accept', content: a.content };
  if (a?.action === 'decline' || a?.action === 'cancel') return { action: a.action };
  return answer;
}

/** One request of the server's, asked of the host after elicit's client-side checks. */
async function answerOne(
  host: ForwardHost,
  ask: Ask,
  key: string,
  request: InputRequest,
  pageId: string | undefined,
): Promise<unknown> {
  const params = (request.params ?? {}) as Result;
  if (request.method === 'elicitation/create') {
    const message = typeof params.message === 'string' ? params.message : '';
    if (params.mode === 'url') {
      if (typeof params.url !== 'string') return { action: 'decline' };
      // URL safety: refused addresses never reach the host; warnings go with the message.
      const analysis = analyzeUrl(params.url);
      if (analysis.href === undefined) return { action: 'decline' };
      // A host that cannot show pages, or a rule saying `inbox`: the person answers in the inbox.
      let toInbox = host.inbox !== undefined && !ask.can('url');
      // A rule never accepts a page: it declines or cancels it, or leaves it to the host.
      if (host.policy !== undefined) {
        const { action, rule } = decide(host.policy, {
          server: serverName(host),
          tool: host.tool ?? '',
          mode: 'url',
          fields: [],
        });
        if (action === 'inbox' && host.inbox !== undefined) toInbox = true;
        const ruled = action === 'inbox' && toInbox ? undefined : urlOutcome(action);
        if (ruled !== undefined) {
          await audit(host, ask, key, {
            mode: 'url',
            message,
            url: analysis.href,
            by: rule === 0 ? 'otherwise' : `rule ${rule}`,
            outcome: ruled,
          });
          return ruled;
        }
      }
      if (toInbox) {
        const outcome = await ask.step(`i.${key}`, () => urlViaInbox(host, analysis, message));
        await audit(host, ask, key, {
          mode: 'url',
          message,
          url: analysis.href,
          by: 'inbox',
          outcome,
        });
        return outcome;
      }
      const warnings = analysis.warnings.map((w) => w.message);
      const id =
        typeof params.elicitationId === 'string'
          ? params.elicitationId
          : hasUrlCompletions(ask.revision)
            ? (pageId ?? randomUUID())
            : undefined;
      const r = await ask.url(key, {
        message: warnings.length === 0 ? message : `${message}\n\n${warnings.join('\n')}`,
        url: analysis.href,
        ...(id === undefined ? {} : { elicitationId: id }),
      });
      await audit(host, ask, key, {
        mode: 'url',
        message,
        url: analysis.href,
        by: 'host',
        outcome: { action: r.action },
      });
      return { action: r.action };
    }
    const schema = (params.requestedSchema ?? {}) as Result;
    return formAnswer(
      await ask.form(key, schema, {
        message,
        allowSensitive: Object.keys((schema.properties as Result | undefined) ?? {}),
      }),
    );
  }
  if (request.method === 'sampling/createMessage') return ask.sample(key, params as never);
  if (request.method === 'roots/list') return ask.roots(key);
  throw new ProtocolError(
    ProtocolErrorCode.MethodNotFound,
    `The gateway does not forward ${JSON.stringify(String((request as { method: unknown }).method).slice(0, 60))}.`,
  );
}

/** Starts the call toward a 2025 server and holds it; questions arrive as its events. */
function startHeld(host: ForwardHost, method: CallMethod, call: Result, ctx: ServerContext) {
  const held = host.held.start(host.principalOf(ctx));
  // A call held for a task ends with the task: parked in input_required, the task runs nothing
  // that would notice its cancel or expiry, and nobody can answer the call any more.
  const stop = host.watchTask(ctx, (end) => held.expire(TASK_ENDS[end]));
  if (stop !== undefined) held.belongTo(stop);
  // The call waits while people answer: no request timeout; the held call's idle expiry ends it.
  const plain = () => send(host, method, call, ctx, held.abort.signal, 2_147_000_000);
  const running =
    method === 'tools/call' && runsAsLegacyTask(ctx) && serverRunsTasks(host)
      ? serverTask(host, call, held.abort.signal, plain)
      : plain();
  host.upstream.hold(held, running);
  running.then(
    (result) => held.end({ kind: 'result', result }),
    (error: unknown) => held.end({ kind: 'error', error }),
  );
  return held;
}

/** Why a held call ends with its task, as the server and the task's reader are told. */
const TASK_ENDS: Readonly<Record<TaskEnd, string>> = {
  cancelled: 'cancelled with its task (tasks/cancel)',
  expired: 'ended when its task expired (its ttlMs ran out)',
  completed: 'ended with its task',
  failed: 'ended with its task, which failed',
};

/** Whether a 2025 server runs tools/call as 2025-11-25 tasks (its `tasks` capability says so). */
function serverRunsTasks(host: ForwardHost): boolean {
  const tasks = host.upstream.client.getServerCapabilities()?.tasks as
    | { requests?: { tools?: { call?: unknown } } }
    | undefined;
  return tasks?.requests?.tools?.call !== undefined;
}

/**
 * A call the host runs as a 2025-11-25 task, made a task on a 2025 server that runs them too
 * (elicit/client's `callToolAsTask`: tasks/get, then tasks/result, on which the server pushes
 * its questions; they reach this held call as any other). A tool the server does not run as a
 * task (-32601) is called plainly.
 */
async function serverTask(
  host: ForwardHost,
  call: Result,
  signal: AbortSignal,
  plain: () => Promise<Result>,
): Promise<Result> {
  try {
    return await callToolAsTask(
      host.upstream.client,
      call as { name: string; arguments?: Record<string, unknown> },
      { signal, resultTimeoutMs: 2_147_000_000 },
    );
  } catch (error) {
    if ((error as { code?: unknown }).code === ProtocolErrorCode.MethodNotFound) return plain();
    if (error instanceof TaskFailed)
      throw new ProtocolError(error.error.code, error.error.message, error.error.data);
    throw error;
  }
}

async function held(
  host: ForwardHost,
  method: CallMethod,
  call: Result,
  ask: Ask,
  ctx: ServerContext,
): Promise<unknown> {
  const principal = host.principalOf(ctx);
  const modernHost = eraOf(ask.revision) === 'modern';
  // A -32042 from the server: each page asked of the host or shown in the inbox, then the call
  // made again.
  for (let attempt = 0; attempt <= host.maxRounds; attempt++) {
    const id = await ask.step(`h${attempt}`, () => startHeld(host, method, call, ctx).id);
    const current: HeldCall = host.held.get(id, principal);
    // On a 2025 session the host hanging up ends the call; a 2026-07-28 host comes back later.
    const onAbort = () => current.expire('cancelled by the host');
    if (!modernHost) ctx.mcpReq.signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (let i = 0; ; i++) {
        const event = await current.next(i, ctx.mcpReq.signal);
        if (event.kind === 'result') {
          current.expire('finished');
          return event.result;
        }
        if (event.kind === 'error') {
          const required = urlRequired(event.error);
          if (required !== undefined && pagesReach(host, ask)) {
            // Replays of this conversation read this attempt's end again, then go on.
            current.release();
            await pages(
              host,
              ask,
              `p${attempt}`,
              new UrlElicitationRequiredError(required as never),
              ctx.mcpReq.signal,
            );
            break;
          }
          current.expire('finished');
          throw event.error;
        }
        // Questions the server pushed together (a 2025 server asking in parallel) go to the
        // host in one round: they arrive one message after another, so the rest are waited for.
        await together(current, i, ctx.mcpReq.signal);
        const batch: [number, InputRequest][] = [[i, event.request]];
        for (
          let next = current.peek(i + 1);
          next?.kind === 'ask';
          next = current.peek(i + batch.length)
        )
          batch.push([i + batch.length, next.request]);
        const answers = await answerHeld(host, ask, attempt, batch, ctx);
        for (const [j] of batch) current.answer(j, answers.get(j));
        i += batch.length - 1;
      }
    } finally {
      ctx.mcpReq.signal.removeEventListener('abort', onAbort);
    }
  }
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `The server asked for browser steps more than ${host.maxRounds} times; the gateway stopped.`,
  );
}

/** Quiet time after a pushed question before its round goes to the host; at most 6 waits. */
const TOGETHER_MS = 50;

/**
 * Waits until the held call has pushed nothing new for TOGETHER_MS after question `i` (at most
 * 300 ms), or has ended: the questions a 2025 server pushes at once (`Promise.all`, elicit's
 * `ask.all`) then reach the host as one round, as a 2026-07-28 server would send them.
 */
async function together(call: HeldCall, i: number, signal: AbortSignal): Promise<void> {
  let seen = i;
  while (call.peek(seen + 1)?.kind === 'ask') seen++;
  for (let n = 0; n < 6 && !signal.aborted && call.peek(seen + 1) === undefined; n++) {
    await new Promise((resolve) => setTimeout(resolve, TOGETHER_MS));
    if (call.peek(seen + 1) === undefined) return;
    while (call.peek(seen + 1)?.kind === 'ask') seen++;
  }
}

/** Answers to questions a held call pushed, by index; what the host cannot be asked is an error. */
async function answerHeld(
  host: ForwardHost,
  ask: Ask,
  attempt: number,
  batch: readonly [number, InputRequest][],
  ctx: ServerContext,
): Promise<Map<number, HeldAnswer>> {
  const out = new Map<number, HeldAnswer>();
  const allowed: boolean[] = [];
  // One step per question: a replay may see more of them at once than the first run did.
  for (const [j] of batch)
    allowed.push(await ask.step(`l${attempt}.${j}`, () => takeToken(host, ctx)));
  try {
    const answers = await answerAll(
      host,
      ask,
      (key) => `q${attempt}.${key}`,
      batch.map(([j, request]) => [String(j), request]),
      allowed,
      new Map(),
    );
    for (const [j] of batch) {
      const answer = answers[String(j)];
      out.set(
        j,
        answer === undefined
          ? {
              error: new ProtocolError(
                ProtocolErrorCode.InternalError,
                'Too many questions; try again later.',
              ),
            }
          : { ok: answer },
      );
    }
  } catch (error) {
    // The host cannot be asked this (no such capability, a form elicit refuses): the server
    // hears why, as a client without it would tell it.
    if (!(error instanceof ElicitError || error instanceof ProtocolError)) throw error;
    for (const [j] of batch)
      out.set(j, { error: new ProtocolError(ProtocolErrorCode.InvalidParams, error.message) });
  }
  return out;
}

/**
 * Whether the gateway takes the pages of a -32042 itself: shown in the inbox where the host
 * cannot show pages (or a rule says `inbox`), asked as URL rounds of a 2026-07-28 host that can.
 * Otherwise the -32042 reaches the host as it is: a 2025-11-25 host that shows pages runs its
 * own retry (the server's completion notification is forwarded to it); a host nothing can reach
 * reads the error.
 */
function pagesReach(host: ForwardHost, ask: Ask): boolean {
  return pagesToInbox(host, ask) || (eraOf(ask.revision) === 'modern' && ask.can('url'));
}

function pagesToInbox(host: ForwardHost, ask: Ask): boolean {
  if (host.inbox === undefined) return false;
  if (!ask.can('url')) return true;
  return (
    host.policy !== undefined &&
    decide(host.policy, {
      server: serverName(host),
      tool: host.tool ?? '',
      mode: 'url',
      fields: [],
    }).action === 'inbox'
  );
}

/**
 * The pages of a -32042, asked of the person one by one (in the inbox, or as URL rounds of a
 * 2026-07-28 host); all must be accepted, else the host reads the -32042. The call is made again
 * once the server says each page is complete (or after `pageWaitMs`, when the server may still
 * know better).
 */
async function pages(
  host: ForwardHost,
  ask: Ask,
  prefix: string,
  error: UrlElicitationRequiredError,
  signal: AbortSignal,
): Promise<void> {
  const inbox = pagesToInbox(host, ask);
  let i = 0;
  for (const e of error.elicitations) {
    const key = `${prefix}.${i++}`;
    const analysis = analyzeUrl(e.url);
    if (analysis.href === undefined) throw error;
    const outcome = inbox
      ? await ask.step(`i.${key}`, () => urlViaInbox(host, analysis, e.message))
      : { action: (await ask.url(key, { message: e.message, url: analysis.href })).action };
    await audit(host, ask, key, {
      mode: 'url',
      message: e.message,
      url: analysis.href,
      by: inbox ? 'inbox' : 'host',
      outcome,
    });
    if (outcome.action !== 'accept') throw error;
  }
  for (const e of error.elicitations)
    await host.upstream.completion(e.elicitationId, host.pageWaitMs, signal);
}
