/**
 * The two web inboxes as a person and an accessibility auditor meet them, in Chromium: the
 * gateway's inbox and the connect pages' inbox of `createServer({ connect, inbox })`, each with a
 * form question and a URL question waiting, in light and dark, at 1280×800 and 375×740. On each:
 * axe-core with the WCAG 2.2 AA rules finds nothing (empty, waiting and answered), the page never
 * scrolls sideways, every Tab stop shows a focus indicator of at least 3:1, and the page's CSP
 * blocks nothing. Then both
 * questions are answered with the keyboard alone (Tab, typing, Enter).
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectApp, createConnectStack, devLogin } from '../../src/connect/index.ts';
import { createGateway, type Gateway, Inbox } from '../../src/gateway/index.ts';
import { form, integer, text } from '../../src/schema/index.ts';
import {
  createServer,
  type ElicitServer,
  generateKeySecret,
  httpEntry,
  type Listening,
  listen,
  type McpHttpEntry,
} from '../../src/server/index.ts';
import { memoryStore } from '../../src/store/index.ts';
import { launchBrowser, passDevLogin } from '../support/browser.ts';
import { axeViolations, type FocusStop, focused, overflow, tabStops } from '../support/checks.ts';

const SCHEMES = ['light', 'dark'] as const;
const SIZES = [
  { name: 'wide', width: 1280, height: 800 },
  { name: 'narrow', width: 375, height: 740 },
] as const;
/** Where the URL question sends the person: answered here, so nothing leaves the machine. */
const TERMS = 'https://terms.example/read';

/** A form question (`order`) and a URL question (`terms`). */
function tools(app: ElicitServer): ElicitServer {
  return app
    .tool('order', { description: 'asks what to order' }, async (_args, ask) => {
      const r = await ask.form('what', form({ dish: text(), count: integer({ min: 1 }) }), {
        message: 'What would you like?',
      });
      return r.action === 'accept' ? `${r.content.count} × ${r.content.dish}` : r.action;
    })
    .tool('terms', { description: 'sends the person to a page' }, async (_args, ask) => {
      const r = await ask.url('terms', { message: 'Read the terms', url: TERMS });
      return r.action;
    });
}

let browser: Browser;
let context: BrowserContext;
const blocked: string[] = [];
// The gateway's inbox, in front of a server that asks.
let upstream: Listening;
let gateway: Gateway;
let front: Listening;
let inbox: Inbox;
// The connect pages' inbox of an elicit server.
let http: Server;
let base: string;
let stack: ConnectApp;
let entry: McpHttpEntry;

beforeAll(async () => {
  upstream = await listen(httpEntry(tools(createServer({ name: 'asker', version: '1' }))));
  inbox = await Inbox.start();
  gateway = await createGateway({
    transport: () => new StreamableHTTPClientTransport(upstream.url),
    inbox,
  });
  front = await gateway.listen();

  http = createHttpServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  stack = createConnectStack({
    baseUrl: base,
    store: memoryStore(),
    keyring: { keys: [{ id: 'k', secret: generateKeySecret() }] },
    login: devLogin({ fixedPrincipal: 'local' }),
    providers: {},
  });
  entry = httpEntry(
    tools(createServer({ name: 'shop', version: '1', connect: { app: stack }, inbox: {} })),
  );
  const mcp = getRequestListener((req) => entry.fetch(req));
  const web = getRequestListener((req) => stack.fetch(req));
  http.on('request', (req, res) =>
    (req.url ?? '/').startsWith('/mcp') ? mcp(req, res) : web(req, res),
  );

  browser = await launchBrowser();
  context = await browser.newContext();
  // The page the URL question opens, answered by the browser itself.
  await context.route(`${TERMS}**`, (r) =>
    r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Terms</title>' }),
  );
  // Every page runs under its own CSP: anything the CSP blocks is a failure of the screen.
  context.on('page', (page) =>
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text()))
        blocked.push(`${page.url()}: ${m.text()}`);
    }),
  );
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await front?.close();
  await gateway?.close();
  await inbox?.close();
  await upstream?.close();
  await entry?.close();
  http?.closeAllConnections();
  await new Promise<void>((r) => http?.close(() => r()));
});

/** A 2025 host that declares no elicitation: its calls are held while the questions wait. */
async function hostWithoutElicitation(url: URL): Promise<Client> {
  const client = new Client({ name: 'cli', version: '1' }, { capabilities: {} });
  client.setVersionNegotiation({ mode: 'legacy' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

interface Inboxes {
  readonly name: string;
  /** MCP endpoint the host calls. */
  readonly mcp: () => URL;
  /** The page's address (a fresh one-time link for the gateway). */
  readonly link: () => Promise<string>;
}

const INBOXES: readonly Inboxes[] = [
  { name: 'gateway inbox', mcp: () => front.url, link: () => inbox.link() },
  {
    name: 'connect pages inbox',
    mcp: () => new URL('/mcp', base),
    link: async () => `${base}/elicit/inbox`,
  },
];

/** Starts both calls, opens the inbox and waits until both questions are shown. */
async function withBothWaiting(
  which: Inboxes,
): Promise<{ page: Page; client: Client; order: Promise<unknown>; terms: Promise<unknown> }> {
  const client = await hostWithoutElicitation(which.mcp());
  const order = client.callTool({ name: 'order', arguments: {} });
  const terms = client.callTool({ name: 'terms', arguments: {} });
  const page = await context.newPage();
  await page.goto(await which.link());
  await passDevLogin(page);
  await page.waitForSelector('elicit-form >> input[name=dish]', { timeout: 20_000 });
  await page.waitForSelector('elicit-url-consent >> [part=open]', { timeout: 20_000 });
  // Past the consent's first moments, when it ignores input: the screen as a person uses it.
  await page.waitForTimeout(600);
  return { page, client, order, terms };
}

/** Per inbox, scheme and size: what axe found (printed at the end, so a run shows the tally). */
const tally: string[] = [];
afterAll(() => {
  if (tally.length > 0)
    console.log(`axe (WCAG 2.2 AA), violations per inbox:\n${tally.join('\n')}`);
});

const weak = (stops: FocusStop[]) =>
  stops.filter((f) => f.contrast < 3).map((f) => `${f.element}: ${f.contrast}:1 (${f.how})`);

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

/** Presses Tab until `want` holds for the focused element; false when it never does. */
async function tabTo(page: Page, want: (f: string) => boolean): Promise<boolean> {
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    if (want(await focused(page))) return true;
  }
  return false;
}

describe.each(INBOXES.map((i) => [i.name, i] as const))('%s', (_name, which) => {
  it('light and dark, wide and narrow: axe finds nothing, nothing scrolls sideways, focus is visible', async () => {
    blocked.length = 0;
    const problems: string[] = [];
    // Nothing waiting yet: the empty inbox is read first.
    const idle = await context.newPage();
    await idle.goto(await which.link());
    await passDevLogin(idle);
    await idle.waitForSelector('#empty');
    for (const scheme of SCHEMES) {
      await idle.emulateMedia({ colorScheme: scheme });
      const violations = await axeViolations(idle);
      tally.push(
        `  ${which.name} ${scheme} empty: ${violations.length === 0 ? 'none' : violations.map((v) => `${v.id} (${v.targets.length})`).join(', ')}`,
      );
      for (const v of violations)
        problems.push(`${scheme} empty: axe ${v.id} (${v.help}) at ${v.targets.join(' | ')}`);
    }
    await idle.close();
    const { page, client, order, terms } = await withBothWaiting(which);
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const size of SIZES) {
        await page.setViewportSize({ width: size.width, height: size.height });
        const where = `${scheme} ${size.name}`;
        const violations = await axeViolations(page);
        tally.push(
          `  ${which.name} ${where}: ${violations.length === 0 ? 'none' : violations.map((v) => `${v.id} (${v.targets.length})`).join(', ')}`,
        );
        for (const v of violations)
          problems.push(`${where}: axe ${v.id} (${v.help}) at ${v.targets.join(' | ')}`);
        const o = await overflow(page);
        if (o.excess > 0)
          problems.push(`${where}: ${o.excess}px wider than the screen (${o.widest})`);
        if (size.name === 'wide') {
          const stops = await tabStops(page);
          if (stops.length < 2) problems.push(`${where}: ${stops.length} Tab stops`);
          for (const w of weak(stops)) problems.push(`${where}: focus indicator ${w}`);
          tally.push(
            `  ${which.name} ${where}: ${stops.length} Tab stops, faintest focus indicator ${Math.min(...stops.map((f) => f.contrast))}:1`,
          );
        }
      }
    }
    problems.push(...blocked.splice(0));
    expect(problems).toEqual([]);
    // Answer both so the held calls end (by the mouse: the keyboard path is the next test).
    await page.click('elicit-url-consent >> [part=decline]');
    await page.fill('elicit-form >> input[name=dish]', 'x');
    await page.fill('elicit-form >> input[name=count]', '1');
    await page.click('elicit-form >> [part=submit]');
    await page.click('elicit-form >> [part=submit]');
    expect(textOf(await order)).toBe('1 × x');
    expect(textOf(await terms)).toBe('decline');
    // Answered: the notes that say so are read as well.
    await expect.poll(() => page.locator('p.done').count()).toBe(2);
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      const violations = await axeViolations(page);
      tally.push(
        `  ${which.name} ${scheme} answered: ${violations.length === 0 ? 'none' : violations.map((v) => `${v.id} (${v.targets.length})`).join(', ')}`,
      );
      for (const v of violations)
        problems.push(`${scheme} answered: axe ${v.id} (${v.help}) at ${v.targets.join(' | ')}`);
    }
    problems.push(...blocked.splice(0));
    expect(problems).toEqual([]);
    await page.close();
    await client.close();
  }, 90_000);

  it('the keyboard alone: answers the form (Tab, typing, Enter) and opens the URL page (Enter)', async () => {
    blocked.length = 0;
    const { page, client, order, terms } = await withBothWaiting(which);
    await page.evaluate(() => {
      document.body.tabIndex = -1;
      document.body.focus();
      document.body.removeAttribute('tabindex');
    });
    expect(await tabTo(page, (f) => f.includes('name=dish'))).toBe(true);
    await page.keyboard.type('soup');
    expect(await tabTo(page, (f) => f.includes('name=count'))).toBe(true);
    await page.keyboard.type('2');
    // Enter reviews, Enter again sends.
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toContain('[part=submit]');
    await page.keyboard.press('Enter');
    expect(textOf(await order)).toBe('2 × soup');
    await page.waitForSelector('text=Sent.');
    expect(await tabTo(page, (f) => f.includes('[part=open]'))).toBe(true);
    const opened = context.waitForEvent('page');
    await page.keyboard.press('Enter');
    const tab = await opened;
    expect(textOf(await terms)).toBe('accept');
    expect(tab.url()).toContain('terms.example');
    await tab.close();
    expect(blocked).toEqual([]);
    await page.close();
    await client.close();
  }, 90_000);
});
