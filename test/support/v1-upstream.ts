/**
 * A plain SDK v1 server (2025 only), over Streamable HTTP in this process, so a test can see
 * what reaches it: its `ask` tool pushes a form (`elicitInput`) and waits for the answer; each
 * `notifications/cancelled` for a call is recorded with when it came and the reason it gave.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** A call the server saw cancelled. */
export interface Cancelled {
  readonly at: number;
  readonly reason: string;
}

export interface V1Upstream {
  readonly url: URL;
  /** Cancellations, in the order they came. */
  readonly cancelled: Cancelled[];
  /** Calls of `ask` that are still running. */
  readonly running: number;
  /** Resolves with the next cancellation (or the one already seen past `after`). */
  nextCancel(after?: number): Promise<Cancelled>;
  close(): Promise<void>;
}

export async function v1Upstream(): Promise<V1Upstream> {
  const cancelled: Cancelled[] = [];
  const waiting: (() => void)[] = [];
  let running = 0;
  const build = () => {
    const server = new McpServer({ name: 'v1-upstream', version: '1.0.0' });
    server.registerTool('ask', { description: 'Asks, then says the answer' }, async (extra) => {
      running++;
      const onAbort = () => {
        cancelled.push({ at: Date.now(), reason: String(extra.signal.reason) });
        for (const w of waiting.splice(0)) w();
      };
      extra.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const r = await server.server.elicitInput(
          {
            mode: 'form',
            message: 'Your name?',
            requestedSchema: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string', title: 'Name' } },
            },
          },
          { relatedRequestId: extra.requestId, signal: extra.signal, timeout: 2_147_000_000 },
        );
        return { content: [{ type: 'text', text: `${r.action}: ${String(r.content?.name)}` }] };
      } finally {
        running--;
      }
    });
    return server;
  };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http: Server = createServer(async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (transport === undefined) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      transport = created;
      await build().connect(created);
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    cancelled,
    get running() {
      return running;
    },
    nextCancel(after = cancelled.length) {
      return new Promise((resolve) => {
        const check = () => {
          const c = cancelled[after];
          if (c !== undefined) resolve(c);
          else waiting.push(check);
        };
        check();
      });
    },
    async close() {
      for (const t of sessions.values()) await t.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
