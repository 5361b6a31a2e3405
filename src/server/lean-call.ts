/**
 * The plain 2026-07-28 `tools/call`, served on a pooled server through the SDK's public
 * building blocks (`classifyInboundRequest`, `PerRequestHTTPServerTransport`) instead of through
 * `createMcpHandler`, whose per-request layers cost about as much as everything elicit does in a
 * round. It is taken only when `plainToolCall` proves the request is the well-formed case, the
 * one createMcpHandler serves without a word of its own: its standard headers present, bare and
 * equal to what the body says, the revision one the SDK serves, a tool with no `Mcp-Param`
 * headers and no scope challenge. Anything else goes to createMcpHandler unchanged, which
 * answers it in its own words. test/server/lean-call.test.ts sends the same requests both ways
 * and compares the answers; test/sdk-seams.test.ts pins every check of the SDK's the predicate
 * stands in for (seam `modernDispatch`).
 */
import {
  type AuthInfo,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  type McpServer,
  PerRequestHTTPServerTransport,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/server';
import { MODERN_REVISION } from '../kernel/revision.ts';
import { dispatchInternals, seedClientIdentity } from '../kernel/sdk-seams.ts';
import { rpcErrorResponse } from './body.ts';
import type { ServerPool } from './server-pool.ts';

/** What the SDK's classifier says of a request. */
export type Route = ReturnType<typeof classifyInboundRequest>;

/** A route the classifier sent to the modern path as a request. */
type ModernRequestRoute = Extract<Route, { kind: 'modern'; messageKind: 'request' }>;

/**
 * The request classified by the SDK's public classifier, read exactly as createMcpHandler reads
 * it (the HTTP method, the three standard headers, the parsed body), so httpEntry classifies a
 * request once: routing the eras on `kind === 'legacy'` is the SDK's `isLegacyRequest`.
 */
export function classify(request: Request, parsed: unknown): Route {
  const h = request.headers;
  const version = h.get('mcp-protocol-version');
  const method = h.get('mcp-method');
  const name = h.get('mcp-name');
  return classifyInboundRequest({
    httpMethod: request.method.toUpperCase(),
    ...(version === null ? {} : { protocolVersionHeader: version }),
    ...(method === null ? {} : { mcpMethodHeader: method }),
    ...(name === null ? {} : { mcpNameHeader: name }),
    body: parsed,
  });
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

// The SDK strips spaces and tabs around a header before comparing it, and decodes a value
// wrapped in its Base64 sentinel; a name that needs either is left to the SDK.
const SENTINEL_START = '=?';
const needsReading = (name: string): boolean =>
  name.startsWith(SENTINEL_START) ||
  name.startsWith(' ') ||
  name.startsWith('\t') ||
  name.endsWith(' ') ||
  name.endsWith('\t');

/** A tools/call the lean path may serve: its route and the tool it names. */
export interface PlainToolCall {
  readonly route: ModernRequestRoute;
  readonly name: string;
  readonly params: Record<string, unknown>;
}

/**
 * The request when it is a plain well-formed 2026-07-28 tools/call, by its headers and body
 * alone; undefined for anything else. A strict subset of what createMcpHandler serves without
 * refusing: a JSON POST; classified modern, a request, `tools/call`, at `MODERN_REVISION` (the
 * one revision both elicit and the SDK serve); `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` present, byte for byte the revision, the method and `params.name` (no surrounding
 * whitespace, no encoded form); params an object; a non-empty tool name.
 */
export function plainToolCall(request: Request, route: Route): PlainToolCall | undefined {
  if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
  const { message, classification } = route;
  if (message.method !== 'tools/call' || classification.revision !== MODERN_REVISION)
    return undefined;
  if (request.method !== 'POST') return undefined;
  const h = request.headers;
  if (!isJsonContentType(h.get('content-type'))) return undefined;
  if (h.get('mcp-protocol-version') !== MODERN_REVISION || h.get('mcp-method') !== 'tools/call')
    return undefined;
  const params: unknown = message.params;
  if (!isPlainObject(params)) return undefined;
  const name = params.name;
  if (typeof name !== 'string' || name.length === 0 || needsReading(name)) return undefined;
  if (h.get('mcp-name') !== name) return undefined;
  return { route, name, params };
}

// Per server and tool: whether its input schema names no Mcp-Param header (`x-mcp-header`
// anywhere in it, even as text, counts as naming one). A server's tools never change.
const plainTools = new WeakMap<McpServer, Map<string, boolean>>();

/**
 * Whether `mcp` would dispatch `call` with nothing of the handler's own to check: the tool is
 * registered and enabled, declares no `Mcp-Param` headers, and sets no scope challenge.
 */
function plainOn(mcp: McpServer, call: PlainToolCall, authInfo: AuthInfo | undefined): boolean {
  const internals = dispatchInternals(mcp);
  let tools = plainTools.get(mcp);
  if (tools === undefined) {
    tools = new Map();
    plainTools.set(mcp, tools);
  }
  let plain = tools.get(call.name);
  if (plain === undefined) {
    const schema = internals.toolInputSchemaJson(call.name);
    plain = schema !== undefined && !JSON.stringify(schema).includes('x-mcp-header');
    tools.set(call.name, plain);
  }
  if (!plain) return false;
  const challenge = internals.resolveScopeChallenge({
    request: call.route.message as never,
    ...(authInfo === undefined ? {} : { authInfo: authInfo as never }),
  });
  if (challenge === undefined) return true;
  // A challenge (or a pending one) is the handler's to answer; nothing is left unhandled here.
  if (challenge instanceof Promise) challenge.catch(() => {});
  return false;
}

/**
 * Serves `call` on a server from `pool`, or hands the request to `fallback` (createMcpHandler)
 * when the tool it names needs the handler's own checks. The server goes back to the pool as
 * server-pool.ts requires: through its exchange's close chain, or, when it never connected,
 * through its close.
 */
export async function serveToolCall(
  pool: ServerPool,
  request: Request,
  call: PlainToolCall,
  authInfo: AuthInfo | undefined,
  fallback: () => Promise<Response>,
): Promise<Response> {
  const mcp = pool.take();
  if (!plainOn(mcp, call, authInfo)) {
    await mcp.close();
    return fallback();
  }
  const { message, classification } = call.route;
  const meta = call.params._meta;
  if (isPlainObject(meta))
    seedClientIdentity(mcp.server, meta[CLIENT_INFO_META_KEY], meta[CLIENT_CAPABILITIES_META_KEY]);
  // Connecting binds the server to the classified revision (its supported versions list it).
  const transport = new PerRequestHTTPServerTransport({ classification });
  try {
    await mcp.connect(transport);
    return await transport.handleMessage(message, {
      request,
      ...(authInfo === undefined ? {} : { authInfo }),
    });
  } catch (error) {
    // What createMcpHandler answers here: 499 for a client gone before the answer, else 500.
    if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed)
      return new Response(null, { status: 499 });
    await mcp.close().catch(() => {});
    return rpcErrorResponse(500, { code: -32603, message: 'Internal server error' }, message.id);
  }
}
