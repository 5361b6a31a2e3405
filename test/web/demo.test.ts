/**
 * `elicit demo --web` end to end in Chromium: the SDK client runs in the page, elicitations are
 * rendered by the elements; a form-mode and a URL-mode flow complete, on both eras.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebDemo } from '../../src/cli/web-demo.ts';
import type { DemoStack } from '../../src/demo/stack.ts';
import { launchBrowser, passDevLogin } from '../support/browser.ts';

let browser: Browser;
let demo: DemoStack;
beforeAll(async () => {
  demo = await startWebDemo({ dir: mkdtempSync(join(tmpdir(), 'elicit-web-demo-')) });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await demo?.close();
});

describe.each([
  ['legacy', 'legacy'],
  ['modern', 'modern'],
])('the browser host (%s)', (era, expected) => {
  it('connects, answers a form, and completes a URL-mode flow in a new tab', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(new URL('/', demo.url).href);
    await page.selectOption('#era', era);
    await page.click('#connect');
    await page.waitForSelector('button[data-tool=feedback]');
    expect(await page.evaluate(() => document.body.dataset.era)).toBe(expected);

    // Form mode.
    await page.click('button[data-tool=feedback]');
    await page.waitForSelector('elicit-form');
    await page.click('elicit-form >> label:has-text("Loved it")');
    await page.fill('elicit-form >> input[name=comment]', 'Lovely');
    await page.click('elicit-form >> [part=submit]');
    await page.click('elicit-form >> [part=submit]');
    await page.waitForSelector('#log .result');
    expect(await page.textContent('#log .result')).toBe('◀ Thanks! You loved it: “Lovely”.');

    // URL mode: the consent element, then the secret page in a new tab.
    await page.click('button[data-tool=set_api_key]');
    await page.waitForSelector('elicit-url-consent');
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      page.click('elicit-url-consent >> [part=open]'),
    ]);
    await tab.waitForLoadState();
    await passDevLogin(tab);
    await tab.fill('#secret', 'key-from-the-browser');
    await tab.click('form[action$="/secret"] button[type=submit]');
    await tab.waitForSelector('text=You can close this tab');
    await page.waitForSelector(
      '#log .result:nth-of-type(2), #log p:has-text("Saved your API key")',
    );
    // Nothing of the key reaches the model: not its length, not its last characters.
    const log = (await page.textContent('#log')) ?? '';
    expect(log).toContain('Saved your API key on the server.');
    expect(log).not.toMatch(/20 characters|…er|key-from-the-browser/);
    await context.close();
  }, 90_000);
});
