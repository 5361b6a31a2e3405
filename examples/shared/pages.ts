/**
 * The URL-mode stories' plumbing: one loopback port serving the MCP endpoint at /mcp and the
 * connect pages (sign-in, the secret form, the OAuth callback) at /elicit, on in-memory state.
 * A real deployment keeps the same shape with a SQLite or Redis store and oidcLogin.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import {
  type ConnectApp,
  createConnectApp,
  createVault,
  devLogin,
  memoryBus,
  type ProviderConfig,
  UrlRecords,
} from '../../src/connect/index.ts';
import { type ElicitServer, generateKeySecret, httpEntry } from '../../src/server/index.ts';
import { memoryStore } from '../../src/store/index.ts';

/** The connect pages at `base`, with a development login that signs everyone in as `local`. */
export function pages(base: string, providers: Record<string, ProviderConfig> = {}): ConnectApp {
  const store = memoryStore();
  return createConnectApp({
    baseUrl: base,
    store,
    records: new UrlRecords(store),
    vault: createVault(store, { keys: [{ id: 'story', secret: generateKeySecret() }] }),
    bus: memoryBus(),
    login: devLogin({ fixedPrincipal: 'local' }), // production: oidcLogin({ issuer, clientId, … })
    providers,
  });
}

export interface Built {
  readonly app: ElicitServer;
  readonly connect: ConnectApp;
  readonly close?: () => Promise<void>;
}

/** Listens on 127.0.0.1 (a free port), then builds the server once its own origin is known. */
export async function serveWithPages(
  build: (base: string) => Promise<Built>,
): Promise<{ url: URL; close(): Promise<void> }> {
  const http = createServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const built = await build(base);
  const entry = httpEntry(built.app);
  const mcp = getRequestListener((req) => entry.fetch(req));
  const web = getRequestListener((req) => built.connect.fetch(req));
  http.on('request', (req, res) =>
    (req.url ?? '/').split('?')[0] === '/mcp' ? mcp(req, res) : web(req, res),
  );
  return {
    url: new URL(`${base}/mcp`),
    async close() {
      await entry.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
      await built.close?.();
    },
  };
}
