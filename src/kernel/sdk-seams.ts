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
  clientIdentity:
    "Server._clientCapabilities and _clientVersion (private): createMcpHandler seeds them on each 2026-07-28 request's server from the request's envelope, writing only the fields present, so a server reused across requests would keep the last client's clientInfo when the next request omits it; they are forgotten before a pooled server is reused (server/server-pool.ts), and seeded the same way on the lean tools/call path (server/lean-call.ts).",
  modernDispatch:
    "createMcpHandler's per-request dispatch (serveModern: the standard-header checks, the required client capabilities, the Mcp-Param checks, the scope challenge, the negotiated revision, server/discover, the client identity) has no public seam: server/lean-call.ts serves the plain well-formed 2026-07-28 tools/call through the public classifyInboundRequest and PerRequestHTTPServerTransport instead, reading a tool's input schema and scope challenge through McpServer's @internal toolInputSchemaJson and resolveScopeChallenge, and seeding the client identity as the handler does (clientIdentity); the test pins each of those checks to what the lean path's predicate assumes.",
  requestSignal:
    "A request's `signal` option, read by Protocol's request only through `aborted`, `reason` and one `abort` listener (added as the request goes out, removed when it settles): a 2025 call's pushed requests go out with a Withdrawal (server/engines/withdrawal.ts) in place of an AbortController linked to the call's signal, so a waiting call holds no controller nor forwarding listener; the SDK has no other way to cancel a request sent with no signal.",
} as const;

export type SdkSeam = keyof typeof SDK_SEAMS;

/** A request handler as the SDK stores it. */
export type StoredHandler = (request: never, ctx: never) => unknown;

/**
 * Seam `wrapHandler`: wraps every handler `protocol` stores from now on. `wrap` gets the method
 * and the SDK's own wrapped handler (its validation included) and returns the one to store.
 */
export function wrapStoredHandlers(
  protocol: object,
  wrap: (method: string, sdkWrapped: StoredHandler) => StoredHandler,
): void {
  const open = protocol as { _wrapHandler: (method: string, h: StoredHandler) => StoredHandler };
  const sdkWrap = open._wrapHandler.bind(protocol);
  open._wrapHandler = (method, handler) => wrap(method, sdkWrap(method, handler));
}

/** `setRequestHandler` with any method name and the handler's arguments left open. */
export type Register = (method: string, ...rest: unknown[]) => void;

/**
 * Seam `setRequestHandler`: every later `setRequestHandler(method, …rest)` on `protocol` goes
 * through `intercept`, which registers through `register` (the SDK's own) as it sees fit.
 * Returns the SDK's own, for methods the SDK's types do not list.
 */
export function interceptRegistrations(
  protocol: object,
  intercept: (register: Register, method: string, rest: unknown[]) => void,
): Register {
  const open = protocol as { setRequestHandler: Register };
  const register = open.setRequestHandler.bind(protocol) as Register;
  open.setRequestHandler = (method, ...rest) => intercept(register, method, rest);
  return register;
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
