/**
 * What the inbox suites share: tools that ask, a host that cannot answer, the gateway's inbox in
 * front of a server, and the connect pages' inbox of `createServer({ connect, inbox })` on a
 * loopback HTTP server (development sign-in as `local`), with MCP endpoints mounted beside it.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type ConnectApp, createConnectStack, devLogin } from '../../src/connect/index.ts';
import { createGateway, type Gateway, Inbox, type InboxOptions } from '../../src/gateway/index.ts';
import { form, integer, text } from '../../src/schema/index.ts';
import {
  createServer,
  type ElicitServer,
  generateKeySecret,
  httpEntry,
  type InboxSettings,
  type InboxWaiting,
  type Listening,
  listen,
  type McpHttpEntry,
} from '../../src/server/index.ts';
import { memoryStore } from '../../src/store/index.ts';

/** `order`: a form (a dish and a count); answers `<count> × <dish>`, or the action. */
export function withOrder(app: ElicitServer): ElicitServer {
  return app.tool('order', { description: 'asks what to order' }, async (_args, ask) => {
    const r = await ask.form(
      'what',
      form({ dish: text({ title: 'Dish' }), count: integer({ title: 'How many', min: 1 }) }),
      {
        message: 'What would you like?',
      },
    );
    return r.action === 'accept' ? `${r.content.count} × ${r.content.dish}` : r.action;
  });
}

/** A host that declares no elicitation (as MCP Inspector's CLI): its questions go to the inbox. */
export async function clientWithoutElicitation(
  url: URL,
  era: 'legacy' | 'modern' = 'legacy',
): Promise<Client> {
  const client = new Client({ name: 'cli', version: '1' }, { capabilities: {} });
  client.setVersionNegotiation({ mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** Questions as `onWaiting` tells them, and a wait for the `n`th. */
export function waitingQuestions() {
  const seen: InboxWaiting[] = [];
  return {
    seen,
    onWaiting: (q: InboxWaiting) => {
      seen.push(q);
    },
    async nth(n: number): Promise<InboxWaiting> {
      for (let i = 0; i < 300 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 50));
      if (seen.length !== n) throw new Error(`${seen.length} questions waiting, not ${n}`);
      return seen[n - 1] as InboxWaiting;
    },
  };
}

/** The gateway's inbox in front of `app`, served over HTTP on loopback. */
export interface GatewayInbox {
  readonly upstream: Listening;
  readonly inbox: Inbox;
  readonly gateway: Gateway;
  /** Where hosts call the gateway. */
  readonly front: Listening;
  close(): Promise<void>;
}

export async function gatewayInbox(
  app: ElicitServer,
  options: InboxOptions = {},
): Promise<GatewayInbox> {
  const upstream = await listen(httpEntry(app));
  const inbox = await Inbox.start(options);
  const gateway = await createGateway({
    transport: () => new StreamableHTTPClientTransport(upstream.url),
    inbox,
  });
  const front = await gateway.listen();
  return {
    upstream,
    inbox,
    gateway,
    front,
    async close() {
      await front.close();
      await gateway.close();
      await inbox.close();
      await upstream.close();
    },
  };
}

/** Connect pages with their inbox on a loopback HTTP server; MCP endpoints are mounted on it. */
export interface ConnectPages {
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  readonly stack: ConnectApp;
  /** Another deployment's connect pages on the same address (a store of its own). */
  pagesApart(): ConnectApp;
  /** Serves `entry` at `path` (the query aside); it is closed with the server. */
  mount(path: string, entry: McpHttpEntry): void;
  close(): Promise<void>;
}

export async function connectPages(): Promise<ConnectPages> {
  const http = createHttpServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const pagesApart = () =>
    createConnectStack({
      baseUrl: base,
      store: memoryStore(),
      keyring: { keys: [{ id: 'k', secret: generateKeySecret() }] },
      login: devLogin({ fixedPrincipal: 'local' }),
      providers: {},
    });
  const stack = pagesApart();
  const web = getRequestListener((req) => stack.fetch(req));
  const mounted = new Map<string, McpHttpEntry>();
  const listeners = new Map<string, ReturnType<typeof getRequestListener>>();
  http.on('request', (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    (listeners.get(path) ?? web)(req, res);
  });
  return {
    base,
    stack,
    pagesApart,
    mount(path, entry) {
      mounted.set(path, entry);
      listeners.set(
        path,
        getRequestListener((req) => entry.fetch(req)),
      );
    },
    async close() {
      for (const entry of mounted.values()) await entry.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** An elicit server on `pages` with the inbox fallback (`createServer({ connect, inbox })`). */
export function serverWithInbox(
  pages: ConnectPages,
  name: string,
  inbox: InboxSettings = {},
  stack: ConnectApp = pages.stack,
): ElicitServer {
  return createServer({ name, version: '1', connect: { app: stack }, inbox });
}
