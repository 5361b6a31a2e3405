/**
 * The web inbox: a host that declares no elicitation (an SDK client, standing in for MCP
 * Inspector's CLI) calls a tool whose server asks; the question waits in the inbox, Chromium
 * opens the one-time link, answers with <elicit-form>, and the call completes with the answer.
 * The page's rules: the link works once, answers need the cookie, the CSRF token and the Origin.
 */
import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inbox } from '../../src/gateway/index.ts';
import { createServer } from '../../src/server/index.ts';
import { launchBrowser } from '../support/browser.ts';
import {
  clientWithoutElicitation,
  type GatewayInbox,
  gatewayInbox,
  withOrder,
} from '../support/inbox.ts';

let staged: GatewayInbox;
let inbox: Inbox;
let browser: Browser;

beforeAll(async () => {
  const app = withOrder(createServer({ name: 'asker', version: '1' })).tool(
    'pay',
    { description: 'sends the person to a page' },
    async (_args, ask) => {
      const r = await ask.url('pay', {
        message: 'Pay on the shop page',
        url: 'https://user:secret@shop.example.com/pay?order=7',
      });
      return r.action;
    },
  );
  staged = await gatewayInbox(app);
  inbox = staged.inbox;
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await staged?.close();
});

const hostWithoutElicitation = (era: 'legacy' | 'modern'): Promise<Client> =>
  clientWithoutElicitation(staged.front.url, era);

async function waiting(n: number): Promise<void> {
  for (let i = 0; i < 200 && inbox.size < n; i++) await new Promise((r) => setTimeout(r, 50));
  expect(inbox.size).toBe(n);
}

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

describe('the web inbox, a host without elicitation', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`${era}: the question waits in the inbox, Chromium answers it, the call completes`, async () => {
      const client = await hostWithoutElicitation(era);
      const call = client.callTool({ name: 'order', arguments: {} });
      await waiting(1);
      const page = await browser.newPage();
      await page.goto(await inbox.link());
      await page.waitForSelector('elicit-form >> input[name=dish]');
      expect(await page.textContent('h2')).toBe('asker · order');
      await page.fill('elicit-form >> input[name=dish]', 'soup');
      await page.fill('elicit-form >> input[name=count]', '2');
      await page.click('elicit-form >> [part=submit]');
      await page.click('elicit-form >> [part=submit]');
      expect(textOf(await call)).toBe('2 × soup');
      await page.close();
      await client.close();
    }, 60_000);
  }

  for (const [era, button, outcome] of [
    ['legacy', 'open', 'accept'],
    ['modern', 'open', 'accept'],
    ['modern', 'decline', 'decline'],
  ] as const) {
    it(`${era}: a URL page waits in the inbox with its analysis; ${button} gives ${outcome}`, async () => {
      const client = await hostWithoutElicitation(era);
      const call = client.callTool({ name: 'pay', arguments: {} });
      await waiting(1);
      const page = await browser.newPage();
      await page.goto(await inbox.link());
      await page.waitForSelector('elicit-url-consent >> [part=open]');
      expect(await page.textContent('h2')).toBe('asker · pay');
      // The analysis is the gateway's: credentials gone, the site shown.
      const shown = (await page.textContent('elicit-url-consent >> [part=url]')) ?? '';
      expect(shown).toContain('shop.example.com');
      expect(shown).not.toContain('secret');
      // The buttons are armed CONSENT_ARM_MS (500 ms) after the page is shown.
      await page.waitForTimeout(600);
      await page.click(`elicit-url-consent >> [part=${button}]`);
      expect(textOf(await call)).toBe(outcome);
      await page.close();
      await client.close();
    }, 60_000);
  }

  it('a link works once; without the session nothing is shown; an answer needs CSRF and Origin', async () => {
    const link = await inbox.link();
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(303);
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
    expect(first.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(403);
    expect((await fetch(new URL('/inbox/questions', inbox.url))).status).toBe(401);
    const page = await fetch(inbox.url, { headers: { cookie } });
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const csrf = /name="csrf" content="([^"]+)"/.exec(await page.text())?.[1] as string;
    const post = (headers: Record<string, string>) =>
      fetch(new URL('/inbox/answer', inbox.url), {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ id: 'x', action: 'decline' }),
      });
    expect((await post({ origin: inbox.url.origin })).status).toBe(403);
    expect((await post({ 'x-elicit-csrf': csrf, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ 'x-elicit-csrf': csrf, origin: inbox.url.origin })).status).toBe(404);
    // DNS rebinding: the page answers only under its own address.
    const rebound = await new Promise<number>((resolve, reject) => {
      request(inbox.url, { headers: { cookie, host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(rebound).toBe(421);
  });
});
