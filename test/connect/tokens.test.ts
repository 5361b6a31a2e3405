/**
 * Where provider tokens may go, with real parts: oidc-provider issues the calendar's tokens
 * through the connect pages in Chromium, then `Connection.fetch` is asked to send them around.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectApp, createConnectApp } from '../../src/connect/app.ts';
import { memoryBus } from '../../src/connect/completion.ts';
import { devLogin } from '../../src/connect/login.ts';
import {
  Provider,
  ProviderConfigError,
  TokenDestinationError,
  type Tokens,
} from '../../src/connect/oauth.ts';
import { Records } from '../../src/connect/records.ts';
import { createVault } from '../../src/connect/vault.ts';
import { generateKeySecret } from '../../src/server/seal.ts';
import { connection } from '../../src/server/url-mode.ts';
import { memoryStore } from '../../src/store/index.ts';
import { consentAtProvider, launchBrowser, passDevLogin } from '../support/browser.ts';
import { type Idp, startIdp } from '../support/idp.ts';

const HOUR = 60 * 60_000;
let idp: Idp;
let browser: Browser;
let server: Server;
let elsewhere: Server;
let elsewhereUrl = '';
const received: (string | undefined)[] = [];
let app: ConnectApp;
const store = memoryStore();
const records = new Records(store);
const vault = createVault(store, { keys: [{ id: 'v1', secret: generateKeySecret() }] });
const entry = { principal: 'local', provider: 'calendar' };

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Another origin on the same host: it records every Authorization header it is sent.
  elsewhere = createServer((req, res) => {
    received.push(req.headers.authorization);
    res.end('{}');
  });
  await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/collect`;
  idp = await startIdp([
    {
      client_id: 'calendar-app',
      client_secret: 'calendar-secret',
      redirect_uris: [`${base}/elicit/oauth/callback`],
    },
  ]);
  app = createConnectApp({
    baseUrl: base,
    store,
    records,
    vault,
    bus: memoryBus(),
    login: devLogin({ fixedPrincipal: 'local' }),
    vaultTtlMs: HOUR,
    providers: {
      calendar: {
        issuer: idp.issuer,
        clientId: 'calendar-app',
        clientSecret: 'calendar-secret',
        scope: 'openid offline_access calendar.read',
        allowInsecure: true,
      },
    },
  });
  server.on(
    'request',
    getRequestListener((req, env) => app.fetch(req, env)),
  );
  browser = await launchBrowser();
  // Connect the calendar the way a person does.
  const record = await records.create({
    principal: 'local',
    clientId: undefined,
    purpose: 'connect',
    subject: 'calendar',
    label: 'Calendar',
    description: undefined,
    origin: undefined,
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(app.link(record.id));
  await passDevLogin(page);
  await consentAtProvider(page, 'tess');
  await page.waitForSelector('text=calendar is connected');
  await context.close();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
  elsewhere?.close();
  await idp?.close();
});

describe('Connection.fetch', () => {
  it("sends the token to the provider's API origin", async () => {
    const res = await connection({ app }, 'local', 'calendar').fetch(idp.api);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ owner: 'tess' });
  });

  it('refuses any other URL with a named error, and sends nothing there', async () => {
    const conn = connection({ app }, 'local', 'calendar');
    const outcomes = new Map<string, unknown>();
    for (const url of [
      elsewhereUrl,
      'https://evil.example/',
      idp.api.replace('127.0.0.1', 'localhost'),
      idp.api.replace('http://', 'http://user:pass@'),
      '/calendar',
    ]) {
      outcomes.set(
        url,
        await conn.fetch(url).then(
          (res) => res.status,
          (error: unknown) => error,
        ),
      );
    }
    // The other origin never saw a request, let alone the token.
    expect(received).toEqual([]);
    for (const [url, refused] of outcomes) {
      expect(refused, url).toBeInstanceOf(TokenDestinationError);
      expect((refused as TokenDestinationError).code).toBe('ELICIT_TOKEN_DESTINATION');
      expect((refused as Error).message).toContain('apiOrigins');
    }
  });

  it('a refreshed token keeps the configured vault lifetime', async () => {
    const tokens = (await vault.get<never>(entry)) as Tokens | undefined;
    expect(tokens?.refresh_token).toBeDefined();
    // The access token has run out: the next call refreshes it first.
    await vault.put(entry, { ...tokens, expires_at: Date.now() - 1 } as never, HOUR);
    const res = await connection({ app }, 'local', 'calendar').fetch(idp.api);
    expect(res.status).toBe(200);
    const fresh = (await vault.get<never>(entry)) as Tokens | undefined;
    expect(fresh?.access_token).not.toBe(tokens?.access_token);
    const key = `vault:${Buffer.from('local').toString('base64url')}:${Buffer.from('calendar').toString('base64url')}`;
    const stored = await store.get(key);
    expect(stored?.expiresAt).toBeLessThanOrEqual(Date.now() + HOUR);
  });
});

describe('apiOrigins', () => {
  it('declared origins replace the default; anything but a bare https origin is refused', () => {
    const p = new Provider('mail', {
      issuer: 'https://accounts.example.com',
      clientId: 'c',
      scope: 'mail',
      apiOrigins: ['https://api.example.com', 'https://upload.example.com/'],
    });
    expect([...p.apiOrigins]).toEqual(['https://api.example.com', 'https://upload.example.com']);
    expect(p.destination('https://api.example.com/v1/messages?q=1').href).toBe(
      'https://api.example.com/v1/messages?q=1',
    );
    expect(() => p.destination('https://accounts.example.com/userinfo')).toThrow(
      TokenDestinationError,
    );
    for (const bad of [
      'http://api.example.com',
      'https://api.example.com/v1',
      'https://u:p@api.example.com',
      'api.example.com',
    ]) {
      const make = () =>
        new Provider('mail', {
          issuer: 'https://a.example',
          clientId: 'c',
          scope: 's',
          apiOrigins: [bad],
        });
      expect(make, bad).toThrow(ProviderConfigError);
      expect(make, bad).toThrow(/apiOrigins entry/);
    }
  });
});
