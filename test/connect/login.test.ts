/**
 * Sign-in to the connect pages with real parts: oidc-provider as the server's identity provider,
 * Chromium as the browsers of a victim and of an attacker. A sign-in is bound to the browser that
 * started it, a signed-in browser is never switched to another identity silently, and every page
 * says who is signed in.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectApp, ConnectEvent } from '../../src/connect/index.ts';
import type { UrlRecords } from '../../src/connect/records.ts';
import type { Vault } from '../../src/connect/vault.ts';
import { vaultEntryName } from '../../src/connect/vault.ts';
import { tokenPrincipal } from '../../src/kernel/keys.ts';
import { launchBrowser, signInAtProvider } from '../support/browser.ts';
import { holdingListener } from '../support/held-callback.ts';
import type { Idp } from '../support/idp.ts';
import {
  type ConnectStack,
  connectStack,
  idpLogin,
  loginClients,
  newRecord,
} from '../support/kit.ts';

let stack: ConnectStack;
let idp: Idp;
let base = '';
let records: UrlRecords;
let vault: Vault;
let browser: Browser;
let app: ConnectApp;
const events: ConnectEvent[] = [];
let callbacks: ReturnType<typeof holdingListener>;

beforeAll(async () => {
  stack = await connectStack({
    idpClients: loginClients,
  });
  ({ idp, base, records, vault } = stack);
  app = stack.pages({
    login: idpLogin(idp),
    log: (e) => void events.push(e),
    providers: {},
  });
  // The identity provider's redirect back can be captured instead of served (heldCallback).
  callbacks = holdingListener('/elicit/login/callback', (req, env) => app.fetch(req, env));
  stack.route(callbacks.listener);
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const secretRecord = (user: string) =>
  newRecord(records, tokenPrincipal(idp.issuer, user), 'secret', 'api-key', 'API key');

/** Signs in at the identity provider from a connect link, and returns the callback unvisited. */
async function heldCallback(page: Page, link: string, account: string): Promise<string> {
  const captured = callbacks.next();
  await page.goto(link);
  await signInAtProvider(page, account);
  await page.click('button[type=submit]');
  return (await captured).href;
}

/** Follows the identity provider's pages (consent if asked) until `selector` shows on ours. */
async function arrive(page: Page, selector: string): Promise<void> {
  for (let step = 0; step < 5; step++) {
    await page.waitForSelector(`${selector}, button[type=submit]`).catch(async (error) => {
      throw new Error(`${page.url()}: ${await page.textContent('body')}`, { cause: error });
    });
    if ((await page.$(selector)) !== null) return;
    const at = page.url();
    await Promise.all([page.waitForURL((u) => u.href !== at), page.click('button[type=submit]')]);
  }
  throw new Error(`never reached ${selector}: ${page.url()}`);
}

const sessionCookie = async (context: BrowserContext) =>
  (await context.cookies(base)).find((c) => c.name === 'elicit-dev-session');

describe('login CSRF', () => {
  it("an attacker's callback link signs no one in elsewhere, and the victim's typing goes nowhere", async () => {
    const attackerRecord = await secretRecord('mallory');
    const attacker = await browser.newContext();
    const link = await heldCallback(
      await attacker.newPage(),
      app.link(attackerRecord.id),
      'mallory',
    );

    const victim = await browser.newContext();
    const page = await victim.newPage();
    const response = await page.goto(link);
    expect(response?.status()).toBe(403);
    const body = (await page.textContent('body')) ?? '';
    expect(body).toContain('started in another browser');
    expect(body).toContain('Not signed in.');
    expect(await sessionCookie(victim)).toBeUndefined();
    // The attacker's secret page is not reachable from the victim's browser: it asks for a sign-in.
    await page.route(
      (u) => u.origin === idp.issuer,
      (route) => route.abort(),
    );
    await page.goto(app.link(attackerRecord.id)).catch(() => {});
    expect(await page.$('#secret')).toBeNull();
    expect(events).toContainEqual({ type: 'login_refused', reason: 'other_browser' });
    expect(
      await vault.get({
        principal: tokenPrincipal(idp.issuer, 'mallory'),
        provider: vaultEntryName('secret', 'api-key'),
      }),
    ).toBeUndefined();
    await attacker.close();
    await victim.close();
  }, 60_000);

  it('the browser that started the sign-in completes it, and every page says who is signed in', async () => {
    const record = await secretRecord('ivy');
    const context = await browser.newContext();
    const page = await context.newPage();
    const link = await heldCallback(page, app.link(record.id), 'ivy');
    await page.goto(link);
    await page.waitForSelector('#secret');
    expect(await page.textContent('.who')).toContain('Signed in as ivy');
    // The login cookie is spent with the transaction.
    expect((await context.cookies(base)).some((c) => c.name === 'elicit-dev-login')).toBe(false);
    await context.close();
  }, 60_000);
});

describe('one identity per browser', () => {
  it('a signed-in browser coming back as someone else is asked to sign out first', async () => {
    const mine = await secretRecord('vic');
    const theirs = await secretRecord('other');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(app.link(mine.id));
    await signInAtProvider(page, 'vic');
    await arrive(page, '#secret');
    const before = await sessionCookie(context);
    expect(before).toBeDefined();
    // Forget the identity provider's session only, and sign in there as someone else.
    await context.clearCookies();
    await context.addCookies([before as NonNullable<typeof before>]);
    await page.goto(app.link(theirs.id));
    // Still vic: the record of `other` is not vic's, so the page is the generic one.
    expect(await page.textContent('.who')).toContain('Signed in as vic');
    await page.goto(`${base}/elicit/login?next=${encodeURIComponent(`/elicit/${theirs.id}`)}`);
    await signInAtProvider(page, 'other');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=You are already signed in');
    const body = (await page.textContent('main')) ?? '';
    expect(body).toContain('signed in as vic, but this sign-in is for other');
    expect((await sessionCookie(context))?.value).toBe(before?.value);
    expect(events).toContainEqual({
      type: 'login_switch_refused',
      current: tokenPrincipal(idp.issuer, 'vic'),
      presented: tokenPrincipal(idp.issuer, 'other'),
    });
    // Confirming signs vic out and runs the sign-in again; only then is the browser `other`.
    await page.click('text=Sign out and sign in again');
    await page.waitForSelector('text=Signed out');
    expect(await page.textContent('.who')).toContain('Not signed in');
    await page.click('#sign-in');
    await arrive(page, '#secret');
    expect(await page.textContent('.who')).toContain('Signed in as other');
    expect((await sessionCookie(context))?.value).not.toBe(before?.value);
    await context.close();
  }, 90_000);
});
