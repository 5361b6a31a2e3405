/**
 * -32042 (URL elicitation required) from a plain SDK v1 server (2025 only; its completion
 * notification comes on the session) through the gateway, on each era of host: where the host
 * cannot show pages, the page waits in the inbox with <elicit-url-consent>, Chromium opens it,
 * and the call is made again once the server says the page is complete; a 2025-11-25 host that
 * shows pages gets the -32042 itself and the completion notification, and retries. (A
 * 2026-07-28 host that shows pages is asked in a URL round: held.test.ts.) A 2026-07-28 server
 * cannot answer -32042: the SDK refuses it on that revision.
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, Inbox } from '../../src/gateway/index.ts';
import type { Listening } from '../../src/server/index.ts';
import { launchBrowser } from '../support/browser.ts';

const root = join(import.meta.dirname, '..', '..');
let inbox: Inbox;
let browser: Browser;
const gateways: Gateway[] = [];
const fronts: Listening[] = [];

beforeAll(async () => {
  inbox = await Inbox.start();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  for (const f of fronts) await f.close();
  for (const g of gateways) await g.close();
  await inbox?.close();
});

/** A gateway in front of a fresh v1 server (its sign-in state is its own). */
async function front(): Promise<Listening> {
  const gateway = await createGateway({
    transport: () =>
      new StdioClientTransport({
        command: process.execPath,
        args: [join(root, 'test', 'fixtures', 'v1-server.ts')],
        stderr: 'ignore',
      }),
    era: 'legacy',
    inbox,
  });
  gateways.push(gateway);
  const listening = await gateway.listen();
  fronts.push(listening);
  return listening;
}

async function host(
  at: Listening,
  era: 'legacy' | 'modern',
  url: boolean,
  seen: unknown[] = [],
): Promise<Client> {
  const client = new Client(
    { name: 'host', version: '1' },
    { capabilities: url ? { elicitation: { form: {}, url: {} } } : {} },
  );
  client.setVersionNegotiation({ mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } });
  if (url)
    client.setRequestHandler('elicitation/create', async (req) => {
      seen.push(req.params);
      return { action: 'accept' };
    });
  await client.connect(new StreamableHTTPClientTransport(at.url));
  return client;
}

/** Opens the waiting page in the inbox with Chromium. */
async function openInInbox(): Promise<string> {
  for (let i = 0; i < 200 && inbox.size < 1; i++) await new Promise((r) => setTimeout(r, 50));
  expect(inbox.size).toBe(1);
  const page = await browser.newPage();
  try {
    await page.goto(await inbox.link());
    await page.waitForSelector('elicit-url-consent >> [part=open]');
    const shown = (await page.textContent('elicit-url-consent >> [part=url]')) ?? '';
    // The buttons are armed 500 ms after the page is shown.
    await page.waitForTimeout(600);
    await page.click('elicit-url-consent >> [part=open]');
    return shown;
  } finally {
    await page.close();
  }
}

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

describe('-32042 from a plain SDK v1 server (2025 only)', () => {
  for (const era of ['legacy', 'modern'] as const)
    it(`${era} host without URL mode: the page waits in the inbox; after the server's completion the call is made again`, async () => {
      const at = await front();
      const client = await host(at, era, false);
      const call = client.callTool({ name: 'calendar', arguments: {} });
      expect(await openInInbox()).toContain('example.com/signin');
      expect(textOf(await call)).toBe('3 meetings today (after 1 sign-in)');
      expect(inbox.size).toBe(0);
      await client.close();
    }, 60_000);

  it('a 2025-11-25 host with URL mode gets the -32042 itself, and the completion notification', async () => {
    const at = await front();
    const completed: string[] = [];
    const client = await host(at, 'legacy', true);
    client.setNotificationHandler('notifications/elicitation/complete', (n) => {
      completed.push(n.params.elicitationId);
    });
    const error = await client
      .callTool({ name: 'calendar', arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const [page] = (error as UrlElicitationRequiredError).elicitations;
    expect(page).toMatchObject({ mode: 'url', elicitationId: 'el-1' });
    for (let i = 0; i < 100 && completed.length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(completed).toEqual(['el-1']);
    // The host's own retry, once the page is done.
    const r = await client.callTool({ name: 'calendar', arguments: {} });
    expect(textOf(r)).toBe('3 meetings today (after 1 sign-in)');
    await client.close();
  }, 30_000);
});
