/**
 * Signing in to a protected MCP server from a terminal: oidc-provider as the authorization
 * server (dynamic registration, resource indicators, PKCE, RFC 9207 `iss`), an elicit server
 * behind the SDK's bearer gate with protected resource metadata, real Chromium for the person,
 * and the loopback redirect in between.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { createServer as createHttpServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import Provider from 'oidc-provider';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authProviderFor,
  connectSignedIn,
  forgetSignIn,
  type TerminalAuthProvider,
} from '../../src/cli/auth.ts';
import { readSignIn, signInFile, writeSignIn } from '../../src/cli/auth-store.ts';
import { startLoopback } from '../../src/cli/loopback.ts';
import { createServer, httpEntry } from '../../src/server/index.ts';
import { launchBrowser, signInAtProvider } from '../support/browser.ts';

let as: { issuer: string; provider: Provider; server: Server };
let mcp: { url: URL; server: Server };
let browser: Browser;
let registrations = 0;
const configDir = join(mkdtempSync(join(tmpdir(), 'elicit-auth-')), 'elicit');

async function listenOn(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  // The MCP server's address must be known before the authorization server is configured.
  const mcpServer = createHttpServer();
  const mcpUrl = new URL(`http://127.0.0.1:${await listenOn(mcpServer)}/mcp`);

  const asServer = createHttpServer();
  const issuer = `http://127.0.0.1:${await listenOn(asServer)}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'elicit-preregistered',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl.href,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== mcpUrl.href) throw new Error(`unknown resource ${resource}`);
          return { scope: 'mcp', audience: resource, accessTokenFormat: 'opaque' };
        },
      },
    },
    scopes: ['openid', 'offline_access', 'mcp'],
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    cookies: { keys: ['test-only-cookie-key-0123456789'] },
    ttl: { AccessToken: 3600, Grant: 3600, Interaction: 600, Session: 3600, RefreshToken: 86400 },
  } as never);
  const callback = provider.callback();
  asServer.on('request', (req, res) => {
    if (req.method === 'POST' && req.url === '/reg') registrations++;
    callback(req, res);
  });
  as = { issuer, provider, server: asServer };

  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const at = await provider.AccessToken.find(token);
      if (at === undefined) throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown token');
      return {
        token,
        clientId: at.clientId as string,
        scopes: (at.scope ?? '').split(' ').filter(Boolean),
        expiresAt: at.exp as number,
        resource: new URL(String(at.aud)),
        extra: { iss: issuer, sub: at.accountId },
      };
    },
  };
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(mcpUrl);
  const gate = requireBearerAuth({
    verifier,
    requiredScopes: ['mcp'],
    resourceMetadataUrl,
    expectedResource: mcpUrl,
  });
  const app = createServer({ name: 'protected', version: '1.0.0' }).tool(
    'whoami',
    { description: 'Who the token belongs to' },
    (_args, _ask, ctx) => `signed in as ${String(ctx.http?.authInfo?.extra?.sub)}`,
  );
  const verified = new WeakMap<Request, AuthInfo>();
  const entry = httpEntry(app, { authInfo: (req) => verified.get(req) });
  const prm = {
    resource: mcpUrl.href,
    authorization_servers: [issuer],
    scopes_supported: ['mcp'],
    bearer_methods_supported: ['header'],
  };
  mcpServer.on(
    'request',
    toNodeHandler({
      async fetch(req: Request) {
        const path = new URL(req.url).pathname;
        if (path === new URL(resourceMetadataUrl).pathname) return Response.json(prm);
        if (path !== mcpUrl.pathname) return new Response('not found', { status: 404 });
        const auth = await gate(req);
        if (auth instanceof Response) return auth;
        verified.set(req, auth);
        return entry.fetch(req);
      },
    }),
  );
  mcp = { url: mcpUrl, server: mcpServer };
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  mcp?.server.closeAllConnections();
  mcp?.server.close();
  as?.server.closeAllConnections();
  as?.server.close();
});

/** What the person does in the browser: sign in at the provider, consent, land on the callback. */
function person(account: string, opened: string[], done: Promise<void>[]) {
  return async (url: string) => {
    opened.push(url);
    done.push(
      (async () => {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(url);
        await signInAtProvider(page, account);
        await Promise.all([
          page.waitForURL((u) => u.pathname === '/callback'),
          page.click('button[type=submit]'),
        ]);
        expect(await page.textContent('h1')).toBe('Signed in');
        await context.close();
      })(),
    );
  };
}

async function whoami(provider: TerminalAuthProvider): Promise<string> {
  const client = new Client({ name: 'auth-test', version: '1.0.0' });
  await connectSignedIn(client, provider);
  try {
    const result = (await client.callTool({ name: 'whoami', arguments: {} })) as {
      content: { type: string; text: string }[];
    };
    return result.content[0]?.text ?? '';
  } finally {
    await client.close();
  }
}

describe('signing in to a protected server', () => {
  it('registers, signs in through the browser and the loopback redirect, then calls a tool', async () => {
    const opened: string[] = [];
    const done: Promise<void>[] = [];
    const provider = await authProviderFor(mcp.url, {
      configDir,
      openUrl: person('alice', opened, done),
    });
    expect(await whoami(provider)).toBe('signed in as alice');
    await Promise.all(done);
    expect(opened).toHaveLength(1);
    expect(registrations).toBe(1);
    const auth = new URL(opened[0] as string);
    expect(auth.origin).toBe(as.issuer);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('resource')).toBe(mcp.url.href);
    expect(auth.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    // Saved privately: the directory 0700, the file 0600, with the registration and tokens.
    expect((await stat(provider.file)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(provider.file))).mode & 0o777).toBe(0o700);
    const saved = await readSignIn(provider.file);
    expect(saved?.client?.client_id).toBeTruthy();
    expect(saved?.tokens?.access_token).toBeTruthy();
    expect(saved?.tokens?.issuer).toBe(as.issuer);
  }, 60_000);

  it('a second connection reuses the saved token without a browser', async () => {
    const opened: string[] = [];
    const provider = await authProviderFor(mcp.url, {
      configDir,
      openUrl: person('bob', opened, []),
    });
    expect(await whoami(provider)).toBe('signed in as alice');
    expect(opened).toEqual([]);
  }, 30_000);

  it('an access token the server no longer accepts is refreshed, without a browser', async () => {
    const file = signInFile(configDir, mcp.url);
    const before = await readSignIn(file);
    expect(before?.tokens?.refresh_token).toBeTruthy();
    await (await as.provider.AccessToken.find(before?.tokens?.access_token as string))?.destroy();
    const opened: string[] = [];
    const provider = await authProviderFor(mcp.url, {
      configDir,
      openUrl: person('bob', opened, []),
    });
    expect(await whoami(provider)).toBe('signed in as alice');
    expect(opened).toEqual([]);
    expect((await readSignIn(file))?.tokens?.access_token).not.toBe(before?.tokens?.access_token);
  }, 30_000);

  it('a revoked token leads to a new sign-in, registered client kept', async () => {
    const file = signInFile(configDir, mcp.url);
    const before = await readSignIn(file);
    const token = await as.provider.AccessToken.find(before?.tokens?.access_token as string);
    await token?.destroy();
    const refresh = before?.tokens?.refresh_token;
    if (refresh !== undefined) await (await as.provider.RefreshToken.find(refresh))?.destroy();
    const opened: string[] = [];
    const done: Promise<void>[] = [];
    const provider = await authProviderFor(mcp.url, {
      configDir,
      openUrl: person('carol', opened, done),
    });
    expect(await whoami(provider)).toBe('signed in as carol');
    await Promise.all(done);
    expect(opened).toHaveLength(1);
    const after = await readSignIn(file);
    expect(after?.client?.client_id).toBe(before?.client?.client_id);
    expect(after?.tokens?.access_token).not.toBe(before?.tokens?.access_token);
  }, 60_000);

  it('with a client id registered beforehand: no registration, same sign-in', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'elicit-auth-')), 'elicit');
    const before = registrations;
    const done: Promise<void>[] = [];
    const provider = await authProviderFor(mcp.url, {
      configDir: dir,
      clientId: 'elicit-preregistered',
      openUrl: person('dave', [], done),
    });
    expect(await whoami(provider)).toBe('signed in as dave');
    await Promise.all(done);
    expect(registrations).toBe(before);
    expect((await readSignIn(provider.file))?.client?.client_id).toBe('elicit-preregistered');
  }, 60_000);

  it('a person who cancels at the provider: the connection fails with the reason, no tokens kept', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'elicit-auth-')), 'elicit');
    const done: Promise<void>[] = [];
    const provider = await authProviderFor(mcp.url, {
      configDir: dir,
      openUrl: async (url) => {
        done.push(
          (async () => {
            const context = await browser.newContext();
            const page = await context.newPage();
            await page.goto(url);
            await Promise.all([
              page.waitForURL((u) => u.pathname === '/callback'),
              page.click('text=[ Cancel ]'),
            ]);
            expect(await page.textContent('h1')).toBe('Sign-in did not complete');
            await context.close();
          })(),
        );
      },
    });
    const client = new Client({ name: 'auth-test', version: '1.0.0' });
    await expect(connectSignedIn(client, provider)).rejects.toMatchObject({
      code: 'access_denied',
    });
    await Promise.all(done);
    const saved = await readSignIn(provider.file);
    expect(saved?.client?.client_id).toBeTruthy();
    expect(saved?.tokens).toBeUndefined();
  }, 60_000);

  it('logout forgets the saved sign-in', async () => {
    const file = signInFile(configDir, mcp.url);
    expect(await readSignIn(file)).toBeDefined();
    expect(await forgetSignIn(mcp.url, { configDir })).toBe(true);
    expect(await readSignIn(file)).toBeUndefined();
    expect(await forgetSignIn(mcp.url, { configDir })).toBe(false);
  });

  it('elicit host signs in through the browser, then reuses the saved sign-in', async () => {
    const xdg = mkdtempSync(join(tmpdir(), 'elicit-xdg-'));
    // The "browser" elicit opens: a program that hands the URL to the test, which drives Chromium.
    const urls = join(xdg, 'opened.txt');
    const browserProgram = join(xdg, 'browser.sh');
    writeFileSync(browserProgram, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${urls}'\n`);
    chmodSync(browserProgram, 0o755);
    const run = () =>
      new Promise<{ code: number; out: string }>((resolve) => {
        execFile(
          process.execPath,
          ['src/cli/main.ts', 'host', mcp.url.href, '--call', 'whoami'],
          {
            encoding: 'utf8',
            timeout: 60_000,
            env: {
              ...process.env,
              XDG_CONFIG_HOME: xdg,
              ELICIT_BROWSER: browserProgram,
              NO_COLOR: '1',
            },
          },
          (error, stdout, stderr) =>
            resolve({ code: (error as { code?: number } | null)?.code ?? 0, out: stdout + stderr }),
        );
      });
    const first = run();
    const done: Promise<void>[] = [];
    for (let i = 0; i < 300 && !existsSync(urls); i++) await new Promise((r) => setTimeout(r, 100));
    const opened = readFileSync(urls, 'utf8').trim().split('\n');
    expect(opened).toHaveLength(1);
    await person('erin', [], done)(opened[0] as string);
    await Promise.all(done);
    const signedIn = await first;
    expect(signedIn.out).toContain('Sign in to');
    expect(signedIn.out).toContain('signed in as erin');
    expect(signedIn.code).toBe(0);
    const file = signInFile(join(xdg, 'elicit'), mcp.url);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    // The second run finds the saved tokens: no browser.
    const again = await run();
    expect(again.out).toContain('signed in as erin');
    expect(again.out).not.toContain('Sign in to');
    expect(readFileSync(urls, 'utf8').trim().split('\n')).toHaveLength(1);
  }, 90_000);

  it('elicit logout <url> deletes the file in $XDG_CONFIG_HOME/elicit', async () => {
    const xdg = mkdtempSync(join(tmpdir(), 'elicit-xdg-'));
    const file = signInFile(join(xdg, 'elicit'), mcp.url);
    await writeSignIn(file, { version: 1, server: mcp.url.href });
    const run = () =>
      execFileSync(process.execPath, ['src/cli/main.ts', 'logout', mcp.url.href], {
        encoding: 'utf8',
        env: { ...process.env, XDG_CONFIG_HOME: xdg, NO_COLOR: '1' },
      });
    expect(run()).toContain('Signed out of');
    expect(await readSignIn(file)).toBeUndefined();
    expect(run()).toContain('No saved sign-in');
  });
});

describe('the loopback redirect', () => {
  function get(port: number, path: string, host = `127.0.0.1:${port}`): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  }
  const options = { path: '/callback', port: 0, timeoutMs: 30_000, maxStrayRequests: 3 };

  it('settles only on the exact path, host and state', async () => {
    const lb = await startLoopback({ ...options, state: 'good-state', maxStrayRequests: 10 });
    let settled = false;
    void lb.result.then(() => {
      settled = true;
    });
    expect(await get(lb.port, '/callback?code=x&state=bad-state')).toBe(400);
    expect(await get(lb.port, '/callback?code=x')).toBe(400);
    expect(await get(lb.port, '/callback/?code=x&state=good-state')).toBe(400);
    expect(await get(lb.port, '/callback?code=x&state=good-state', 'evil.example:80')).toBe(400);
    expect(settled).toBe(false);
    const status = get(lb.port, '/callback?code=the-code&state=good-state&iss=x');
    expect(await status).toBe(200);
    expect((await lb.result).get('code')).toBe('the-code');
    // One hit: the listener is gone.
    await expect(get(lb.port, '/callback?code=again&state=good-state')).rejects.toThrow();
  });

  it('gives up after too many stray requests, and on its timeout', async () => {
    const lb = await startLoopback({ ...options, state: 's' });
    for (let i = 0; i < 4; i++) await get(lb.port, '/nope');
    await expect(lb.result).rejects.toMatchObject({ code: 'ELICIT_SIGNIN_STRAY_REQUESTS' });
    const slow = await startLoopback({ ...options, state: 's', timeoutMs: 1 });
    await expect(slow.result).rejects.toMatchObject({ code: 'ELICIT_SIGNIN_TIMEOUT' });
  });

  it('passes an error response through for the SDK to judge, with a page that echoes nothing', async () => {
    const lb = await startLoopback({ ...options, state: 's' });
    const body = await fetch(
      `http://127.0.0.1:${lb.port}/callback?state=s&error=access_denied&error_description=%3Cscript%3E`,
    ).then((r) => r.text());
    expect(body).not.toContain('script');
    expect(body).not.toContain('access_denied');
    expect((await lb.result).get('error')).toBe('access_denied');
  });
});

describe('the provider refuses', () => {
  it('to open an authorization page that is not https (or http on loopback)', async () => {
    const opened: string[] = [];
    const dir = join(mkdtempSync(join(tmpdir(), 'elicit-auth-')), 'elicit');
    const provider = await authProviderFor('https://mcp.example/mcp', {
      configDir: dir,
      openUrl: async (u) => {
        opened.push(u);
      },
    });
    const state = await provider.state();
    for (const bad of [
      `file:///etc/passwd?state=${state}`,
      `javascript:alert(1)//?state=${state}`,
      `http://as.example/authorize?state=${state}`,
    ])
      await expect(provider.redirectToAuthorization(new URL(bad))).rejects.toMatchObject({
        code: 'ELICIT_SIGNIN_UNSAFE_URL',
      });
    await expect(
      provider.redirectToAuthorization(new URL('https://as.example/authorize?state=other')),
    ).rejects.toMatchObject({ code: 'ELICIT_SIGNIN_STATE' });
    expect(opened).toEqual([]);
    provider.close();
  });

  it('to keep tokens in a directory that is a symlink', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'elicit-auth-')), 'elicit');
    await mkdir(dir, { recursive: true });
    symlinkSync(mkdtempSync(join(tmpdir(), 'elicit-elsewhere-')), join(dir, 'auth'));
    const file = signInFile(dir, 'https://mcp.example/mcp');
    await expect(writeSignIn(file, { version: 1, server: 'x' })).rejects.toMatchObject({
      code: 'ELICIT_SIGNIN_STORE_UNSAFE',
    });
  });

  it('a saved sign-in it cannot read, naming the file', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'elicit-auth-')), 'elicit');
    const file = signInFile(dir, 'https://mcp.example/mcp');
    await mkdir(dirname(file), { recursive: true });
    for (const text of [
      '{"not": "a sign-in"',
      '{"version": 1, "server": "x", "tokens": "abc"}',
      '{"version": 1, "server": "x", "client": {"client_id": 7}}',
    ]) {
      writeFileSync(file, text);
      await expect(
        authProviderFor('https://mcp.example/mcp', { configDir: dir }),
      ).rejects.toMatchObject({
        code: 'ELICIT_SIGNIN_STORE_CORRUPT',
        message: expect.stringContaining(file),
      });
    }
  });
});
