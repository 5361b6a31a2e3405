/**
 * Every screen a person meets in `elicit demo --web`, reachable in Chromium: the host page (idle,
 * connected, a form open, URL consent of each verdict, a running call, a task asking, results)
 * and the connect pages (index, sign-in, the provider page, the secret form, done, the error
 * pages). Shared by the browser suite (test/web/screens.test.ts) and scripts/screenshots.ts.
 * Then the two web inboxes (the gateway's and the connect pages'): empty, a form and a URL page
 * waiting, both answered (test/web/inbox-screens.test.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import type { DemoStack } from '../../src/demo/stack.ts';
import { createServer, type ElicitServer, httpEntry } from '../../src/server/index.ts';
import { CONSENT_ARM_MS } from '../../src/web/limits.ts';
import {
  clientWithoutElicitation,
  connectPages,
  gatewayInbox,
  serverWithInbox,
  withOrder,
} from './inbox.ts';

export interface Screens {
  readonly demo: DemoStack;
  readonly context: BrowserContext;
}

export interface Screen {
  readonly name: string;
  /** What the screen shows, for the docs. */
  readonly title: string;
  /** Brings a page of its own to the screen and returns it. */
  reach(s: Screens): Promise<Page>;
}

export const URLS = {
  ok: 'https://modelcontextprotocol.io/specification',
  caution: 'https://paypal.com.account-check.example/login',
  danger: 'https://\u0430pple.com/signin',
  refused: 'http://example.com/',
} as const;

const origin = (s: Screens) => new URL('/', s.demo.url).href;

/** A new page on the host, connected (2026-07-28 unless told), tools listed. */
export async function hostPage(s: Screens, era = 'modern', connect = true): Promise<Page> {
  const page = await s.context.newPage();
  await page.goto(origin(s));
  if (!connect) return page;
  await page.selectOption('#era', era);
  await page.click('#connect');
  await page.waitForSelector('button[data-tool=feedback]');
  return page;
}

/** Submit an <elicit-form> (review, then send). */
export async function submitForm(page: Page): Promise<void> {
  await page.click('elicit-form >> [part=submit]');
  await page.click('elicit-form >> [part=submit]');
}

/** Calls `open_docs` with a URL and waits for its consent screen. */
async function consentFor(s: Screens, url: string): Promise<Page> {
  const page = await hostPage(s);
  await page.click('button[data-tool=open_docs]');
  await page.fill('elicit-form >> input[name=url]', url);
  await submitForm(page);
  await page.waitForSelector('elicit-url-consent');
  await page.waitForSelector('elicit-form', { state: 'detached' });
  // Past its first moments, when the consent ignores input: the screen as a person uses it.
  await page.waitForTimeout(CONSENT_ARM_MS);
  return page;
}

/** From the host, starts a URL-mode tool and opens its connect page in a new tab. */
export async function connectPageOf(s: Screens, tool: string): Promise<Page> {
  const host = await hostPage(s);
  await host.click(`button[data-tool=${tool}]`);
  await host.waitForSelector('elicit-url-consent >> [part=open]');
  const [tab] = await Promise.all([
    s.context.waitForEvent('page'),
    host.click('elicit-url-consent >> [part=open]'),
  ]);
  await tab.waitForLoadState();
  return tab;
}

/** Signs in on the development login page when the tab is there. */
export async function passLogin(page: Page): Promise<void> {
  if (!page.url().includes('/elicit/login')) return;
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith('/elicit/login')),
    page.click('button[type=submit]'),
  ]);
}

export const SCREENS: readonly Screen[] = [
  {
    name: 'host-idle',
    title: 'The demo host before connecting',
    reach: (s) => hostPage(s, 'modern', false),
  },
  {
    name: 'host-form',
    title: 'A server’s form open in the host (every field type)',
    async reach(s) {
      const page = await hostPage(s);
      await page.click('button[data-tool=book_trip]');
      await page.fill('elicit-form >> input[name=city]', 'Lisbon');
      await submitForm(page);
      await page.waitForSelector('elicit-form >> input[name=name]');
      return page;
    },
  },
  {
    name: 'host-consent-ok',
    title: 'URL consent: an ordinary page',
    reach: (s) => consentFor(s, URLS.ok),
  },
  {
    name: 'host-consent-caution',
    title: 'URL consent: a known name in a subdomain (caution)',
    reach: (s) => consentFor(s, URLS.caution),
  },
  {
    name: 'host-consent-danger',
    title: 'URL consent: a look-alike domain (danger)',
    reach: (s) => consentFor(s, URLS.danger),
  },
  {
    name: 'host-consent-refused',
    title: 'URL consent: a URL that is never opened (refused)',
    reach: (s) => consentFor(s, URLS.refused),
  },
  {
    name: 'host-progress',
    title: 'A running call with progress and Cancel',
    async reach(s) {
      const page = await hostPage(s);
      await page.click('button[data-tool=slow_count]');
      await page.waitForSelector('.call[data-tool=slow_count][data-percent]');
      return page;
    },
  },
  {
    name: 'host-task',
    title: 'A task asking half way, its row showing its status',
    async reach(s) {
      const page = await hostPage(s);
      await page.click('button[data-tool=migrate_data]');
      await page.waitForSelector('elicit-form');
      await page.waitForSelector('.call[data-tool=migrate_data][data-status]');
      return page;
    },
  },
  {
    name: 'host-results',
    title: 'Results and a cancelled call in the log',
    async reach(s) {
      const page = await hostPage(s);
      await page.click('button[data-tool=feedback]');
      await page.click('elicit-form >> label:has-text("Loved it")');
      await page.fill('elicit-form >> input[name=comment]', 'Lovely, thank you');
      await submitForm(page);
      await page.waitForSelector('#log .result');
      await page.click('button[data-tool=open_docs]');
      await page.fill('elicit-form >> input[name=url]', URLS.refused);
      await submitForm(page);
      // The consent ignores input for its first moments (so no stray key accepts it).
      await page.waitForTimeout(CONSENT_ARM_MS);
      await page.click('elicit-url-consent >> [part=decline]');
      await page.waitForSelector('#log .entry:has-text("Not opened")');
      await page.click('button[data-tool=slow_count]');
      await page.click('.call[data-tool=slow_count] button.cancel');
      await page.waitForSelector('#log .entry:has-text("cancelled")');
      return page;
    },
  },
  {
    name: 'connect-index',
    title: 'Connect pages: nothing to do',
    async reach(s) {
      const page = await s.context.newPage();
      await page.goto(new URL('/elicit/', s.demo.url).href);
      return page;
    },
  },
  {
    name: 'connect-login',
    title: 'Connect pages: development sign-in',
    async reach(s) {
      await s.context.clearCookies();
      const page = await s.context.newPage();
      await page.goto(new URL('/elicit/login?next=%2Felicit%2F', s.demo.url).href);
      return page;
    },
  },
  {
    name: 'connect-secret',
    title: 'Connect pages: a secret typed on the server’s page',
    async reach(s) {
      const tab = await connectPageOf(s, 'set_api_key');
      await passLogin(tab);
      await tab.waitForSelector('#secret');
      return tab;
    },
  },
  {
    name: 'connect-provider',
    title: 'Connect pages: connecting an account with OAuth',
    async reach(s) {
      const tab = await connectPageOf(s, 'connect_calendar');
      await passLogin(tab);
      await tab.waitForSelector('#continue');
      return tab;
    },
  },
  {
    name: 'connect-done',
    title: 'Connect pages: done',
    async reach(s) {
      const tab = await connectPageOf(s, 'set_api_key');
      await passLogin(tab);
      await tab.fill('#secret', 'a-key-for-the-weather');
      await tab.click('form[action$="/secret"] button[type=submit]');
      await tab.waitForSelector('text=You can close this tab');
      return tab;
    },
  },
  {
    name: 'connect-signed-out',
    title: 'Connect pages: signed out',
    async reach(s) {
      const page = await s.context.newPage();
      await page.goto(new URL('/elicit/login?next=%2Felicit%2F', s.demo.url).href);
      await passLogin(page);
      await Promise.all([page.waitForSelector('text=Signed out'), page.click('.who button')]);
      return page;
    },
  },
  {
    name: 'connect-not-available',
    title: 'Connect pages: a link that is not available',
    async reach(s) {
      const page = await s.context.newPage();
      await page.goto(new URL('/elicit/no-such-record', s.demo.url).href);
      return page;
    },
  },
  {
    name: 'connect-failed',
    title: 'Connect pages: something went wrong',
    async reach(s) {
      const page = await s.context.newPage();
      await page.goto(new URL('/elicit/oauth/callback?state=not-expected', s.demo.url).href);
      return page;
    },
  },
];

/** axe-core's source, injected into pages (through the debugger, so no CSP is loosened). */
export const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** Where the inboxes' URL question sends the person (a test answers it in the browser). */
export const TERMS = 'https://terms.example/read';

/** A form question (`order`) and a URL question (`terms`). */
export function inboxTools(app: ElicitServer): ElicitServer {
  return withOrder(app).tool(
    'terms',
    { description: 'sends the person to a page' },
    async (_args, ask) =>
      (await ask.url('terms', { message: 'Read the terms', url: TERMS })).action,
  );
}

/** The two web inboxes: the gateway's and the connect pages'. */
export const INBOXES = ['gateway', 'connect'] as const;

/** An inbox screen's name in the docs: `inbox-<inbox>-<screen>`. */
export const inboxScreenName = (inbox: (typeof INBOXES)[number], screen: string) =>
  `inbox-${inbox}-${screen}`;

/** One of the two web inboxes, with the MCP endpoint whose questions wait there. */
export interface StagedInbox {
  readonly name: (typeof INBOXES)[number];
  /** As a person would name it. */
  readonly label: string;
  /** Where a host that cannot answer calls. */
  readonly mcp: URL;
  /** The inbox's address (for the gateway, a fresh one-time link). */
  link(): Promise<string>;
  /** The page itself, without a link. */
  readonly page: string;
}

/**
 * The gateway's inbox (in front of a server named `bistro`) and the connect pages' inbox of a
 * server named `shop`, each asking with `inboxTools`.
 */
export interface InboxStage {
  readonly inboxes: readonly StagedInbox[];
  close(): Promise<void>;
}

export async function startInboxStage(): Promise<InboxStage> {
  // With a sign-in of its own beside the one-time links (its page is shown; nobody signs in).
  const gateway = await gatewayInbox(inboxTools(createServer({ name: 'bistro', version: '1' })), {
    oidc: { issuer: 'https://id.example.com', clientId: 'elicit-inbox' },
  });
  const pages = await connectPages();
  pages.mount('/mcp', httpEntry(inboxTools(serverWithInbox(pages, 'shop'))));
  return {
    inboxes: [
      {
        name: 'gateway',
        label: 'gateway inbox',
        mcp: gateway.front.url,
        link: () => gateway.inbox.link(),
        page: gateway.inbox.url.href,
      },
      {
        name: 'connect',
        label: 'connect pages inbox',
        mcp: new URL('/mcp', pages.base),
        link: async () => `${pages.base}/elicit/inbox`,
        page: `${pages.base}/elicit/inbox`,
      },
    ],
    async close() {
      await pages.close();
      await gateway.close();
    },
  };
}

/** An inbox screen, reached on a page of its own; `leave` ends what it started. */
export interface InboxScreen {
  readonly name: string;
  readonly title: string;
  /** The inboxes that have this screen (default both). */
  readonly of?: readonly StagedInbox['name'][];
  reach(
    inbox: StagedInbox,
    context: BrowserContext,
  ): Promise<{ page: Page; leave(): Promise<void> }>;
}

/** The inbox signed in; nothing waiting. */
async function inboxPage(inbox: StagedInbox, context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(await inbox.link());
  await passLogin(page);
  return page;
}

/**
 * A host that cannot answer calls both tools; the inbox shows the form and the URL question.
 * `answer` (by the mouse: decline the page, send the form) and the calls' results end them.
 */
export async function bothWaiting(inbox: StagedInbox, context: BrowserContext) {
  const client = await clientWithoutElicitation(inbox.mcp);
  const order = client.callTool({ name: 'order', arguments: {} });
  const page = await inboxPage(inbox, context);
  await page.waitForSelector('elicit-form >> input[name=dish]', { timeout: 20_000 });
  // One after the other: the page lists them in the order they came, the same on every run.
  const terms = client.callTool({ name: 'terms', arguments: {} });
  await page.waitForSelector('elicit-url-consent >> [part=open]', { timeout: 20_000 });
  // Past the consent's first moments, when it ignores input: the screen as a person uses it.
  await page.waitForTimeout(CONSENT_ARM_MS);
  const answer = async () => {
    await page.click('elicit-url-consent >> [part=decline]');
    await page.fill('elicit-form >> input[name=dish]', 'Soup');
    await page.fill('elicit-form >> input[name=count]', '2');
    await submitForm(page);
    return { order: await order, terms: await terms };
  };
  return { page, client, order, terms, answer };
}

/** A page of a browser that has never signed in (a context of its own, closed on leaving). */
async function strangerPage(context: BrowserContext) {
  const browser = context.browser();
  if (browser === null) throw new Error('a persistent context: no browser to open another in');
  const fresh = await browser.newContext();
  return { page: await fresh.newPage(), leave: () => fresh.close() };
}

export const INBOX_SCREENS: readonly InboxScreen[] = [
  {
    name: 'sign-in',
    title: 'signing in with the OpenID provider, or with a one-time link',
    of: ['gateway'],
    async reach(inbox, context) {
      const stranger = await strangerPage(context);
      await stranger.page.goto(inbox.page);
      await stranger.page.waitForSelector('#sign-in');
      return stranger;
    },
  },
  {
    name: 'link-used',
    title: 'a one-time link opened a second time',
    of: ['gateway'],
    async reach(inbox, context) {
      const link = await inbox.link();
      const first = await strangerPage(context);
      await first.page.goto(link);
      await first.leave();
      const stranger = await strangerPage(context);
      await stranger.page.goto(link);
      await stranger.page.waitForSelector('text=Not signed in');
      return stranger;
    },
  },
  {
    name: 'empty',
    title: 'nothing waiting',
    async reach(inbox, context) {
      const page = await inboxPage(inbox, context);
      await page.waitForSelector('#empty');
      return { page, leave: async () => {} };
    },
  },
  {
    name: 'waiting',
    title: 'a form and a URL page waiting for the person',
    async reach(inbox, context) {
      const { page, client, answer } = await bothWaiting(inbox, context);
      return {
        page,
        async leave() {
          await answer();
          await client.close();
        },
      };
    },
  },
  {
    name: 'answered',
    title: 'both answered: the notes that say so',
    async reach(inbox, context) {
      const { page, client, answer } = await bothWaiting(inbox, context);
      await answer();
      await page.waitForFunction(() => document.querySelectorAll('p.done').length === 2);
      return { page, leave: () => client.close() };
    },
  },
];
