/**
 * Restart: the server is killed between consent at the provider and the callback, started again
 * on the same store and keys, and the flow completes (SQLite and Redis).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, passDevLogin, signInAtProvider } from '../support/browser.ts';
import { type Idp, startIdp } from '../support/idp.ts';
import { dropSchema, uniqueSchema } from '../support/postgres.ts';
import { freePort, startProcess, stop } from '../support/processes.ts';

let browser: Browser;
const children: ChildProcess[] = [];
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
const restartSchema = uniqueSchema('restart');
afterAll(async () => {
  for (const c of children) await stop(c);
  await browser?.close();
  await dropSchema(restartSchema);
});

type Raw = {
  resultType?: string;
  inputRequests?: Record<string, { params: { url: string } }>;
  requestState?: string;
  content?: { text: string }[];
};

describe.each([
  ['sqlite', () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'elicit-restart-')), 'store.db')}`],
  ['redis', () => `redis:elicit-restart-${process.pid}-${Date.now()}:`],
  ['postgres', () => `postgres:${restartSchema}`],
])('restart between consent and callback (%s)', (_name, storeArg) => {
  let idp: Idp;
  afterAll(async () => {
    await idp?.close();
  });
  it('the flow completes on the restarted server', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const store = storeArg();
    idp = await startIdp([
      {
        client_id: 'calendar-app',
        client_secret: 'calendar-secret',
        redirect_uris: [`${base}/elicit/oauth/callback`],
      },
    ]);
    const args = [String(port), store, base, idp.issuer];
    let server = await startProcess('test/fixtures/replica.ts', args);
    children.push(server);

    const client = new Client(
      { name: 'c', version: '1' },
      {
        capabilities: { elicitation: { url: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const call = (extra: Record<string, unknown> = {}) =>
      client.request(
        { method: 'tools/call', params: { name: 'calendar', arguments: {}, ...extra } } as never,
        { allowInputRequired: true, timeout: 90_000 },
      ) as Promise<Raw>;
    const first = await call();
    expect(first.resultType).toBe('input_required');
    const [key, request] = Object.entries(first.inputRequests ?? {})[0] as [
      string,
      { params: { url: string } },
    ];

    const context = await browser.newContext();
    const page = await context.newPage();
    let callback: string | undefined;
    page.on('request', (r) => {
      if (r.url().startsWith(`${base}/elicit/oauth/callback`)) callback = r.url();
    });
    await page.goto(request.params.url);
    await passDevLogin(page);
    await page.click('#continue');
    await signInAtProvider(page, 'alice');
    // Consent given; the server dies before the provider sends the browser back.
    await stop(server, 'SIGKILL');
    await page.click('button[type=submit]').catch(() => {});
    for (let i = 0; i < 100 && callback === undefined; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(callback).toBeDefined();

    server = await startProcess('test/fixtures/replica.ts', args);
    children.push(server);
    await page.goto(callback as string);
    expect(await page.textContent('body')).toContain('calendar is connected');

    const retry = await call({
      inputResponses: { [key]: { action: 'accept' } },
      requestState: first.requestState,
    });
    expect(retry.content?.[0]?.text).toBe('calendar:alice');
    await client.close();
    await context.close();
    await stop(server);
  }, 120_000);
});
