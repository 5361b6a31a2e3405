/**
 * URL asks through the inbox fallback: a plain SDK client that declares no elicitation calls a
 * tool using ask.secret (or ask.url); with `createServer({ connect, inbox })` the page waits on
 * the connect pages' inbox, shown by <elicit-url-consent> with its elicit/url analysis. Chromium
 * signs in, opens it there, types the secret on the page it opened, and the call completes: held
 * open on a 2025 session, ended with the link and completed by the same call again at 2026-07-28,
 * a task waiting for the page and then the record with the tasks extension.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpEntry } from '../../src/server/index.ts';
import { launchBrowser, passDevLogin } from '../support/browser.ts';
import {
  type ConnectPages,
  connectPages,
  clientWithoutElicitation as connectWithout,
  serverWithInbox,
  waitingQuestions,
} from '../support/inbox.ts';
import { MODERN_META } from '../support/kit.ts';
import { resultText, rpc, TASKS, until } from '../support/tasks.ts';

let pages: ConnectPages;
let base: string;
let browser: Browser;
const waiting = waitingQuestions();
const waitingNow = waiting.seen;
const questionWaits = waiting.nth;

beforeAll(async () => {
  pages = await connectPages();
  base = pages.base;
  const app = serverWithInbox(pages, 'keys', { onWaiting: waiting.onWaiting })
    .tool('set_api_key', {}, async (_args, ask) => {
      const s = await ask.secret('weather_api_key', { label: 'Weather API key', fresh: true });
      return s.action === 'accept' ? `Key saved (${s.value.length} characters).` : s.action;
    })
    .tool('set_api_key_later', { task: 'optional' }, async (_args, ask) => {
      const s = await ask.secret('later_key', { label: 'Later key', fresh: true });
      return s.action === 'accept' ? `Key saved (${s.value.length} characters).` : s.action;
    })
    .tool('open_docs', {}, async (_args, ask) => {
      const r = await ask.url('docs', { message: 'Read the terms', url: 'https://example.com/t' });
      return `docs: ${r.action}`;
    });
  pages.mount('/mcp', httpEntry(app));
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await pages?.close();
});

const clientWithoutElicitation = (era: 'legacy' | 'modern'): Promise<Client> =>
  connectWithout(new URL('/mcp', base), era);

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

/**
 * Chromium signs in on the inbox, sees the page with its analysis, opens it, and (`secret`)
 * types the secret on the page that opened.
 */
async function openInBrowser(url: string, secret?: string): Promise<BrowserContext> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await passDevLogin(page);
  const consent = 'section:last-of-type >> elicit-url-consent';
  await page.waitForSelector(`${consent} >> [part=open]`);
  // The analysis is shown: the page's site, and the plain-http note for this test server.
  const shown = await page.$eval(consent, (el) => (el.shadowRoot ?? el).textContent ?? '');
  const host = new URL(secret === undefined ? 'https://example.com' : base).host;
  expect(shown).toContain(host);
  if (secret !== undefined) expect(shown).toContain('not encrypted on the way (http)');
  const opened = context.waitForEvent('page');
  // The open button is armed a moment after it is shown (clicks meant for what was there before).
  await page.waitForTimeout(600);
  await page.click(`${consent} >> [part=open]`);
  const tab: Page = await opened;
  await page.waitForSelector('text=Your answer was received.');
  if (secret !== undefined) {
    await tab.waitForLoadState();
    await passDevLogin(tab);
    await tab.fill('#secret', secret);
    await tab.click('form[action$="/secret"] button[type=submit]');
    await tab.waitForSelector('text=You can close this tab');
  }
  return context;
}

describe('createServer({ inbox }): URL asks a client cannot receive wait on the connect pages', () => {
  it('2025 session: ask.secret is held; opened from the inbox and completed, the call completes', async () => {
    waitingNow.length = 0;
    const client = await clientWithoutElicitation('legacy');
    const call = client.callTool({ name: 'set_api_key', arguments: {} });
    const q = await questionWaits(1);
    expect(q).toMatchObject({ principal: 'local', tool: 'set_api_key' });
    const context = await openInBrowser(q.url, 'wx-key-0123456789');
    expect(textOf(await call)).toBe('Key saved (17 characters).');
    await context.close();
    await client.close();
  }, 90_000);

  it('2026-07-28: the call ends with the link; completed on the page, the same call again completes', async () => {
    waitingNow.length = 0;
    const client = await clientWithoutElicitation('modern');
    const first = await client.callTool({ name: 'set_api_key', arguments: {} });
    expect(first.isError).not.toBe(true);
    const meta = first._meta?.['elicit/inbox'] as { url: string; ids: string[] };
    expect(meta.url).toBe(`${base}/elicit/inbox`);
    expect(meta.ids).toHaveLength(1);
    // Asked again before opening: the same question, not a second one.
    await client.callTool({ name: 'set_api_key', arguments: {} });
    expect(waitingNow).toHaveLength(1);
    const context = await openInBrowser(meta.url, 'wx-key-abcdef');
    const again = await client.callTool({ name: 'set_api_key', arguments: {} });
    expect(textOf(again)).toBe('Key saved (13 characters).');
    await context.close();
    await client.close();
  }, 90_000);

  it('2026-07-28 with the tasks extension: the task waits for the page, then for the record', async () => {
    waitingNow.length = 0;
    const mcp = new URL('/mcp', base);
    const meta = {
      ...MODERN_META,
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
    };
    const made = await rpc(
      mcp,
      'tools/call',
      { name: 'set_api_key_later', arguments: {} },
      { meta },
    );
    const taskId = String(made.result?.taskId);
    expect(made.result?.resultType).toBe('task');
    const q = await questionWaits(1);
    await until(mcp, taskId, 'working');
    const context = await openInBrowser(q.url, 'later-key-0123');
    const done = await until(mcp, taskId, 'completed');
    expect(resultText(done)).toBe('Key saved (14 characters).');
    await context.close();
  }, 90_000);

  it('2026-07-28: declined in the inbox, the same call again gets the decline; the next one asks anew', async () => {
    waitingNow.length = 0;
    const client = await clientWithoutElicitation('modern');
    const args = { attempt: 'decline' };
    const first = await client.callTool({ name: 'set_api_key', arguments: args });
    expect(first._meta?.['elicit/inbox']).toBeDefined();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/elicit/inbox`);
    await passDevLogin(page);
    const consent = 'section:last-of-type >> elicit-url-consent';
    await page.waitForSelector(`${consent} >> [part=decline]`);
    await page.waitForTimeout(600);
    await page.click(`${consent} >> [part=decline]`);
    await page.waitForSelector('text=You declined: the server was told.');
    expect(textOf(await client.callTool({ name: 'set_api_key', arguments: args }))).toBe('decline');
    // The declined question was used by that call: the next call puts a new one in the inbox.
    const next = await client.callTool({ name: 'set_api_key', arguments: args });
    expect(next._meta?.['elicit/inbox']).toBeDefined();
    expect(waitingNow).toHaveLength(2);
    await context.close();
    await client.close();
  }, 90_000);

  it('ask.url on both eras: opened in the inbox, the ask is accepted', async () => {
    waitingNow.length = 0;
    const legacy = await clientWithoutElicitation('legacy');
    const held = legacy.callTool({ name: 'open_docs', arguments: {} });
    const q = await questionWaits(1);
    const one = await openInBrowser(q.url);
    expect(textOf(await held)).toBe('docs: accept');
    await one.close();
    await legacy.close();

    const modern = await clientWithoutElicitation('modern');
    const first = await modern.callTool({ name: 'open_docs', arguments: {} });
    expect(first._meta?.['elicit/inbox']).toBeDefined();
    const two = await openInBrowser(`${base}/elicit/inbox`);
    expect(textOf(await modern.callTool({ name: 'open_docs', arguments: {} }))).toBe(
      'docs: accept',
    );
    await two.close();
    await modern.close();
  }, 90_000);
});
