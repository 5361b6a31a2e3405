/**
 * One HTTP endpoint for both eras: 2025 clients get sessions (`Mcp-Session-Id`, so the server
 * can push elicitation requests), 2026-07-28 requests are served statelessly. Host and Origin
 * are checked first (DNS-rebinding protection, on by default for loopback names).
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  isInitializeRequest,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { ElicitServer } from './app.ts';

export interface HttpOptions {
  /** Host names accepted in `Host` (no port); default: localhost, 127.0.0.1, [::1]. */
  readonly allowedHosts?: readonly string[];
  /** Origins accepted when a browser sends `Origin`; default: loopback origins. */
  readonly allowedOrigins?: readonly string[];
  /** The verified MCP access token of a request, if any (from your auth middleware). */
  readonly authInfo?: (req: Request) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** Legacy sessions kept at once; the oldest is closed beyond it. Default 1000. */
  readonly maxSessions?: number;
}

export interface McpHttpEntry {
  fetch(req: Request): Promise<Response>;
  close(): Promise<void>;
  readonly sessions: number;
}

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

export function httpEntry(app: ElicitServer, options: HttpOptions = {}): McpHttpEntry {
  const hosts = [...(options.allowedHosts ?? localhostAllowedHostnames())];
  const origins = [...(options.allowedOrigins ?? localhostAllowedOrigins())];
  const maxSessions = options.maxSessions ?? 1000;
  const modern = createMcpHandler(() => app.build('modern'), { legacy: 'reject' });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  async function legacy(req: Request, authInfo: AuthInfo | undefined): Promise<Response> {
    const sid = req.headers.get('mcp-session-id');
    if (sid !== null) {
      const transport = sessions.get(sid);
      if (transport === undefined) return rpcError(404, -32001, 'Session not found');
      return transport.handleRequest(req, { authInfo });
    }
    let body: unknown;
    try {
      body = req.method === 'POST' ? await req.clone().json() : undefined;
    } catch {
      return rpcError(400, -32700, 'Parse error');
    }
    if (!isInitializeRequest(body))
      return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id required');
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        if (sessions.size > maxSessions) {
          const [oldest] = sessions.values();
          void oldest?.close();
        }
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await app.build('legacy').connect(transport);
    return transport.handleRequest(req, { parsedBody: body, authInfo });
  }

  return {
    async fetch(req) {
      const refused =
        hostHeaderValidationResponse(req, hosts) ?? originValidationResponse(req, origins);
      if (refused !== undefined) return refused;
      const authInfo = await options.authInfo?.(req);
      if (await isLegacyRequest(req)) return legacy(req, authInfo);
      return modern.fetch(req, { authInfo });
    },
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      sessions.clear();
    },
    get sessions() {
      return sessions.size;
    },
  };
}

export interface Listening {
  readonly url: URL;
  readonly server: HttpServer;
  close(): Promise<void>;
}

/** Serves `entry` at `path` on loopback (port 0 picks a free port). */
export async function listen(
  entry: McpHttpEntry,
  options: { port?: number; host?: string; path?: string } = {},
): Promise<Listening> {
  const path = options.path ?? '/mcp';
  const handler = toNodeHandler({ fetch: (req: Request) => entry.fetch(req) });
  const server = createHttpServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    void handler(req, res);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`),
    server,
    async close() {
      await entry.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
