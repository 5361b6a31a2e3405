/**
 * Everything `elicit demo` runs, on embedded defaults: SQLite in ./.elicit, keys generated on
 * first run and kept beside it, the demo server and the connect pages on one loopback port, and
 * (when oidc-provider is installed) a pretend calendar provider.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { createConnectStack, devLogin } from '../connect/index.ts';
import { generateKeySecret, httpEntry } from '../server/index.ts';
import { sqliteStore } from '../store/index.ts';
import { startDemoIdp } from './idp.ts';
import { demoServer } from './server.ts';

export interface DemoStack {
  readonly url: URL;
  readonly calendar: boolean;
  close(): Promise<void>;
}

function keys(dir: string): { seal: string; vault: string } {
  const file = join(dir, 'keys.json');
  if (existsSync(file))
    return JSON.parse(readFileSync(file, 'utf8')) as { seal: string; vault: string };
  const made = { seal: generateKeySecret(), vault: generateKeySecret() };
  writeFileSync(file, JSON.stringify(made), { mode: 0o600 });
  return made;
}

export interface DemoOptions {
  readonly dir?: string;
  readonly port?: number;
  /** Extra pages served on the same origin (the web host's page and scripts). */
  readonly assets?: (req: Request) => Response | Promise<Response> | undefined;
}

export async function startDemo(options: DemoOptions = {}): Promise<DemoStack> {
  const dir = options.dir ?? join(process.cwd(), '.elicit');
  mkdirSync(dir, { recursive: true });
  const secrets = keys(dir);
  const http = createServer();
  await new Promise<void>((r) => http.listen(options.port ?? 0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const store = await sqliteStore({ path: join(dir, 'demo.db') });
  const idp = await startDemoIdp(`${base}/elicit/oauth/callback`);
  const connect = createConnectStack({
    baseUrl: base,
    store,
    keyring: { keys: [{ id: 'demo', secret: secrets.vault }] },
    // The demo's MCP endpoint has no authorization: its one user is `local`.
    login: devLogin({ fixedPrincipal: 'local' }),
    providers:
      idp === undefined
        ? {}
        : {
            calendar: {
              issuer: idp.issuer,
              clientId: 'elicit-demo',
              clientSecret: 'demo-only-secret',
              scope: 'openid offline_access calendar.read',
              allowInsecure: true,
            },
          },
  });
  const app = demoServer({
    keyring: { keys: [{ id: 'demo', secret: secrets.seal }] },
    connect: { app: connect, waitMs: 5 * 60_000 },
    calendarApi: idp?.api,
  });
  const entry = httpEntry(app);
  const mcp = getRequestListener((req) => entry.fetch(req));
  const pages = getRequestListener((req) => connect.fetch(req));
  const assets =
    options.assets === undefined
      ? undefined
      : getRequestListener(async (req) => (await options.assets?.(req)) ?? connect.fetch(req));
  http.on('request', (req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    if (path.startsWith('/mcp')) return mcp(req, res);
    if (assets !== undefined && !path.startsWith('/elicit')) return assets(req, res);
    return pages(req, res);
  });
  return {
    url: new URL(`${base}/mcp`),
    calendar: idp !== undefined,
    async close() {
      await entry.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
      await idp?.close();
      await store.close();
    },
  };
}
