/**
 * One HTTP endpoint for both eras: 2025 clients get sessions (`Mcp-Session-Id`, so the server
 * can push elicitation requests), 2026-07-28 requests are served statelessly. Host and Origin
 * are checked first (DNS-rebinding protection, on by default for loopback names).
 */
import { randomUUID } from 'node:crypto';
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  isInitializeRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServer,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { paramsNotObject, refuseParamsNotObject } from '../kernel/params-guard.ts';
import type { ElicitServer } from './app.ts';
import { DEFAULT_MAX_BODY_BYTES, readBodyOnce, rpcErrorResponse } from './body.ts';
import { HangUpTransport } from './disconnect.ts';
import { LimitOptionError, ListenError } from './errors.ts';
import { BoundedEventStore, type EventStoreLimits } from './event-store.ts';
import { classify, plainToolCall, serveToolCall } from './lean-call.ts';
import { isLoopbackHost } from './principal.ts';
import {
  DEFAULT_SESSION_LIMITS,
  type SessionLike,
  type SessionLimits,
  type SessionRefusal,
  SessionTable,
} from './sessions.ts';
import { serveListen, taskListen } from './tasks/listen.ts';
import { connectChecked } from './wire.ts';

export interface HttpOptions {
  /** Host names accepted in `Host` (no port); default: localhost, 127.0.0.1, [::1]. */
  readonly allowedHosts?: readonly string[];
  /** Origins accepted when a browser sends `Origin`; default: loopback origins. */
  readonly allowedOrigins?: readonly string[];
  /**
   * The verified MCP access token of a request, if any (from your auth middleware, or
   * `accessTokens`); a Response (a 401 challenge) is the request's answer instead.
   */
  readonly authInfo?: (
    req: Request,
  ) => AuthInfo | Response | undefined | Promise<AuthInfo | Response | undefined>;
  /**
   * Documents `listen` serves beside the MCP path (`accessTokens`' RFC 9728 metadata): a
   * request for any other path is handed here first; undefined answers 404.
   */
  readonly wellKnown?: (req: Request) => Response | undefined;
  /** Caps on legacy sessions: in total, per principal, and when an idle one may be closed. */
  readonly sessions?: Partial<SessionLimits>;
  /** Caps on the events a legacy session keeps so a client can resume a stream (SEP-1699). */
  readonly events?: Partial<EventStoreLimits>;
  /** Milliseconds a client waits before reconnecting a stream the server closed; default 1000. */
  readonly retryMs?: number;
  /** Largest request body read, in bytes (413 beyond it); default 4 MiB, as the SDK's. */
  readonly maxBodyBytes?: number;
}

export interface McpHttpEntry {
  fetch(req: Request): Promise<Response>;
  close(): Promise<void>;
  readonly sessions: number;
}

function rpcError(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): Response {
  return rpcErrorResponse(status, { code, message }, null, headers);
}

/**
 * A legacy session, one object: its transport (the hang-up watch's), its place in the session
 * table and its open GET streams. What the SDK would call back (a session initialized, closed)
 * is done where it happens instead, so a session keeps no callbacks of its own.
 */
class Session extends HangUpTransport implements SessionLike {
  readonly principal: string;
  lastSeen = 0;
  streams = 0;
  readonly #table: SessionTable<Session>;
  #mcp: McpServer | undefined;
  /** Whether it served anything after initialize. */
  used = false;
  // Whether it holds the place `table.reserve` kept (until it is added or fails).
  #reserved = true;
  #refusesBadParams = false;
  #closed = false;

  constructor(
    table: SessionTable<Session>,
    principal: string,
    events: BoundedEventStore,
    retryMs: number,
    forget: (id: string) => void,
  ) {
    // Each session's SSE streams start with a priming event and `retry`, and a client that
    // lost one reconnects with Last-Event-ID; the events die with the session.
    super({
      sessionIdGenerator: randomUUID,
      eventStore: events,
      retryInterval: retryMs,
      onsessionclosed: forget,
    });
    this.#table = table;
    this.principal = principal;
  }

  /** Serves the session with `mcp` (built for it). */
  async serve(mcp: McpServer): Promise<void> {
    this.#mcp = mcp;
    // Params that are not an object were answered before any request reaches a session.
    await connectChecked(mcp, this);
  }

  /** From now on, answers requests whose params are not an object (in a batch) -32602. */
  refuseBadParams(): void {
    if (this.#refusesBadParams) return;
    this.#refusesBadParams = true;
    refuseParamsNotObject(this as never);
  }

  /** The revision negotiated at initialize. */
  revision(): string | undefined {
    return this.#mcp?.server.getNegotiatedProtocolVersion();
  }

  get busy(): boolean {
    return this.streams > 0 || this.inFlight > 0;
  }

  /** Initialize answered: the session takes the place kept for it, under its id. */
  initialized(): void {
    if (!this.#reserved || this.#closed || this.sessionId === undefined) return;
    this.#table.add(this.sessionId, this);
    this.release();
  }

  /** Gives back the place kept for it, if it still holds it. */
  release(): void {
    if (!this.#reserved) return;
    this.#reserved = false;
    this.#table.unreserve(this.principal);
  }

  override async close(): Promise<void> {
    this.#closed = true;
    await super.close();
    this.release();
    if (this.sessionId !== undefined) this.#table.delete(this.sessionId);
  }
}

function refusedSession(why: SessionRefusal, limits: SessionLimits): Response {
  if (why === 'principal')
    return rpcError(
      429,
      -32000,
      `Too many sessions for this user (sessions.maxSessionsPerPrincipal = ${limits.maxSessionsPerPrincipal}) and all are busy; end one (DELETE) or try again later.`,
    );
  return rpcError(
    503,
    -32000,
    `This server has no room for another session (sessions.maxSessions = ${limits.maxSessions}); try again later.`,
    { 'retry-after': '60' },
  );
}

/**
 * A session's requests at the revision it negotiated. The SDK decides per request, from
 * `MCP-Protocol-Version` (2025-03-26 when absent), whether an SSE stream may start with a
 * priming event; a client that leaves the header out or sends another supported revision still
 * speaks the one it negotiated, so that one decides.
 */
function atRevision(req: Request, revision: string | undefined): Request {
  if (revision === undefined || req.headers.get('mcp-protocol-version') === revision) return req;
  const headers = new Headers(req.headers);
  headers.set('mcp-protocol-version', revision);
  if (!req.bodyUsed) return new Request(req, { headers });
  // A body already read is handed on parsed and never read again; a used body cannot be
  // carried into a new Request (nor left out: init.body null means "the input's"), so an empty
  // one stands in.
  headers.delete('content-length');
  return new Request(req, { headers, body: '' });
}

/** Ends a response whose writing failed (bound to it: no closure per request while it waits). */
function destroyResponse(this: ServerResponse): void {
  this.destroy();
}

// Which app an entry serves, so listen() can check a non-loopback bind against it, and the
// documents it serves beside its MCP path.
const servedBy = new WeakMap<
  McpHttpEntry,
  { expose: (where: string) => void; wellKnown?: HttpOptions['wellKnown'] }
>();

export function httpEntry(app: ElicitServer, options: HttpOptions = {}): McpHttpEntry {
  const hosts = [...(options.allowedHosts ?? localhostAllowedHostnames())];
  const expose = (where: string) => app.exposed(where, options.authInfo !== undefined);
  const outside = hosts.find((h) => !isLoopbackHost(h));
  if (outside !== undefined) expose(`allowedHosts includes ${JSON.stringify(outside)}`);
  const origins = [...(options.allowedOrigins ?? localhostAllowedOrigins())];
  const limits = { ...DEFAULT_SESSION_LIMITS, ...options.sessions };
  // 2026-07-28 requests are served by a few built servers, each reused once idle (server-pool.ts);
  // a plain tools/call on them without createMcpHandler's per-request layers (lean-call.ts).
  const pool = app.modernPool();
  const modern = createMcpHandler(pool?.take ?? (() => app.build('modern')), { legacy: 'reject' });
  const table = new SessionTable<Session>(limits);
  const retryMs = options.retryMs ?? 1000;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)
    throw new LimitOptionError('maxBodyBytes', maxBodyBytes);
  if (!Number.isSafeInteger(retryMs) || retryMs < 1) throw new LimitOptionError('retryMs', retryMs);
  // Checked once here, so a bad option fails at start, not at the first session.
  const eventLimits = new BoundedEventStore(options.events).limits;
  // One for every session of this entry (a session keeps what it is given for its life).
  const forgetSession = (id: string) => table.delete(id);

  async function legacy(
    req: Request,
    authInfo: AuthInfo | undefined,
    parsed: unknown,
  ): Promise<Response> {
    // Callers without a principal share one quota of their own, apart from everyone else's.
    const principal = app.httpPrincipal(authInfo) ?? '';
    const sid = req.headers.get('mcp-session-id');
    if (sid !== null) {
      // Another principal's session id is as unknown as a made-up one.
      const session = table.get(sid, principal);
      if (session === undefined) return rpcError(404, -32001, 'Session not found');
      table.touch(session);
      const request = atRevision(req, session.revision());
      // Each call is watched for its client hanging up; a session counts as used once it
      // serves a request beyond initialize.
      if (session.watch(parsed, request)) session.used = true;
      // A batch carrying params that are not an object (answered above for one message): this
      // session's own hook answers them from now on.
      if (Array.isArray(parsed) && parsed.some((m) => paramsNotObject(m) !== undefined))
        session.refuseBadParams();
      // The SDK keeps the options it is given as long as the call's stream lives (in its
      // closures' scope) but reads them only while handleRequest runs: the parsed body is let go
      // once it returns, so a waiting call does not keep a second copy of its request.
      const options: { authInfo?: AuthInfo; parsedBody?: unknown } = {
        authInfo,
        parsedBody: parsed,
      };
      const response = await session.handleRequest(request, options);
      options.parsedBody = undefined;
      if (!response.ok) session.unwatch(parsed);
      if (req.method === 'GET' && response.ok && !req.signal.aborted) {
        // The standalone stream: the session is in use while it is open.
        session.used = true;
        session.streams++;
        req.signal.addEventListener('abort', () => session.streams--, { once: true });
      }
      return response;
    }
    if (req.method === 'POST' && parsed === undefined) return rpcError(400, -32700, 'Parse error');
    const body = parsed;
    if (!isInitializeRequest(body))
      return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id required');
    const refused = table.reserve(principal);
    if (refused !== undefined) return refusedSession(refused, limits);
    const session = new Session(
      table,
      principal,
      new BoundedEventStore(eventLimits),
      retryMs,
      forgetSession,
    );
    try {
      await session.serve(app.build('legacy'));
      const response = await session.handleRequest(req, { parsedBody: body, authInfo });
      session.initialized();
      return response;
    } finally {
      session.release();
    }
  }

  const entry: McpHttpEntry = {
    async fetch(req) {
      const refused =
        hostHeaderValidationResponse(req, hosts) ?? originValidationResponse(req, origins);
      if (refused !== undefined) return refused;
      const auth = await options.authInfo?.(req);
      if (auth instanceof Response) return auth;
      const authInfo = auth;
      // Read and parsed once here; the SDK is handed the parsed body and reads nothing again.
      const body = await readBodyOnce(req, maxBodyBytes);
      if ('response' in body) return body.response;
      const { request, parsed } = body;
      // Params that are not an object: -32602 for the request's id on both eras (the SDK's
      // transports call it a parse error or an invalid message and drop the id).
      const notObject = paramsNotObject(parsed);
      if (notObject !== undefined) return Response.json(notObject);
      // A request that names a session is that session's (as the SDK's own session wiring
      // routes it); the rest are told apart by the SDK's classifier, run once here (without a
      // JSON body a request is legacy, as isLegacyRequest says).
      if (request.headers.has('mcp-session-id') || parsed === undefined)
        return legacy(request, authInfo, parsed);
      const route = classify(request, parsed);
      if (route.kind === 'legacy') return legacy(request, authInfo, parsed);
      const serve = (r: Request, p: unknown) =>
        modern.fetch(r, { authInfo, ...(p === undefined ? {} : { parsedBody: p }) });
      const call = pool === undefined ? undefined : plainToolCall(request, route);
      if (pool !== undefined && call !== undefined)
        return serveToolCall(pool, request, call, authInfo, () => serve(request, parsed));
      // Only a listen stream that watches tasks goes through the tasks' listen wrapper.
      const listening = taskListen(parsed);
      if (listening === undefined) return serve(request, parsed);
      return serveListen(request, listening, app.tasks, () => app.httpPrincipal(authInfo), serve);
    },
    async close() {
      await table.closeAll();
    },
    get sessions() {
      return table.size;
    },
  };
  servedBy.set(entry, { expose, wellKnown: options.wellKnown });
  return entry;
}

const notFound = () =>
  new Response('not found', { status: 404, headers: { 'content-type': 'text/plain' } });

export interface Listening {
  readonly url: URL;
  readonly server: HttpServer;
  close(): Promise<void>;
}

/**
 * Serves `entry` at `path` (port 0 picks a free port) on loopback by default; any other host
 * makes the server reachable beyond loopback, which its principal configuration must allow.
 */
export async function listen(
  entry: McpHttpEntry,
  options: { port?: number; host?: string; path?: string } = {},
): Promise<Listening> {
  const path = options.path ?? '/mcp';
  const handler = toNodeHandler({ fetch: (req: Request) => entry.fetch(req) });
  const wellKnown = servedBy.get(entry)?.wellKnown;
  const documents =
    wellKnown === undefined
      ? undefined
      : toNodeHandler({ fetch: async (req: Request) => wellKnown(req) ?? notFound() });
  const server = createHttpServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== path) {
      if (documents !== undefined) documents(req, res).catch(() => res.destroy());
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    // The adapter answers a failing fetch with 500 itself; this catch is for what is left (a
    // socket that broke while the answer was written): that one request ends, nothing else.
    handler(req, res).catch(destroyResponse.bind(res));
  });
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) servedBy.get(entry)?.expose(`listening on ${JSON.stringify(host)}`);
  const port = options.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(new ListenError(host, port, error));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: new URL(`http://${host.includes(':') ? `[${host}]` : host}:${bound}${path}`),
    server,
    async close() {
      await entry.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
