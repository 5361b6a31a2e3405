/**
 * A round-robin HTTP proxy on loopback in front of replicas. Legacy MCP sessions stick to the
 * replica that created them (as a real load balancer must for 2025 sessions); everything else,
 * including the connect pages, strictly alternates between replicas.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startProxy(
  targets: number[],
  port = 0,
): Promise<{ port: number; hits: number[]; close(): Promise<void> }> {
  const sticky = new Map<string, number>();
  const hits = targets.map(() => 0);
  let turn = 0;
  const server: Server = createServer((req, res) => {
    const sid = req.headers['mcp-session-id'];
    const index =
      typeof sid === 'string' && sticky.has(sid)
        ? (sticky.get(sid) as number)
        : turn++ % targets.length;
    hits[index] = (hits[index] ?? 0) + 1;
    const upstream = request(
      {
        host: '127.0.0.1',
        port: targets[index],
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (up) => {
        const created = up.headers['mcp-session-id'];
        if (typeof created === 'string') sticky.set(created, index);
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
