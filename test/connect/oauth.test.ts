/**
 * The connect pages with real parts: oidc-provider as the third-party authorization server,
 * Chromium as the browser. Covers the full connect flow and the phishing and OAuth threats.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectApp, type ConnectEvent, createConnectApp } from '../../src/connect/app.ts';
import { memoryBus } from '../../src/connect/completion.ts';
import { devLogin } from '../../src/connect/login.ts';
import { Records } from '../../src/connect/records.ts';
import { createVault } from '../../src/connect/vault.ts';
import { generateKeySecret } from '../../src/server/seal.ts';
import { memoryStore } from '../../src/store/index.ts';
import { launchBrowser } from '../support/browser.ts';
import { type Idp, startIdp } from '../support/idp.ts';

let idp: Idp;
let browser: Browser;
let server: Server;
let base = '';
let connect: ConnectApp;
const events: ConnectEvent[] = [];
const store = memoryStore();
const records = new Records(store);
const vault = createVault(store, { keys: [{ id: 'v1', secret: generateKeySecret() }] });
const bus = memoryBus();
const completed: string[] = [];
bus.subscribe((e) => void completed.push(e.id));

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  idp = await startIdp([
    {
      client_id: 'calendar-app',
      client_secret: 'calendar-secret',
      redirect_uris: [`${base}/elicit/oauth/callback`],
    },
  ]);
  connect = createConnectApp({
    baseUrl: base,
    store,
    records,
    vault,
    bus,
    login: devLogin(),
    log: (e) => void events.push(e),
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
  server.on('request', getRequestListener(connect.fetch));
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
  await idp?.close();
});

async function signIn(page: Page, user: string) {
  await page.fill('#user', user);
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith('/elicit/login')),
    page.click('button[type=submit]'),
  ]);
}

/** The provider's development login and consent pages. */
async function consentAtProvider(page: Page, account: string) {
  await page.click('#continue');
  await page.waitForSelector('input[name=login]');
  await page.fill('input[name=login]', account);
  await page.fill('input[name=password]', 'any');
  await page.click('button[type=submit]');
  await page.waitForSelector('button[type=submit]');
  await page.click('button[type=submit]');
}

describe('connect flow', () => {
  it('login first, consent at the provider, callback, tokens in the vault, completion', async () => {
    const record = await records.create({
      principal: 'dev|alice',
      clientId: undefined,
      purpose: 'connect',
      subject: 'calendar',
      label: 'Calendar',
      description: undefined,
      origin: undefined,
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(connect.link(record.id));
    expect(page.url()).toContain('/elicit/login');
    await signIn(page, 'alice');
    await consentAtProvider(page, 'alice-at-calendar');
    await page.waitForSelector('text=calendar is connected');
    expect(await page.textContent('body')).toContain('You can close this tab');
    const tokens = await vault.get<{ access_token: string; refresh_token?: string }>({
      principal: 'dev|alice',
      provider: 'calendar',
    });
    expect(tokens?.access_token.length).toBeGreaterThan(10);
    expect(tokens?.refresh_token).toBeDefined();
    expect((await records.get(record.id))?.status).toBe('complete');
    expect(completed).toContain(record.id);
    const api = await fetch(idp.api, {
      headers: { authorization: `Bearer ${tokens?.access_token}` },
    });
    expect(await api.json()).toMatchObject({ owner: 'alice-at-calendar' });
    // The link is single-use: opening it again shows the generic page.
    await page.goto(connect.link(record.id));
    expect(await page.textContent('h1')).toBe('This link is not available');
    await context.close();
  }, 60_000);

  it('every page forbids framing and third-party loads', async () => {
    const record = await records.create({
      principal: 'dev|carol',
      clientId: undefined,
      purpose: 'secret',
      subject: 'api-key',
      label: 'API key',
      description: undefined,
      origin: undefined,
    });
    const res = await fetch(connect.link(record.id), { redirect: 'manual' });
    expect(res.status).toBe(303);
    const login = await fetch(new URL(res.headers.get('location') as string, base));
    expect(login.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(login.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(login.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('phishing', () => {
  it("Alice's link opened by Bob is refused: nothing stored, no redirect to the provider", async () => {
    const record = await records.create({
      principal: 'dev|alice',
      clientId: undefined,
      purpose: 'connect',
      subject: 'calendar',
      label: 'Calendar',
      description: undefined,
      origin: undefined,
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => void requests.push(r.url()));
    await page.goto(connect.link(record.id));
    await signIn(page, 'bob');
    expect(await page.textContent('h1')).toBe('This link is not available');
    expect(requests.some((u) => u.startsWith(idp.issuer))).toBe(false);
    expect(await vault.get({ principal: 'dev|bob', provider: 'calendar' })).toBeUndefined();
    expect((await records.get(record.id))?.status).toBe('pending');
    expect(events).toContainEqual({
      type: 'principal_mismatch',
      id: record.id,
      record: 'dev|alice',
      browser: 'dev|bob',
    });
    await context.close();
  }, 60_000);
  it('unknown, guessed and expired ids get the same page', async () => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'not-an-id', '../../etc/passwd']) {
      const res = await fetch(`${base}/elicit/${encodeURIComponent(id)}`);
      expect(res.status === 404 || res.status === 429).toBe(true);
    }
  });
});
