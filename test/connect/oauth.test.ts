/**
 * The connect pages with real parts: oidc-provider as the third-party authorization server,
 * Chromium as the browser. Covers the full connect flow and the phishing and OAuth threats.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectApp, ConnectEvent } from '../../src/connect/index.ts';
import { devLogin } from '../../src/connect/login.ts';
import type { UrlRecords } from '../../src/connect/records.ts';
import type { Vault } from '../../src/connect/vault.ts';
import { vaultEntryName } from '../../src/connect/vault.ts';
import { tokenPrincipal } from '../../src/kernel/keys.ts';
import { memoryStore } from '../../src/store/index.ts';
import { consentAtProvider, launchBrowser, signInAtProvider } from '../support/browser.ts';
import { holdingListener } from '../support/held-callback.ts';
import type { Idp } from '../support/idp.ts';
import {
  type ConnectStack,
  connectStack,
  idpLogin,
  listenerOf,
  loginClients,
  newRecord,
} from '../support/kit.ts';

let stack: ConnectStack;
let idp: Idp;
let base = '';
let records: UrlRecords;
let vault: Vault;
let browser: Browser;
let connect: ConnectApp;
const events: ConnectEvent[] = [];
let callbacks: ReturnType<typeof holdingListener>;
const completed: string[] = [];

beforeAll(async () => {
  stack = await connectStack();
  ({ idp, base, records, vault } = stack);
  stack.bus.subscribe((e) => void completed.push(e.id));
  connect = stack.pages({ login: devLogin(), log: (e) => void events.push(e) });
  // The provider's redirect back can be captured instead of processed, so tests can replay it
  // altered (callbackUrl).
  callbacks = holdingListener('/elicit/oauth/callback', (req, env) => connect.fetch(req, env));
  stack.route(callbacks.listener);
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function signIn(page: Page, user: string) {
  await page.fill('#user', user);
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith('/elicit/login')),
    page.click('button[type=submit]'),
  ]);
}

describe('connect flow', () => {
  it('login first, consent at the provider, callback, tokens in the vault, completion', async () => {
    const record = await newRecord(
      records,
      tokenPrincipal('dev', 'alice'),
      'connect',
      'calendar',
      'Calendar',
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(connect.link(record.id));
    expect(page.url()).toContain('/elicit/login');
    await signIn(page, 'alice');
    await consentAtProvider(page, 'alice-at-calendar');
    await page.waitForSelector('text=calendar is connected');
    expect(await page.textContent('body')).toContain('You can close this tab');
    const tokens = await vault.get<{ access_token: string; refresh_token?: string }>({
      principal: tokenPrincipal('dev', 'alice'),
      provider: vaultEntryName('connect', 'calendar'),
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
    const record = await newRecord(
      records,
      tokenPrincipal('dev', 'carol'),
      'secret',
      'api-key',
      'API key',
    );
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
    const record = await newRecord(
      records,
      tokenPrincipal('dev', 'alice'),
      'connect',
      'calendar',
      'Calendar',
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => void requests.push(r.url()));
    await page.goto(connect.link(record.id));
    await signIn(page, 'bob');
    expect(await page.textContent('h1')).toBe('This link is not available');
    expect(requests.some((u) => u.startsWith(idp.issuer))).toBe(false);
    expect(
      await vault.get({
        principal: tokenPrincipal('dev', 'bob'),
        provider: vaultEntryName('connect', 'calendar'),
      }),
    ).toBeUndefined();
    expect((await records.get(record.id))?.status).toBe('pending');
    expect(events).toContainEqual({
      type: 'principal_mismatch',
      id: record.id,
      record: tokenPrincipal('dev', 'alice'),
      browser: tokenPrincipal('dev', 'bob'),
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

describe('OAuth threats', () => {
  /** Runs the flow up to the provider's redirect back, and returns the callback URL unvisited. */
  async function callbackUrl(
    user: string,
  ): Promise<{ url: URL; page: Page; close: () => Promise<void> }> {
    const record = await newRecord(
      records,
      tokenPrincipal('dev', user),
      'connect',
      'calendar',
      'Calendar',
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    const captured = callbacks.next();
    await page.goto(connect.link(record.id));
    await signIn(page, user);
    await consentAtProvider(page, `${user}-account`);
    const url = await captured;
    return { url, page, close: () => context.close() };
  }
  const bodyOf = async (page: Page, url: string) => {
    await page.goto(url);
    return (await page.textContent('body')) ?? '';
  };

  it('missing, mismatched and reused state are refused', async () => {
    const { url, page, close } = await callbackUrl('dana');
    const noState = new URL(url);
    noState.searchParams.delete('state');
    expect(await bodyOf(page, noState.href)).toContain('not expected here');
    const otherState = new URL(url);
    otherState.searchParams.set('state', 'x'.repeat(43));
    expect(await bodyOf(page, otherState.href)).toContain('not expected here');
    expect(await bodyOf(page, url.href)).toContain('calendar is connected');
    expect(await bodyOf(page, url.href)).toContain('not expected here'); // reused
    await close();
  }, 60_000);

  it('a wrong or missing iss is refused when the server advertises it', async () => {
    for (const tweak of [
      (u: URL) => u.searchParams.delete('iss'),
      (u: URL) => u.searchParams.set('iss', 'https://evil.example'),
    ]) {
      const { url, page, close } = await callbackUrl('erin');
      expect(url.searchParams.get('iss')).toBe(idp.issuer);
      tweak(url);
      expect(await bodyOf(page, url.href)).toContain('The sign-in response was refused');
      await close();
    }
  }, 60_000);

  it('a code from another transaction (injected) is refused by PKCE', async () => {
    const a = await callbackUrl('fay');
    const b = await callbackUrl('fay');
    // Fay's browser B receives A's code with B's own state.
    const injected = new URL(b.url);
    injected.searchParams.set('code', a.url.searchParams.get('code') as string);
    expect(await bodyOf(b.page, injected.href)).toContain('could not be exchanged');
    await a.close();
    await b.close();
  }, 60_000);

  it('a callback from another browser is refused', async () => {
    const { url, close } = await callbackUrl('gil');
    const other = await browser.newContext();
    const page = await other.newPage();
    expect(await bodyOf(page, url.href)).toContain('started in another browser');
    await other.close();
    await close();
  }, 60_000);

  it('the redirect URI is exact: variants are rejected by the provider', async () => {
    const provider = connect.providers.get('calendar');
    const good = await provider?.authorizationUrl(
      connect.redirectUri,
      'state-0123456789012345678901234567890123',
      'v'.repeat(43),
    );
    for (const variant of [
      `${connect.redirectUri}/x`,
      `${connect.redirectUri}?next=https://evil.example`,
      connect.redirectUri.replace('127.0.0.1', 'localhost'),
    ]) {
      const url = new URL(good as URL);
      url.searchParams.set('redirect_uri', variant);
      const res = await fetch(url, { redirect: 'manual' });
      expect(
        res.status === 400 ||
          (res.headers.get('location') ?? '').startsWith(connect.redirectUri) === false,
      ).toBe(true);
      expect(res.headers.get('location') ?? '').not.toContain('evil.example');
    }
  });

  it('pages cannot be framed, and a cross-site POST to the secret page is refused', async () => {
    const record = await newRecord(
      records,
      tokenPrincipal('dev', 'hal'),
      'secret',
      'token',
      'Token',
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(connect.link(record.id));
    await signIn(page, 'hal');
    expect(await page.textContent('h1')).toBe('Token');
    const csrf = await page.getAttribute('input[name=csrf]', 'value');
    // Another site's page tries to frame the secret page and to post to it.
    await page.route('http://evil.test/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<iframe id="f" src="${connect.link(record.id)}"></iframe><form id="x" method="post" action="${connect.link(record.id)}/secret"><input name="secret" value="stolen"><input name="csrf" value="${csrf}"></form>`,
      }),
    );
    await page.goto('http://evil.test/');
    const frame = page.frames().find((f) => f.url().includes('/elicit/'));
    expect(frame === undefined || (await frame.content()).includes('Token') === false).toBe(true);
    await Promise.all([
      page.waitForLoadState(),
      page.evaluate(() => (document.getElementById('x') as HTMLFormElement).submit()),
    ]);
    await page.waitForLoadState('domcontentloaded');
    // SameSite=Lax keeps the session cookie off the cross-site POST: it lands on the sign-in page.
    expect(await page.textContent('body')).not.toContain('is saved');
    // With the cookie replayed by hand, the CSRF token and the Origin/Fetch-Metadata checks still refuse it.
    const cookies = await context.cookies(base);
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const forged = await fetch(`${connect.link(record.id)}/secret`, {
      method: 'POST',
      headers: {
        cookie,
        origin: 'http://evil.test',
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ secret: 'stolen', csrf: csrf ?? '' }),
    });
    expect(forged.status).toBe(403);
    const noToken = await fetch(`${connect.link(record.id)}/secret`, {
      method: 'POST',
      headers: {
        cookie,
        origin: base,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ secret: 'stolen', csrf: 'wrong' }),
    });
    expect(noToken.status).toBe(403);
    expect(
      await vault.get({
        principal: tokenPrincipal('dev', 'hal'),
        provider: vaultEntryName('secret', 'token'),
      }),
    ).toBeUndefined();
    expect(events.some((e) => e.type === 'csrf_refused' && e.id === record.id)).toBe(true);
    // A GET never changes anything.
    expect((await fetch(`${connect.link(record.id)}/secret`, { headers: { cookie } })).status).toBe(
      404,
    );
    await context.close();
  }, 60_000);
});

describe('login and cookies', () => {
  it('oidcLogin signs the browser in with the identity provider; the principal is issuer and subject, joined injectively', async () => {
    const { Sessions } = await import('../../src/connect/sessions.ts');
    const login = await connectStack({
      idpClients: loginClients,
    });
    const loginBase = login.base;
    const loginIdp = login.idp;
    const loginRecords = login.records;
    const app = login.pages({
      login: idpLogin(loginIdp),
      providers: {},
    });
    login.route(listenerOf(app.fetch));
    const record = await newRecord(
      loginRecords,
      tokenPrincipal(loginIdp.issuer, 'ivy'),
      'secret',
      'k',
      'K',
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(app.link(record.id));
    await signInAtProvider(page, 'ivy');
    await page.click('button[type=submit]');
    await page.waitForSelector('#secret');
    expect(await page.textContent('h1')).toBe('K');
    // Cookies are per host, not per port: pick ours among the identity provider's.
    const cookie = (await context.cookies(loginBase)).find((c) => c.name === 'elicit-dev-session');
    const session = await new Sessions(login.store, new URL(loginBase)).current(
      `${cookie?.name}=${cookie?.value}`,
    );
    expect(session?.principal).toBe(tokenPrincipal(loginIdp.issuer, 'ivy'));
    await context.close();
    await login.close();
  }, 60_000);

  it('uses a __Host- cookie, Secure and HttpOnly, on https', async () => {
    const { Sessions } = await import('../../src/connect/sessions.ts');
    const { cookie } = await new Sessions(memoryStore(), new URL('https://mcp.example.com')).create(
      'p',
    );
    expect(cookie).toMatch(
      /^__Host-elicit-session=[A-Za-z0-9_-]{22}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/,
    );
    expect(() =>
      stack.pages({ baseUrl: 'http://mcp.example.com', login: devLogin(), providers: {} }),
    ).toThrow(
      expect.objectContaining({
        code: 'ELICIT_CONNECT_INSECURE',
        message: expect.stringMatching(/http:\/\/mcp.example.com is neither https nor loopback/),
      }),
    );
  });
});
