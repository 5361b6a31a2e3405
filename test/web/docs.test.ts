/** The HTML snippet in docs/web.md, loaded as-is in Chromium with the elements bundle. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { bundle } from '../support/web-page.ts';

const html = /```html\n([\s\S]*?)```/.exec(readFileSync('docs/web.md', 'utf8'))?.[1] ?? '';
const server = createServer();
afterAll(() => void server.close());

describe('docs/web.md', () => {
  it('the snippet renders a form and reports the answer', async () => {
    expect(html).toContain("document.createElement('elicit-form')");
    const elements = await bundle('src/web/index.ts');
    server.on('request', (req, res) => {
      if (req.url === '/elicit-web.js')
        return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(elements);
      res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      await page.fill('elicit-form >> input[name=name]', 'Ada');
      await page.click('elicit-form >> label:has-text("Aisle")');
      await page.click('elicit-form >> [part=submit]');
      await page.click('elicit-form >> [part=submit]');
      await page.waitForFunction(() => document.getElementById('out')?.textContent !== '');
      expect(JSON.parse((await page.textContent('#out')) ?? '')).toEqual({
        action: 'accept',
        content: { name: 'Ada', seat: 'a', bags: 1 },
      });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
