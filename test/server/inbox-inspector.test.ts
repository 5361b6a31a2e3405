/**
 * MCP Inspector's CLI (2.12, pinned) declares no elicitation: a tool that asks fails there
 * against a plain server. Against `createServer({ connect, inbox })` the question waits on the
 * connect pages' inbox, Chromium signs in and answers it with <elicit-form>, and the CLI's call
 * completes with the answer: held open on a 2025 session; at 2026-07-28 the first call prints
 * the link and the same call again prints the answer.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, httpEntry } from '../../src/server/index.ts';
import { launchBrowser, passDevLogin } from '../support/browser.ts';
import {
  type ConnectPages,
  connectPages,
  serverWithInbox,
  waitingQuestions,
  withOrder,
} from '../support/inbox.ts';

const INSPECTOR = 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js';

let pages: ConnectPages;
let base: string;
let browser: Browser;
let home: string;
const waiting = waitingQuestions();
const waitingNow = waiting.seen;
const questionWaits = waiting.nth;

beforeAll(async () => {
  pages = await connectPages();
  base = pages.base;
  pages.mount(
    '/mcp',
    httpEntry(withOrder(serverWithInbox(pages, 'shop', { onWaiting: waiting.onWaiting }))),
  );
  pages.mount('/plain/mcp', httpEntry(withOrder(createServer({ name: 'plain', version: '1' }))));
  browser = await launchBrowser();
  // The CLI keeps a catalog under the home directory: a throwaway one.
  home = mkdtempSync(join(tmpdir(), 'elicit-inspector-'));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await pages?.close();
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

/** One `inspector --cli <url> --method tools/call --tool-name order`: its JSON result. */
function inspectorCall(
  era: 'legacy' | 'modern',
  path = '/mcp',
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        INSPECTOR,
        '--cli',
        `${base}${path}`,
        '--method',
        'tools/call',
        '--tool-name',
        'order',
        '--protocol-era',
        era,
        '--format',
        'json',
        '-q',
      ],
      { env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out: out || err });
    });
  });
}

async function answerInBrowser(url: string, dish: string, count: string): Promise<void> {
  const page = await browser.newPage();
  await page.goto(url);
  await passDevLogin(page);
  await page.waitForSelector('elicit-form >> input[name=dish]');
  await page.fill('elicit-form >> input[name=dish]', dish);
  await page.fill('elicit-form >> input[name=count]', count);
  await page.click('elicit-form >> [part=submit]');
  await page.click('elicit-form >> [part=submit]');
  await page.waitForSelector('text=Your answer was received.');
  await page.close();
}

const textOf = (out: string): string =>
  (JSON.parse(out) as { result: { content: { text: string }[] } }).result.content[0]?.text ?? '';

describe('MCP Inspector 2.12 --cli (no elicitation) against createServer({ inbox })', () => {
  it('without the option the tool fails there, as measured before the inbox existed', async () => {
    const { out } = await inspectorCall('legacy', '/plain/mcp');
    const result = (JSON.parse(out) as { result: { isError?: boolean; _meta?: object } }).result;
    expect(result.isError).toBe(true);
    expect(result._meta).toMatchObject({ 'elicit/error': 'ELICIT_CLIENT_UNSUPPORTED' });
  }, 60_000);

  it('2025 session: the CLI call is held, Chromium answers in the inbox, the CLI prints the answer', async () => {
    waitingNow.length = 0;
    const call = inspectorCall('legacy');
    const q = await questionWaits(1);
    await answerInBrowser(q.url, 'soup', '2');
    const { code, out } = await call;
    expect(code, out).toBe(0);
    expect(textOf(out)).toBe('2 × soup');
  }, 90_000);

  it('2026-07-28: the CLI prints the link; answered in Chromium, the same call prints the answer', async () => {
    waitingNow.length = 0;
    const first = await inspectorCall('modern');
    expect(first.code, first.out).toBe(0);
    expect(textOf(first.out)).toContain(`${base}/elicit/inbox`);
    const q = await questionWaits(1);
    await answerInBrowser(q.url, 'tea', '3');
    const again = await inspectorCall('modern');
    expect(again.code, again.out).toBe(0);
    expect(textOf(again.out)).toBe('3 × tea');
  }, 90_000);
});
