/**
 * A server for the HTTP load test: a `hello` tool on both eras, and `heap` (the heap after a full
 * GC; run with --expose-gc). `elicit`: createServer + httpEntry. `sdk`: the same tool on a plain
 * McpServer, 2026-07-28 through the SDK's createMcpHandler and 2025 sessions through its session
 * transport, one node:http server for both.
 *
 *   node --expose-gc bench/load-server.ts <elicit|sdk> <port>
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { createServer, httpEntry, listen } from '../src/server/index.ts';

const [kind, portArg] = process.argv.slice(2);
const port = Number(portArg ?? 0);
const heap = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return String(process.memoryUsage().heapUsed);
};

if (kind === 'elicit') {
  const many = 1_000_000;
  const app = createServer({ name: 'elicit', version: '1' })
    .tool('hello', {}, async () => 'hello')
    .tool('heap', {}, heap);
  await listen(httpEntry(app, { sessions: { maxSessionsPerPrincipal: many, maxSessions: many } }), {
    port,
  });
} else {
  const sdk = () => {
    const s = new McpServer({ name: 'sdk', version: '1' });
    s.registerTool('hello', {}, async () => ({ content: [{ type: 'text', text: 'hello' }] }));
    s.registerTool('heap', {}, () => ({ content: [{ type: 'text', text: heap() }] }));
    return s;
  };
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
process.stdout.write('ready\n');
