/**
 * Params of the wrong shape are the peer's mistake: -32602, never -32603. The SDK (2.4) checks
 * a spec method's params against its wire schema before the handler given to
 * `setRequestHandler(method, handler)` runs, and reports a mismatch as a plain `Error`, which it
 * answers as -32603 Internal error. `guardParams` wraps the one seam every stored handler passes
 * through (`_wrapHandler`, the SDK's protected hook for subclasses): the handler marks the
 * request when it starts (by its abort signal, which every context the SDK derives for a
 * request keeps), and an error thrown before that mark with no JSON-RPC code of its own can
 * only be the SDK's check of the params, so it leaves as -32602 with the check's findings in
 * short.
 * Handlers registered with a params schema (extension methods) are already answered -32602 by
 * the SDK, and so is `tools/call` (the SDK's Server checks its params itself first, as
 * InvalidParams: test/sdk-seams.test.ts): neither is wrapped, so a server built per session
 * keeps no guard closures for its call handler. Only handlers registered after the guard is
 * installed are guarded.
 */

import {
  beforeMessages,
  interceptRegistrations,
  type MessageTransport,
  type Register,
  type StoredHandler,
  wrapStoredHandlers,
} from './sdk-seams.ts';

/** The part of the SDK's `Protocol` (server or client) the guard wraps. */
interface GuardedProtocol {
  setRequestHandler(method: string, ...rest: unknown[]): void;
}

type Handler = (request: unknown, ctx: object) => unknown;

/** Longest summary of the SDK's findings put in the -32602 message. */
const MAX_SUMMARY_CHARS = 300;

/** The SDK's findings (a JSON list of schema issues) as one short line. */
export function summariseIssues(message: string): string {
  let line = message;
  try {
    const issues = JSON.parse(message) as unknown;
    if (Array.isArray(issues) && issues.length > 0)
      line = issues
        .slice(0, 3)
        .map((issue: { path?: unknown; message?: unknown }) => {
          const path = Array.isArray(issue?.path) ? issue.path.map(String).join('.') : '';
          const said = typeof issue?.message === 'string' ? issue.message : 'invalid';
          return path === '' ? said : `${path}: ${said}`;
        })
        .join('; ');
  } catch {
    // Not the SDK's JSON: its text as it is.
  }
  line = line.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SUMMARY_CHARS ? `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…` : line;
}

/** What marks one request: its abort signal, else its context. */
const requestOf = (ctx: object): object =>
  (ctx as { mcpReq?: { signal?: object } }).mcpReq?.signal ?? ctx;

const hasRpcCode = (error: unknown): boolean =>
  error !== null &&
  typeof error === 'object' &&
  Number.isSafeInteger((error as { code?: unknown }).code);

const guarded = new WeakSet<object>();

/** The method whose params the SDK's Server checks itself, answering -32602. */
const SELF_CHECKED = 'tools/call';

/** Requests whose handler has started, of every guarded protocol (a request is in one only). */
const started = new WeakSet<object>();

/**
 * What a handler's failure leaves as: itself once the handler has started or when it carries a
 * JSON-RPC code; otherwise it can only be the SDK's check of the params, answered -32602.
 */
function refusal(
  error: unknown,
  ctx: object,
  method: string,
  invalidParams: (message: string) => Error,
): never {
  if (started.has(requestOf(ctx)) || hasRpcCode(error)) throw error;
  const said = error instanceof Error ? error.message : String(error);
  throw invalidParams(`Invalid params for ${method}: ${summariseIssues(said)}`);
}

/** The guard's two hooks for one side's -32602 error: made once per side, shared by its protocols. */
interface Hooks {
  readonly wrap: (method: string, sdkWrapped: StoredHandler) => StoredHandler;
  readonly intercept: (register: Register, method: string, rest: unknown[]) => void;
}

const hooksBySide = new WeakMap<(message: string) => Error, Hooks>();

function hooksFor(invalidParams: (message: string) => Error): Hooks {
  let hooks = hooksBySide.get(invalidParams);
  if (hooks !== undefined) return hooks;
  hooks = {
    // Seam wrapHandler (kernel/sdk-seams.ts): around the SDK's check of the params.
    wrap: (method, sdkWrapped) => {
      if (method === SELF_CHECKED) return sdkWrapped;
      const wrapped = sdkWrapped as Handler;
      // A promise chain, not an async function: a call waiting on a person keeps no frame here.
      return ((request: unknown, ctx: object) => {
        let out: unknown;
        try {
          out = wrapped(request, ctx);
        } catch (error) {
          return Promise.reject(error).catch((e: unknown) =>
            refusal(e, ctx, method, invalidParams),
          );
        }
        // The handler started on the way in (the SDK checked the params first and passed them):
        // whatever it does from now on is its own, so no frame is kept around it while it runs.
        const key = requestOf(ctx);
        if (started.has(key)) {
          started.delete(key);
          return out;
        }
        return Promise.resolve(out).then(undefined, (error: unknown) =>
          refusal(error, ctx, method, invalidParams),
        );
      }) as StoredHandler;
    },
    // Seam setRequestHandler: each handler marks its request when it starts.
    intercept: (register, method, rest) => {
      const [handler] = rest;
      if (rest.length !== 1 || typeof handler !== 'function' || method === SELF_CHECKED)
        return register(method, ...rest);
      return register(method, (request: unknown, ctx: object) => {
        started.add(requestOf(ctx));
        return (handler as Handler)(request, ctx);
      });
    },
  };
  hooksBySide.set(invalidParams, hooks);
  return hooks;
}

/**
 * Installs the guard on `protocol` (an SDK Server or Client, before its handlers are
 * registered); `invalidParams` makes the -32602 error of that side's SDK. Pass the same
 * function for every protocol of one side: the hooks made for it are shared, so a server built
 * per session or per request carries no closures of its own for them.
 */
export function guardParams(
  protocol: GuardedProtocol,
  invalidParams: (message: string) => Error,
): void {
  if (guarded.has(protocol)) return;
  guarded.add(protocol);
  const hooks = hooksFor(invalidParams);
  wrapStoredHandlers(protocol, hooks.wrap);
  interceptRegistrations(protocol, hooks.intercept);
}

/**
 * The JSON-RPC answer to `message` when it is a request whose `params` is there but not an
 * object (every MCP method takes named params): -32602 for its id. Undefined for anything else.
 */
export function paramsNotObject(
  message: unknown,
): { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string } } | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (typeof m.method !== 'string' || !Object.hasOwn(m, 'params')) return undefined;
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return undefined;
  const p = m.params;
  if (p !== null && typeof p === 'object' && !Array.isArray(p)) return undefined;
  const got = Array.isArray(p) ? 'an array' : p === null ? 'null' : typeof p;
  return {
    jsonrpc: '2.0',
    id: m.id,
    error: {
      code: -32602,
      message: `Invalid params for ${m.method.slice(0, 100)}: params must be an object (got ${got})`,
    },
  };
}

/** The part of an SDK transport the refusal below needs. */
interface HookableTransport extends MessageTransport {
  send(message: never): Promise<void>;
}

/**
 * A request whose `params` is there but not an object is no valid MCP request, and the SDK's
 * Protocol drops it (an "unknown message" to its onerror), so the peer would wait for an answer
 * that never comes. Chained in front of the transport's `onmessage` once the SDK has connected
 * (the seam `connect` documents), such a request is answered -32602 for its id instead.
 */
export function refuseParamsNotObject(transport: HookableTransport): void {
  // Seam transportMessages (kernel/sdk-seams.ts).
  beforeMessages(transport, (message) => {
    const refusal = paramsNotObject(message);
    if (refusal === undefined) return true;
    void transport.send(refusal as never).catch(() => {});
    return false;
  });
}

/**
 * A 2025-11-25 task-augmented request's `params.task` (client and server alike): the TTL it
 * asks for (undefined when left out), or what is wrong with it, for a -32602 message.
 */
export function readTaskParam(
  task: unknown,
): { ok: true; ttl: number | undefined } | { ok: false; problem: string } {
  if (task === null || typeof task !== 'object' || Array.isArray(task))
    return { ok: false, problem: 'params.task must be an object' };
  const ttl = (task as { ttl?: unknown }).ttl;
  if (ttl === undefined) return { ok: true, ttl: undefined };
  if (typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl > 0) return { ok: true, ttl };
  return {
    ok: false,
    problem: 'params.task.ttl must be a positive whole number of milliseconds (or left out)',
  };
}
