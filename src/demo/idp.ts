/**
 * The demo's pretend calendar provider: oidc-provider on loopback with its development login
 * and consent pages, and a small calendar API that accepts only its own access tokens.
 * oidc-provider is an optional dependency; without it the demo leaves the calendar out.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DemoIdp {
  readonly issuer: string;
  readonly api: string;
  close(): Promise<void>;
}

/**
 * oidc-provider prints development-mode WARNING and NOTICE lines straight to the console (its
 * in-memory adapter, development keys and login pages are what the demo wants): they would land
 * over the host's menus and prompts. Only those lines are dropped; everything else passes.
 */
function quietProviderNotices(): void {
  const noise = /^(\u001b\[[0-9;]*m)?oidc-provider (WARNING|NOTICE): /;
  for (const method of ['info', 'warn'] as const) {
    const original = console[method];
    if ((original as { quiet?: boolean }).quiet === true) continue;
    const quiet = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && noise.test(args[0])) return;
      original.apply(console, args);
    };
    console[method] = Object.assign(quiet, { quiet: true });
  }
}

/**
 * The provider listens at once, and oidc-provider (a large module: about as long to load as the
 * SDK's server and client together) is loaded at its first request, not before the demo's
 * first screen. Whether it is installed is known without loading it.
 */
export async function startDemoIdp(redirectUri: string): Promise<DemoIdp | undefined> {
  try {
    import.meta.resolve('oidc-provider');
  } catch {
    return undefined;
  }
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let loading: Promise<InstanceType<typeof import('oidc-provider').default>> | undefined;
  const provider = () =>
    (loading ??= import('oidc-provider').then(({ default: Provider }) => {
      quietProviderNotices();
      return new Provider(issuer, {
        clients: [
          {
            client_id: 'elicit-demo',
            client_secret: 'demo-only-secret',
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_post',
          },
        ],
        pkce: { required: () => true },
        features: { devInteractions: { enabled: true } },
        scopes: ['openid', 'offline_access', 'calendar.read'],
        findAccount: (_ctx: unknown, id: string) => ({
          accountId: id,
          claims: () => ({ sub: id }),
        }),
        issueRefreshToken: () => true,
        cookies: { keys: ['elicit-demo-cookie-key-not-secret'] },
      } as never);
    }));
  // A failed token lookup answers 500 for that request; a rejection here would end the process.
  const calendar = async (req: IncomingMessage, res: ServerResponse) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const found = token === '' ? undefined : await (await provider()).AccessToken.find(token);
    if (found === undefined) return void res.writeHead(401).end('unauthorized');
    const day = new Date().toISOString().slice(0, 10);
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        owner: found.accountId,
        day,
        events: ['09:30 Standup', '12:00 Lunch with Ada', '16:00 Design review'],
      }),
    );
  };
  let callback: ((req: IncomingMessage, res: ServerResponse) => unknown) | undefined;
  const oidc = async (req: IncomingMessage, res: ServerResponse) => {
    callback ??= (await provider()).callback();
    return callback(req, res);
  };
  server.on('request', (req, res) => {
    const handled = req.url?.startsWith('/calendar') ? calendar(req, res) : oidc(req, res);
    Promise.resolve(handled).catch(() => {
      if (!res.headersSent)
        res
          .writeHead(500)
          .end(req.url?.startsWith('/calendar') ? 'calendar unavailable' : 'provider unavailable');
      else res.destroy();
    });
  });
  return {
    issuer,
    api: `${issuer}/calendar`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
