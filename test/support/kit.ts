/**
 * The test kit: what many suites need in the same shape. A plain SDK client connected to an
 * elicit server on one era (legacy in memory, modern through createMcpHandler, or either over
 * HTTP through listen()); the URL-mode stack (store, records, vault, connect pages, dev login,
 * oidc-provider as the calendar's authorization server); and the forms the suites share.
 */
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import {
  Client,
  InMemoryTransport,
  ProtocolError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { expect } from 'vitest';
import { type CompletionBus, memoryBus } from '../../src/connect/completion.ts';
import {
  type ConnectApp,
  type ConnectAppOptions,
  createConnectApp,
} from '../../src/connect/index.ts';
import { devLogin, oidcLogin } from '../../src/connect/login.ts';
import type { ProviderConfig } from '../../src/connect/oauth.ts';
import { type RecordPurpose, UrlRecords } from '../../src/connect/records.ts';
import { createVault, type Vault } from '../../src/connect/vault.ts';
import { choice, form, text } from '../../src/schema/index.ts';
import {
  type ElicitServer,
  generateKeySecret,
  httpEntry,
  type Listening,
  listen,
} from '../../src/server/index.ts';
import { memoryStore, type Store } from '../../src/store/index.ts';
import { type Idp, type IdpClient, startIdp } from './idp.ts';

// ---------------------------------------------------------------------------------------------
// Shared forms

/** One free-text field: for tests where the question does not matter. */
export const oneText = form({ v: text() });
/** A name. */
export const nameForm = form({ name: text() });
/** A yes/no choice. */
export const yesNo = form({ ok: choice(['yes', 'no']) });

// ---------------------------------------------------------------------------------------------
// A plain SDK client on one era

/** `legacy` in memory; `modern` through createMcpHandler, in-process; `http`: listen() on loopback. */
export type Transport = 'memory' | 'handler' | 'http';
export type Era = 'legacy' | 'modern';

export interface ClientOptions {
  readonly era: Era;
  /** Default: `memory` for legacy, `handler` for modern. */
  readonly via?: Transport;
  /** The client's capabilities; default `{ elicitation: { form: {} } }`. */
  readonly capabilities?: Record<string, unknown>;
  /** Answers elicitation/create (when given). */
  readonly onElicit?: (params: never) => unknown;
  /** Legacy only: the revisions the client offers (e.g. `['2025-06-18']`). */
  readonly revisions?: string[];
}

export interface Connected {
  readonly client: Client;
  /** The HTTP server, with `via: 'http'`. */
  readonly server: Listening | undefined;
  close(): Promise<void>;
}

/** Connects a new plain SDK client to `app` on one era. */
export async function connectTo(app: ElicitServer, options: ClientOptions): Promise<Connected> {
  const via = options.via ?? (options.era === 'legacy' ? 'memory' : 'handler');
  const client = new Client(
    { name: 'c', version: '1' },
    {
      capabilities: options.capabilities ?? { elicitation: { form: {} } },
      ...(options.revisions === undefined ? {} : { supportedProtocolVersions: options.revisions }),
    },
  );
  const onElicit = options.onElicit;
  if (onElicit !== undefined)
    client.setRequestHandler(
      'elicitation/create',
      async (req) => onElicit(req.params as never) as never,
    );
  if (options.era === 'modern') client.setVersionNegotiation({ mode: { pin: '2026-07-28' } });
  let server: Listening | undefined;
  if (via === 'memory') {
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await app.build('legacy').connect(st);
    await client.connect(ct);
  } else if (via === 'handler') {
    const handler = createMcpHandler(() => app.build('modern'));
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://test.local/mcp'), {
        fetch: (u, i) => handler.fetch(new Request(u, i)),
      }),
    );
  } else {
    server = await listen(httpEntry(app));
    await client.connect(new StreamableHTTPClientTransport(server.url));
  }
  return {
    client,
    server,
    async close() {
      await client.close();
      await server?.close();
    },
  };
}

/** The text of a tool result's first content block. */
export const textOf = (r: unknown): string =>
  ((r as { content: { text: string }[] }).content[0] as { text: string }).text;

// ---------------------------------------------------------------------------------------------
// The URL-mode stack

export const CALENDAR_CLIENT = { id: 'calendar-app', secret: 'calendar-secret' } as const;

/** The calendar provider as the connect pages know it: the test idp, its confidential client. */
export function calendarProvider(idp: Idp): ProviderConfig {
  return {
    issuer: idp.issuer,
    clientId: CALENDAR_CLIENT.id,
    clientSecret: CALENDAR_CLIENT.secret,
    scope: 'openid offline_access calendar.read',
    allowInsecure: true,
  };
}

/** The idp as the pages' own sign-in (oidcLogin): its public client `login-app`. */
export const loginClients = (base: string): IdpClient[] => [
  { client_id: 'login-app', redirect_uris: [`${base}/elicit/login/callback`] },
];
export const idpLogin = (idp: Idp) =>
  oidcLogin({ issuer: idp.issuer, clientId: 'login-app', allowInsecure: true });

export interface ConnectStack {
  /** Listening on 127.0.0.1; its requests go to what `route` was last given. */
  readonly server: Server;
  readonly base: string;
  readonly idp: Idp;
  readonly store: Store;
  readonly records: UrlRecords;
  readonly vault: Vault;
  readonly bus: CompletionBus;
  /**
   * Connect pages on this stack's store, records, vault and bus; by default with the calendar
   * provider and a development login that signs everyone in as `local`.
   */
  pages(overrides?: Partial<ConnectAppOptions>): ConnectApp;
  /** What the stack's port serves from now on. */
  route(listener: RequestListener): void;
  close(): Promise<void>;
}

export interface StackOptions {
  /** The idp's clients; default: the calendar app, redirecting to the pages' OAuth callback. */
  readonly idpClients?: (base: string) => IdpClient[];
}

/** A Node HTTP server on 127.0.0.1, a free port, and its origin. */
export async function loopbackServer(
  listener?: RequestListener,
): Promise<{ server: Server; base: string }> {
  const server = createHttpServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** What the connect pages keep: records and a vault (one fresh key) on `store`, a memory bus. */
export function connectState(store: Store = memoryStore()) {
  return {
    store,
    records: new UrlRecords(store),
    vault: createVault(store, { keys: [{ id: 'v1', secret: generateKeySecret() }] }),
    bus: memoryBus(),
  };
}

/** A loopback port, oidc-provider, and the in-memory state of the connect pages. */
export async function connectStack(options: StackOptions = {}): Promise<ConnectStack> {
  const { server, base } = await loopbackServer();
  const idp = await startIdp(
    options.idpClients?.(base) ?? [
      {
        client_id: CALENDAR_CLIENT.id,
        client_secret: CALENDAR_CLIENT.secret,
        redirect_uris: [`${base}/elicit/oauth/callback`],
      },
    ],
  );
  const { store, records, vault, bus } = connectState();
  let current: RequestListener = (_req, res) => void res.writeHead(503).end();
  server.on('request', (req, res) => current(req, res));
  return {
    server,
    base,
    idp,
    store,
    records,
    vault,
    bus,
    pages: (overrides = {}) =>
      createConnectApp({
        baseUrl: base,
        store,
        records,
        vault,
        bus,
        login: devLogin({ fixedPrincipal: 'local' }),
        providers: { calendar: calendarProvider(idp) },
        ...overrides,
      }),
    route(listener) {
      current = listener;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await idp.close();
    },
  };
}

/** A Node listener for a `fetch` handler, passing @hono/node-server's env (the client address). */
export const listenerOf = (fetch: (req: Request, env?: unknown) => Promise<Response>) =>
  getRequestListener((req, env) => fetch(req, env));

/** A pending record, as ask.connect / ask.secret would create it. */
export function newRecord(
  records: UrlRecords,
  principal: string,
  purpose: RecordPurpose,
  subject: string,
  label: string,
) {
  return records.create({
    principal,
    clientId: undefined,
    purpose,
    subject,
    label,
    description: undefined,
    origin: undefined,
  });
}

// ---------------------------------------------------------------------------------------------
// Raw 2026-07-28 calls over HTTP, so a test controls every byte (the SDK client would not misbehave)

/** The per-request _meta a 2026-07-28 client sends. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

/** The headers of a 2026-07-28 tools/call for `name`. */
export function modernHeaders(name: string, extra: Record<string, string> = {}) {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': name,
    ...extra,
  };
}

/** The body of a 2026-07-28 tools/call: `params` beside the name and the per-request _meta. */
export const modernBody = (
  name: string,
  params: Record<string, unknown>,
  id = 1,
  meta: Record<string, unknown> = MODERN_META,
) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, _meta: meta, ...params },
  });

/** A reply's JSON-RPC message, sent as plain JSON or as the first SSE event. */
export async function readReply(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  const line = text.startsWith('{')
    ? text
    : (text
        .split('\n')
        .find((l) => l.startsWith('data: '))
        ?.slice(6) ?? '{}');
  return JSON.parse(line) as Record<string, unknown>;
}

/** POSTs a tools/call body to `url`; resolves with the reply's JSON-RPC message. */
export async function postModern(
  url: string | URL,
  name: string,
  body: string,
  init: { signal?: AbortSignal } = {},
): Promise<Record<string, unknown>> {
  return readReply(
    await fetch(url, { method: 'POST', headers: modernHeaders(name), body, ...init }),
  );
}

export const callModern = (
  url: string | URL,
  name: string,
  params: Record<string, unknown>,
  options: { id?: number; signal?: AbortSignal } = {},
) =>
  postModern(
    url,
    name,
    modernBody(name, params, options.id),
    options.signal ? { signal: options.signal } : {},
  );

/** The JSON-RPC error `p` rejects with (it must reject, with a ProtocolError). */
export async function rpcError(p: Promise<unknown>): Promise<ProtocolError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError;
}
