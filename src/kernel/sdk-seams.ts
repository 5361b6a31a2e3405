/**
 * Every place elicit reaches into the MCP SDK (`@modelcontextprotocol/server` and `/client`
 * 2.4) beyond its public API, in one module. Each seam says which SDK limitation it works
 * around; `SDK_SEAMS` lists them, and test/sdk-seams.test.ts pins them to the installed SDK
 * version and checks that each hook is still there and the limitation still holds, so an SDK
 * upgrade shows at once which seams can go. Nothing here imports the SDK: the seams are typed by
 * the parts they touch, so the server, the client and the gateway share them.
 */

/** The SDK version the seams were written against (test/sdk-seams.test.ts compares). */
export const SDK_SEAMS_VERSION = '2.4.0';

/** The seams, by name: the SDK limitation each works around. */
export const SDK_SEAMS = {
  wrapHandler:
    'Protocol._wrapHandler (protected): the only hook every stored request handler passes through, ' +
    'before the SDK validates its result; a 2025-11-25 CreateTaskResult and the -32602 for ' +
    'params of the wrong shape (the SDK answers -32603) can only be made there.',
  setRequestHandler:
    "Protocol.setRequestHandler, replaced on one instance: McpServer installs tools/call, prompts/get and resources/read handlers itself as things are registered, with no hook around them; and the SDK's handler types list no tasks/* methods of 2025-11-25.",
  transportMessages:
    "Transport.onmessage, chained in front of the SDK's after connect: the SDK drops a request whose params are not an object (no answer at all) and has no hook for a 2026-07-28 CreateTaskResult answering a request.",
  createToolError:
    "McpServer.createToolError (private), replaced on a subclass's prototype: McpServer turns every throw of a tool but -32042 into an isError result, so a tool's JSON-RPC error (-32021, -32000, -32603) could not leave otherwise; the error reaches the replacement by its message (server/wire.ts `escapeToWire`, a bounded map).",
  executeToolHandler:
    "McpServer.executeToolHandler (private), replaced on a subclass's prototype: McpServer calls a tool's handler with the arguments and the request context only, so a handler that needs its server (a 2025 session's, to push asks through) would be a closure per tool on every server built; the replacement hands elicit's runner the server that runs the call, and every server built from one app shares one function per tool.",
  registeredTools:
    'McpServer._registeredTools (private, the tools by name its tools/list and tools/call handlers read) and setToolRequestHandlers (private, what registerTool runs to install those handlers): registerTool makes a registered tool per server (a dozen closures and their objects, about 1.4 KiB), and a server is built per 2025 session; every server built from one app for one era is given one table, made once, instead.',
  clientIdentity:
    "Server._clientCapabilities and _clientVersion (private): createMcpHandler seeds them on each 2026-07-28 request's server from the request's envelope, writing only the fields present, so a server reused across requests would keep the last client's clientInfo when the next request omits it; they are forgotten before a pooled server is reused (server/server-pool.ts), and seeded the same way on the lean tools/call path (server/lean-call.ts).",
  modernDispatch:
    "createMcpHandler's per-request dispatch (serveModern: the standard-header checks, the required client capabilities, the Mcp-Param checks, the scope challenge, the negotiated revision, server/discover, the client identity) has no public seam: server/lean-call.ts serves the plain well-formed 2026-07-28 tools/call through the public classifyInboundRequest and PerRequestHTTPServerTransport instead, reading a tool's input schema and scope challenge through McpServer's @internal toolInputSchemaJson and resolveScopeChallenge, and seeding the client identity as the handler does (clientIdentity); the test pins each of those checks to what the lean path's predicate assumes.",
  requestSignal:
    "A request's `signal` option, read by Protocol's request only through `aborted`, `reason` and one `abort` listener (added as the request goes out, removed when it settles): a 2025 call's pushed requests go out with a Withdrawal (server/engines/withdrawal.ts) in place of an AbortController linked to the call's signal, so a waiting call holds no controller nor forwarding listener; the SDK has no other way to cancel a request sent with no signal.",
  callAborts:
    "Protocol._oncancel and _onclose (private) and its _requestHandlerAbortControllers (private): the only places the SDK aborts a request handler's signal (the peer cancelled the request, or the connection closed), wrapped on one instance by a function shared by every instance: elicit hears there which calls were aborted, where a listener on each waiting call's signal would cost about half a KiB (Node's EventTarget makes a signal's listener table at its first listener), and the SDK tells a handler of its call's abort no other way.",
  resultValidator:
    "Protocol._wireCodec (protected) and its codec's validateResult: a request sent without a result schema (ctx.mcpReq.send, Protocol.request) gets a Standard Schema adapter over that function made for it alone, after probing the codec with undefined (a failing zod parse whose message is formatted, about 9 µs), and a waiting request holds the adapter; elicit makes the same adapter once per codec and method and hands it to send as the result schema, so the result is checked by the same codec function.",
} as const;

export type SdkSeam = keyof typeof SDK_SEAMS;

/** A request handler as the SDK stores it. */
export type StoredHandler = (request: never, ctx: never) => unknown;

type WrapHook = (this: object, method: string, handler: StoredHandler) => StoredHandler;
type Wrap = (method: string, sdkWrapped: StoredHandler) => StoredHandler;

// One hook per `wrap`, shared by every protocol it is installed on: it finds the SDK's own
// `_wrapHandler` through `this` (the SDK calls it as a method), so a protocol made per session
// or per request carries no bound function or closure of its own for it.
const wrapHooks = new WeakMap<Wrap, WrapHook>();

/**
 * Seam `wrapHandler`: wraps every handler `protocol` stores from now on. `wrap` gets the method
 * and the SDK's own wrapped handler (its validation included) and returns the one to store.
 * Pass the same `wrap` for many protocols to share one hook among them.
 */
export function wrapStoredHandlers(protocol: object, wrap: Wrap): void {
  const open = protocol as { _wrapHandler: WrapHook };
  if (Object.hasOwn(protocol, '_wrapHandler')) {
    // Wrapped on this instance already: in front of that one.
    const inner = open._wrapHandler;
    open._wrapHandler = function (this: object, method, handler) {
      return wrap(method, inner.call(this, method, handler));
    };
    return;
  }
  let hook = wrapHooks.get(wrap);
  if (hook === undefined) {
    hook = function (this: object, method, handler) {
      const sdk = (Object.getPrototypeOf(this) as { _wrapHandler: WrapHook })._wrapHandler;
      return wrap(method, sdk.call(this, method, handler));
    };
    wrapHooks.set(wrap, hook);
  }
  open._wrapHandler = hook;
}

/** `setRequestHandler` with any method name and the handler's arguments left open. */
export type Register = (method: string, ...rest: unknown[]) => void;

type Intercept = (register: Register, method: string, rest: unknown[]) => void;
type RegisterHook = (this: object, method: string, ...rest: unknown[]) => void;

// As for `wrapHooks`: one replacement per `intercept`, reaching the SDK's own through `this`.
const registerHooks = new WeakMap<Intercept, RegisterHook>();

/**
 * Seam `setRequestHandler`: every later `setRequestHandler(method, …rest)` on `protocol` goes
 * through `intercept`, which registers through `register` (the SDK's own) as it sees fit. Pass
 * the same `intercept` for many protocols to share one replacement among them.
 */
export function interceptRegistrations(protocol: object, intercept: Intercept): void {
  const open = protocol as { setRequestHandler: RegisterHook };
  if (Object.hasOwn(protocol, 'setRequestHandler')) {
    const inner = open.setRequestHandler;
    open.setRequestHandler = function (this: object, method, ...rest) {
      intercept((m, ...r) => inner.call(this, m, ...r), method, rest);
    };
    return;
  }
  let hook = registerHooks.get(intercept);
  if (hook === undefined) {
    hook = function (this: object, method, ...rest) {
      const sdk = (Object.getPrototypeOf(this) as { setRequestHandler: RegisterHook })
        .setRequestHandler;
      intercept((m, ...r) => sdk.call(this, m, ...r), method, rest);
    };
    registerHooks.set(intercept, hook);
  }
  open.setRequestHandler = hook;
}

/**
 * The SDK's own `setRequestHandler`, typed for methods its handler types do not list (the
 * tasks/* methods of 2025-11-25, which its registry knows and validates): seam
 * `setRequestHandler`, without replacing anything.
 */
export function untypedRegister<H>(protocol: object): (method: string, handler: H) => void {
  const open = protocol as { setRequestHandler: (method: string, handler: H) => void };
  return open.setRequestHandler.bind(protocol);
}

/** The part of a transport the message seam touches. */
export interface MessageTransport {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
}

/**
 * Seam `transportMessages`: `before` sees each message `transport` receives before the SDK
 * does, and passes it on (possibly changed) by returning true; false keeps it from the SDK.
 * Install after the SDK has connected (its `onmessage` is set then).
 */
export function beforeMessages(
  transport: MessageTransport,
  before: (message: unknown, extra: unknown) => boolean,
): void {
  const inner = transport.onmessage;
  transport.onmessage = ((message: unknown, extra?: unknown) => {
    if (before(message, extra)) inner?.(message as never, extra as never);
  }) as MessageTransport['onmessage'];
}

type ToolErrors = { createToolError(message: string): unknown };

/**
 * Seam `createToolError`: `replacement` stands in for McpServer's private `createToolError` on
 * `prototype` (a subclass's: nothing per server or per call); it gets the SDK's own to fall back
 * on.
 */
export function replaceCreateToolError(
  prototype: object,
  sdkPrototype: object,
  replacement: (
    self: object,
    message: string,
    sdk: (self: object, message: string) => unknown,
  ) => unknown,
): void {
  const sdk = (sdkPrototype as ToolErrors).createToolError;
  (prototype as ToolErrors).createToolError = function (this: object, message: string) {
    return replacement(this, message, (self, m) => sdk.call(self, m));
  };
}

/** McpServer's own `createToolError` on `server`: an isError result naming `message`. */
export function sdkToolError(server: object, message: string): unknown {
  return (server as ToolErrors).createToolError(message);
}

/** A registered tool as McpServer hands it to `executeToolHandler`. */
export interface RegisteredToolLike {
  readonly handler: unknown;
}

type ExecuteTool = (tool: RegisteredToolLike, args: unknown, ctx: never) => Promise<unknown>;

/**
 * Seam `executeToolHandler`: `replacement` stands in for McpServer's private
 * `executeToolHandler(tool, args, ctx)` on `prototype` (a subclass's: nothing per server); it
 * gets the server (`self`) and the SDK's own to fall back on. `args` are the validated
 * arguments (undefined for a tool without an input schema).
 */
export function replaceExecuteToolHandler(
  prototype: object,
  sdkPrototype: object,
  replacement: (
    self: object,
    tool: RegisteredToolLike,
    args: unknown,
    ctx: never,
    sdk: (self: object, tool: RegisteredToolLike, args: unknown, ctx: never) => Promise<unknown>,
  ) => Promise<unknown>,
): void {
  const sdk = (sdkPrototype as { executeToolHandler: ExecuteTool }).executeToolHandler;
  const call = (self: object, tool: RegisteredToolLike, args: unknown, ctx: never) =>
    sdk.call(self, tool, args, ctx);
  (prototype as { executeToolHandler: ExecuteTool }).executeToolHandler = function (
    this: object,
    tool,
    args,
    ctx,
  ) {
    return replacement(this, tool, args, ctx, call);
  };
}

interface ToolTable {
  _registeredTools: object;
  setToolRequestHandlers(): void;
}

/** Seam `registeredTools`: the table of tools `mcp` (an McpServer) has registered. */
export function registeredToolsOf(mcp: object): object {
  return (mcp as ToolTable)._registeredTools;
}

/**
 * Seam `registeredTools`: `mcp` (an McpServer with no tools of its own) serves the tools of
 * `tools` (another's `registeredToolsOf`), its tools/list and tools/call handlers installed as
 * registerTool installs them.
 */
export function serveRegisteredTools(mcp: object, tools: object): void {
  const open = mcp as ToolTable;
  open._registeredTools = tools;
  open.setToolRequestHandlers();
}

/**
 * Seam `clientIdentity`: forgets the client capabilities and info the SDK seeded on `server`
 * (a low-level Server) from the last request's envelope, as a server never used holds none.
 */
export function forgetClientIdentity(server: object): void {
  const open = server as { _clientCapabilities?: unknown; _clientVersion?: unknown };
  open._clientCapabilities = undefined;
  open._clientVersion = undefined;
}

/**
 * Seam `clientIdentity`: what createMcpHandler seeds on a 2026-07-28 request's server from the
 * request's envelope, written as it writes them: only the fields the envelope carries.
 */
export function seedClientIdentity(
  server: object,
  clientInfo: unknown,
  clientCapabilities: unknown,
): void {
  const open = server as { _clientCapabilities?: unknown; _clientVersion?: unknown };
  if (clientCapabilities !== undefined) open._clientCapabilities = clientCapabilities;
  if (clientInfo !== undefined) open._clientVersion = clientInfo;
}

/** The parts of McpServer the lean tools/call path reads (seam `modernDispatch`). */
export interface DispatchInternals {
  /** The JSON Schema of a registered, enabled tool's input; undefined otherwise. */
  toolInputSchemaJson(name: string): Record<string, unknown> | undefined;
  /** The scope challenge a request would meet, if any (a tool's `scopeChallenge`). */
  readonly resolveScopeChallenge: (context: { request: never; authInfo?: never }) => unknown;
}

/** Seam `modernDispatch`: McpServer's @internal members the lean tools/call path reads. */
export function dispatchInternals(mcp: object): DispatchInternals {
  return mcp as DispatchInternals;
}

/** The part of the SDK's `Protocol` the `callAborts` seam touches. */
interface AbortingProtocol {
  _oncancel(notification: { params: { requestId?: unknown } }): unknown;
  _onclose(): void;
  _requestHandlerAbortControllers: Map<unknown, AbortController>;
}

/** The hooks of `hearCallAborts`, one per listener: shared by every protocol it is installed on. */
const abortHooks = new WeakMap<
  (signal: AbortSignal) => void,
  Pick<AbortingProtocol, '_oncancel' | '_onclose'>
>();

/**
 * Seam `callAborts`: after the SDK has aborted a request handler's signal on `protocol` (an SDK
 * Server), `heard` gets that signal; once per protocol (a second call does nothing). Pass the
 * same `heard` every time: its hooks are made once, so a protocol carries no closure of its own.
 */
export function hearCallAborts(protocol: object, heard: (signal: AbortSignal) => void): void {
  let hooks = abortHooks.get(heard);
  if (hooks === undefined) {
    const sdk = (self: AbortingProtocol) =>
      Object.getPrototypeOf(self) as Pick<AbortingProtocol, '_oncancel' | '_onclose'>;
    hooks = {
      _oncancel(this: AbortingProtocol, notification) {
        const aborting = this._requestHandlerAbortControllers.get(notification.params.requestId);
        const done = sdk(this)._oncancel.call(this, notification);
        if (aborting?.signal.aborted === true) heard(aborting.signal);
        return done;
      },
      _onclose(this: AbortingProtocol) {
        const running = [...this._requestHandlerAbortControllers.values()].filter(
          (c) => !c.signal.aborted,
        );
        try {
          sdk(this)._onclose.call(this);
        } finally {
          for (const controller of running) if (controller.signal.aborted) heard(controller.signal);
        }
      },
    };
    abortHooks.set(heard, hooks);
  }
  const open = protocol as AbortingProtocol;
  if (open._oncancel === hooks._oncancel) return;
  open._oncancel = hooks._oncancel;
  open._onclose = hooks._onclose;
}

/**
 * Seam `callAborts`: whether `signal` is the one the SDK made for request `requestId` on
 * `protocol`, so that `hearCallAborts` hears its abort.
 */
export function isRequestSignal(
  protocol: object,
  requestId: unknown,
  signal: AbortSignal,
): boolean {
  return (
    (protocol as AbortingProtocol)._requestHandlerAbortControllers?.get(requestId)?.signal ===
    signal
  );
}

/** What an SDK wire codec's `validateResult` answers. */
type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string; readonly message?: string };

/** The part of the SDK's `Protocol` and its wire codec the `resultValidator` seam touches. */
interface CodecProtocol {
  _wireCodec(): { validateResult(method: string, value: unknown): Outcome };
}

/** A Standard Schema (v1) validator, as the SDK's `send` takes one for a result. */
export interface ResultValidator {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): { value: unknown } | { issues: { message: string }[] };
  };
}

/** Adapters made, by codec (the SDK's codecs are one object per era) and method. */
const resultValidators = new WeakMap<object, Map<string, ResultValidator | null>>();

/**
 * Seam `resultValidator`: the result check `protocol` (an SDK Server with a negotiated version)
 * applies to a `method` request sent without a schema, made once per codec and method: the
 * adapter the SDK's `codecResultValidator` builds per request, over the same codec function.
 * Undefined for a method the codec has no result schema for (send it without one).
 */
export function resultValidator(protocol: object, method: string): ResultValidator | undefined {
  const codec = (protocol as CodecProtocol)._wireCodec();
  let byMethod = resultValidators.get(codec);
  if (byMethod === undefined) {
    byMethod = new Map();
    resultValidators.set(codec, byMethod);
  }
  let made = byMethod.get(method);
  if (made === undefined) {
    const probe = codec.validateResult(method, undefined);
    made =
      !probe.ok && probe.reason === 'not-in-era'
        ? null
        : {
            '~standard': {
              version: 1,
              vendor: 'mcp-wire-codec',
              validate(value) {
                const outcome = codec.validateResult(method, value);
                if (outcome.ok) return { value: outcome.value };
                return {
                  issues: [
                    {
                      message:
                        outcome.reason === 'invalid'
                          ? (outcome.message ?? '')
                          : `not-in-era: ${method}`,
                    },
                  ],
                };
              },
            },
          };
    byMethod.set(method, made);
  }
  return made ?? undefined;
}
