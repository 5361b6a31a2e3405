/**
 * The browser host of `elicit demo --web` beyond forms: a running call shows the server's progress
 * notifications as a progress bar and can be cancelled (the SDK tells the server), and prompts are
 * listed and used, including one that asks before it answers. Real Chromium, both eras.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebDemo } from '../../src/cli/web-demo.ts';
import type { DemoStack } from '../../src/demo/stack.ts';
import { launchBrowser } from '../support/browser.ts';

let browser: Browser;
let demo: DemoStack;
beforeAll(async () => {
  demo = await startWebDemo({ dir: mkdtempSync(join(tmpdir(), 'elicit-web-host-')) });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await demo?.close();
});

async function connected(
  era: string,
): Promise<{ page: Page; bodies: string[]; failed: string[]; close(): Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const bodies: string[] = [];
  const failed: string[] = [];
  page.on('requestfailed', (r) => {
    if (new URL(r.url()).pathname === '/mcp') failed.push(r.postData() ?? '');
  });
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/mcp')
      bodies.push(r.postData() ?? '');
  });
  await page.goto(new URL('/', demo.url).href);
  await page.selectOption('#era', era);
  await page.click('#connect');
  await page.waitForSelector('button[data-tool=slow_count]');
  return { page, bodies, failed, close: () => context.close() };
}

/** Submit an <elicit-form>: once to review, once to send. */
async function submit(page: Page): Promise<void> {
  await page.click('elicit-form >> [part=submit]');
  await page.click('elicit-form >> [part=submit]');
}

describe.each(['legacy', 'modern'])('the browser host (%s)', (era) => {
  it('shows progress as a bar, and Cancel stops the call', async () => {
    const { page, bodies, failed, close } = await connected(era);
    await page.click('button[data-tool=slow_count]');
    const row = '.call[data-tool=slow_count]';
    await page.waitForSelector(`${row}[data-percent]`);
    const bar = await page.$eval(`${row} progress`, (p) => ({
      max: (p as HTMLProgressElement).max,
      value: (p as HTMLProgressElement).value,
    }));
    expect(bar.max).toBe(20);
    expect(bar.value).toBeGreaterThan(0);
    expect(await page.textContent(`${row} .detail`)).toMatch(/^\d+…$/);

    const id = bodies
      .map((b) => JSON.parse(b) as { id?: number; method?: string; params?: { name?: string } })
      .find((m) => m.method === 'tools/call' && m.params?.name === 'slow_count')?.id;
    expect(id).toBeDefined();
    await page.click(`${row} button.cancel`);
    await page.waitForSelector('#log p:has-text("Count slowly: cancelled.")');
    expect(await page.$(row)).toBeNull();
    if (era === 'legacy') {
      // 2025-11-25: the SDK posts notifications/cancelled for that request.
      await expect
        .poll(() =>
          bodies.some((b) => {
            const m = JSON.parse(b) as { method?: string; params?: { requestId?: number } };
            return m.method === 'notifications/cancelled' && m.params?.requestId === id;
          }),
        )
        .toBe(true);
    } else {
      // 2026-07-28: the request's own stream is ended instead.
      await expect.poll(() => failed.some((b) => b.includes('"slow_count"'))).toBe(true);
    }
    // The host still works after a cancellation.
    await page.click('button[data-tool=feedback]');
    await page.waitForSelector('elicit-form');
    await page.click('elicit-form >> label:has-text("It was fine")');
    await submit(page);
    await page.waitForSelector('#log .result');
    expect(await page.textContent('#log .result')).toBe('◀ Thanks! You found it fine.');
    await close();
  }, 90_000);

  it('Cancel while the server is asking closes the form too', async () => {
    const { page, close } = await connected(era);
    await page.click('button[data-tool=feedback]');
    await page.waitForSelector('elicit-form >> text=How did you like elicit?');
    await page.click('.call[data-tool=feedback] button.cancel');
    await page.waitForSelector('#log p:has-text("Give feedback: cancelled.")');
    await page.waitForSelector('elicit-form', { state: 'detached' });
    expect(await page.$('.call')).toBeNull();
    await close();
  }, 90_000);

  it('lists prompts and gets one, answering the question it asks first', async () => {
    const { page, close } = await connected(era);
    await page.waitForSelector('button[data-prompt=trip_brief]');
    expect(await page.textContent('button[data-prompt=trip_brief]')).toBe('Brief for a trip');
    await page.click('button[data-prompt=trip_brief]');
    await page.waitForSelector('elicit-form >> input[name=city]');
    await page.fill('elicit-form >> input[name=city]', 'Lisbon');
    await submit(page);
    await page.waitForSelector('elicit-form >> text=How do you like to spend a day in Lisbon?');
    await page.click('elicit-form >> label:has-text("Packed")');
    await submit(page);
    await page.waitForSelector('#log .result');
    expect(await page.textContent('#log .result')).toBe(
      '◀ user: Plan a day in Lisbon at a packed pace.',
    );
    await close();
  }, 90_000);
});
