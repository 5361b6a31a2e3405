/**
 * MCP Inspector's CLI (2.12, pinned; it declares no elicitation) → `elicit gateway` over HTTP →
 * a server that asks: the question waits in the gateway's inbox, Chromium opens the one-time
 * link and answers it with <elicit-form>, and the CLI's call completes with the answer, with the
 * CLI on either era.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/server/index.ts';
import { launchBrowser } from '../support/browser.ts';
import { type GatewayInbox, gatewayInbox, withOrder } from '../support/inbox.ts';

const INSPECTOR = 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js';

let staged: GatewayInbox;
let browser: Browser;
let home: string;

beforeAll(async () => {
  staged = await gatewayInbox(withOrder(createServer({ name: 'asker', version: '1' })));
  browser = await launchBrowser();
  home = mkdtempSync(join(tmpdir(), 'elicit-inspector-'));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await staged?.close();
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

function inspectorCall(era: 'legacy' | 'modern'): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        INSPECTOR,
        '--cli',
        staged.front.url.href,
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

const textOf = (out: string): string =>
  (JSON.parse(out) as { result: { content: { text: string }[] } }).result.content[0]?.text ?? '';

describe('MCP Inspector 2.12 --cli → elicit gateway → a server that asks', () => {
  for (const [era, dish] of [
    ['legacy', 'soup'],
    ['modern', 'tea'],
  ] as const) {
    it(`${era}: the question waits in the inbox, Chromium answers, the CLI prints the answer`, async () => {
      const call = inspectorCall(era);
      for (let i = 0; i < 300 && staged.inbox.size < 1; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(staged.inbox.size).toBe(1);
      const page = await browser.newPage();
      await page.goto(await staged.inbox.link());
      await page.waitForSelector('elicit-form >> input[name=dish]');
      await page.fill('elicit-form >> input[name=dish]', dish);
      await page.fill('elicit-form >> input[name=count]', '2');
      await page.click('elicit-form >> [part=submit]');
      await page.click('elicit-form >> [part=submit]');
      const { code, out } = await call;
      expect(code, out).toBe(0);
      expect(textOf(out)).toBe(`2 × ${dish}`);
      await page.close();
    }, 90_000);
  }
});
