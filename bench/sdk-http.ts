/**
 * The plain SDK served over HTTP the way its documentation wires it, for the benchmarks' baseline
 * server processes: 2025 sessions through its session transport (one McpServer per session),
 * 2026-07-28 requests through createMcpHandler, one node:http server on loopback for both.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import {
  createMcpHandler,
  isLegacyRequest,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

export interface SdkHttpOptions {
  /**
   * 2025 sessions resumable as elicit's are (SEP-1699): each stream primed, its events kept in
   * the SDK's example InMemoryEventStore, `retry` 1 s.
   */
  readonly resumable?: boolean;
}

export async function serveSdk(
  sdk: () => McpServer,
  port: number,
  { resumable = false }: SdkHttpOptions = {},
): Promise<void> {
  const modern = createMcpHandler(() => sdk(), { legacy: 'reject' });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const handler = toNodeHandler({
    async fetch(req: Request) {
      const sid = req.headers.get('mcp-session-id');
      if (sid !== null)
        return sessions.get(sid)?.handleRequest(req) ?? new Response(null, { status: 404 });
      if (!(await isLegacyRequest(req))) return modern.fetch(req);
      const t: WebStandardStreamableHTTPServerTransport =
        new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          ...(resumable ? { eventStore: new InMemoryEventStore(), retryInterval: 1000 } : {}),
          onsessioninitialized: (id) => {
            sessions.set(id, t);
          },
        });
      await sdk().connect(t);
      return t.handleRequest(req);
    },
  });
  const server = createHttpServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
}
