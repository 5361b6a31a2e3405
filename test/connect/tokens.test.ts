/**
 * Where provider tokens may go, with real parts: oidc-provider issues the calendar's tokens
 * through the connect pages in Chromium, then `Connection.fetch` is asked to send them around.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectApp } from '../../src/connect/app.ts';
import {
  Provider,
  ProviderConfigError,
  TokenDestinationError,
  type Tokens,
} from '../../src/connect/oauth.ts';
import { vaultEntryName } from '../../src/connect/vault.ts';
import { connection } from '../../src/server/url-mode.ts';
import { consentAtProvider, launchBrowser, passDevLogin } from '../support/browser.ts';
import { type ConnectStack, connectStack, listenerOf, newRecord } from '../support/kit.ts';

const HOUR = 60 * 60_000;
let stack: ConnectStack;
let browser: Browser;
let elsewhere: Server;
let elsewhereUrl = '';
const received: (string | undefined)[] = [];
let app: ConnectApp;
/** The record through which tess connected her calendar. */
let tessRecord = '';
const entry = { principal: 'local', provider: vaultEntryName('connect', 'calendar') };

beforeAll(async () => {
  stack = await connectStack();
  // Another origin on the same host: it records every Authorization header it is sent.
  elsewhere = createServer((req, res) => {
    received.push(req.headers.authorization);
    res.end('{}');
  });
  await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/collect`;
  app = stack.pages({ vaultTtlMs: HOUR });
  stack.route(listenerOf(app.fetch));
  browser = await launchBrowser();
  // Connect the calendar the way a person does.
  const record = await newRecord(stack.records, 'local', 'connect', 'calendar', 'Calendar');
  tessRecord = record.id;
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
  elsewhere?.close();
  await stack?.close();
});

describe('Connection.fetch', () => {
  it("sends the token to the provider's API origin", async () => {
    const res = await connection({ app }, 'local', 'calendar').fetch(stack.idp.api);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ owner: 'tess' });
  });

  it('refuses any other URL with a named error, and sends nothing there', async () => {
    const conn = connection({ app }, 'local', 'calendar');
    const outcomes = new Map<string, unknown>();
    for (const url of [
      elsewhereUrl,
      'https://evil.example/',
      stack.idp.api.replace('127.0.0.1', 'localhost'),
      stack.idp.api.replace('http://', 'http://user:pass@'),
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
    const tokens = (await stack.vault.get<never>(entry)) as Tokens | undefined;
    expect(tokens?.refresh_token).toBeDefined();
    // The access token has run out: the next call refreshes it first.
    await stack.vault.put(entry, { ...tokens, expires_at: Date.now() - 1 } as never, HOUR);
    const res = await connection({ app }, 'local', 'calendar').fetch(stack.idp.api);
    expect(res.status).toBe(200);
    const fresh = (await stack.vault.get<never>(entry)) as Tokens | undefined;
    expect(fresh?.access_token).not.toBe(tokens?.access_token);
    const key = `vault:${Buffer.from('local').toString('base64url')}:${Buffer.from(entry.provider).toString('base64url')}`;
    const stored = await stack.store.get(key);
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

describe('a connection is bound to the record that made it', () => {
  it('two accounts connected by one principal: each record’s connection is its own account', async () => {
    // The same person connects a second account through a second link.
    const record = await newRecord(stack.records, 'local', 'connect', 'calendar', 'Calendar');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(app.link(record.id));
    await passDevLogin(page);
    await consentAtProvider(page, 'uma');
    await page.waitForSelector('text=calendar is connected');
    await context.close();
    const owner = async (record?: string) =>
      (await (await connection({ app }, 'local', 'calendar', record).fetch(stack.idp.api)).json())
        .owner;
    expect(await owner(tessRecord)).toBe('tess');
    expect(await owner(record.id)).toBe('uma');
    // The long-term connection is the last one made.
    expect(await owner()).toBe('uma');
  }, 60_000);
});
