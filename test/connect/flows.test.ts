/**
 * URL mode end to end with real parts: an elicit server whose tool calls ask.connect and
 * ask.secret, the connect pages, oidc-provider as the calendar's authorization server, Chromium
 * as the person's browser, and an SDK client attached with elicit/client — on both eras.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachElicitation, type Renderer, scriptedRenderer } from '../../src/client/index.ts';
import type { ConnectApp } from '../../src/connect/app.ts';
import type { Vault } from '../../src/connect/vault.ts';
import { vaultEntryName } from '../../src/connect/vault.ts';
import {
  createServer as createElicitServer,
  generateKeySecret,
  httpEntry,
  type McpHttpEntry,
} from '../../src/server/index.ts';
import { consentAtProvider, launchBrowser, passDevLogin } from '../support/browser.ts';
import type { Idp } from '../support/idp.ts';
import { type ConnectStack, connectStack, listenerOf } from '../support/kit.ts';

let stack: ConnectStack;
let idp: Idp;
let vault: Vault;
let browser: Browser;
let base = '';
const traffic: string[] = [];

function serverOn(legacyMode: 'in-call' | 'error') {
  const connect = stack.pages();
  const app = createElicitServer({
    name: 'calendar-server',
    version: '1',
    keyring: { keys: [{ id: 'k', secret: generateKeySecret() }] },
    connect: { app: connect, legacyMode, waitMs: 30_000 },
  })
    .tool('todays_meetings', { description: 'Reads your calendar' }, async (_a, ask) => {
      const c = await ask.connect('calendar', { label: 'your calendar' });
      if (c.action !== 'accept') return `Not connected (${c.action}).`;
      const res = await c.connection.fetch(idp.api);
      const body = (await res.json()) as { owner: string; events: string[] };
      return `${body.events.length} meetings for ${body.owner}: ${body.events.join(', ')}`;
    })
    .tool('set_api_key', { description: 'Stores an API key' }, async (_a, ask) => {
      const s = await ask.secret('weather_api_key', { label: 'Weather API key', fresh: true });
      return s.action === 'accept'
        ? `Key saved (${s.value.length} characters).`
        : `No key (${s.action}).`;
    });
  return { connect, entry: httpEntry(app) };
}

let current: { connect: ConnectApp; entry: McpHttpEntry };
beforeAll(async () => {
  stack = await connectStack();
  ({ idp, vault, base } = stack);
  const mcp = listenerOf((req) => current.entry.fetch(req));
  const pages = listenerOf((req, env) => current.connect.fetch(req, env));
  stack.route((req, res) => (req.url?.startsWith('/mcp') ? mcp(req, res) : pages(req, res)));
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** A renderer that does in the browser what the person would: sign in, consent, or type the secret. */
function browserRenderer(page: Page): Renderer {
  return {
    ...scriptedRenderer(),
    async url(request) {
      await page.goto(request.analysis.href as string);
      await passDevLogin(page);
      if (await page.$('#continue')) await consentAtProvider(page, 'alice');
      else {
        await page.fill('#secret', 'wx-key-0123456789');
        await page.click('form[action$="/secret"] button[type=submit]');
      }
      await page.waitForSelector('text=You can close this tab');
      return { action: 'opened' };
    },
  };
}

async function client(era: 'legacy' | 'modern', page: Page) {
  const c = new Client({ name: 'host', version: '1' });
  const elicit = attachElicitation(c, { renderer: browserRenderer(page) });
  c.setVersionNegotiation({ mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' });
  const tap = async (u: string | URL, init?: RequestInit) => {
    traffic.push(String(init?.body ?? ''));
    const res = await fetch(u, init);
    // Read the copy in the background: an SSE stream only ends when the call does.
    void res
      .clone()
      .text()
      .then((t) => traffic.push(t))
      .catch(() => {}); // streams aborted by close()
    return res;
  };
  await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: tap }));
  return { c, elicit };
}

const cases: ['legacy' | 'modern', 'in-call' | 'error'][] = [
  ['legacy', 'in-call'],
  ['legacy', 'error'],
  ['modern', 'in-call'],
];

describe.each(cases)('URL mode on %s (%s)', (era, mode) => {
  it('connect your calendar: consent at the provider, then the tool reads it with the stored token', async () => {
    current = serverOn(mode);
    await vault.delete({ principal: 'local', provider: vaultEntryName('connect', 'calendar') });
    const context = await browser.newContext();
    const page = await context.newPage();
    const { c, elicit } = await client(era, page);
    const r = await elicit.callTool(
      { name: 'todays_meetings', arguments: {} },
      { timeout: 60_000 },
    );
    expect((r.content as { text: string }[])[0]?.text).toBe(
      '3 meetings for alice: Standup 09:30, Lunch 12:00, Review 16:00',
    );
    // Second call: the token is stored, no browser step.
    const again = await elicit.callTool({ name: 'todays_meetings', arguments: {} });
    expect((again.content as { text: string }[])[0]?.text).toMatch(/^3 meetings for alice/);
    // An expired token is refreshed with the refresh token, without asking anyone.
    const entry = { principal: 'local', provider: vaultEntryName('connect', 'calendar') };
    const stale = (await vault.get<never>(entry)) as unknown as Record<string, unknown>;
    await vault.put(entry, { ...stale, expires_at: Date.now() - 1000 } as never, 60_000);
    const refreshed = await elicit.callTool({ name: 'todays_meetings', arguments: {} });
    expect((refreshed.content as { text: string }[])[0]?.text).toMatch(/^3 meetings for alice/);
    const fresh = (await vault.get<never>(entry)) as unknown as Record<string, unknown>;
    expect(fresh.access_token).not.toBe(stale.access_token);
    expect(fresh.expires_at as number).toBeGreaterThan(Date.now());
    await c.close();
    await context.close();
  }, 90_000);

  it('set an API key on the secure page; the assistant never sees it', async () => {
    current = serverOn(mode);
    const context = await browser.newContext();
    const page = await context.newPage();
    const { c, elicit } = await client(era, page);
    const r = await elicit.callTool({ name: 'set_api_key', arguments: {} }, { timeout: 60_000 });
    expect((r.content as { text: string }[])[0]?.text).toBe('Key saved (17 characters).');
    await c.close();
    await context.close();
  }, 90_000);
});

describe('no third-party secret crosses MCP', () => {
  it('no token or secret appears in any MCP message or requestState', async () => {
    const tokens = await vault.get<{ access_token: string; refresh_token: string }>({
      principal: 'local',
      provider: vaultEntryName('connect', 'calendar'),
    });
    expect(tokens?.access_token).toBeDefined();
    const all = traffic.join('\n');
    expect(all.length).toBeGreaterThan(1000);
    expect(all).not.toContain(tokens?.access_token as string);
    expect(all).not.toContain(tokens?.refresh_token as string);
    expect(all).not.toContain('wx-key-0123456789');
  });
});
