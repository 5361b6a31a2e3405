/**
 * The browser bundle's size, as `npm run build` makes and measures it, is the size docs/web.md
 * states (to within 3 %, so small changes elsewhere need no doc edit), and within its budget.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type UserConfig } from 'tsdown';
import { afterAll, describe, expect, it } from 'vitest';
import { BUDGET_KB, measure } from '../../scripts/bundle-size.ts';
import configs from '../../tsdown.config.ts';
import { launchBrowser } from '../support/browser.ts';
import { STRICT_CSP } from '../support/web-page.ts';

const out = mkdtempSync(join(tmpdir(), 'elicit-bundle-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('dist/browser/elicit-web.js', () => {
  it('is the size docs/web.md states, and within budget', async () => {
    const browser = (configs as UserConfig[]).find(
      (c) => typeof c.entry === 'object' && 'elicit-web' in (c.entry as object),
    ) as UserConfig;
    await build({ ...browser, outDir: out, config: false, logLevel: 'silent' });
    const size = measure(join(out, 'elicit-web.js'));
    const docs = readFileSync('docs/web.md', 'utf8');
    const stated = /about ([\d.]+) kB minified and ([\d.]+) kB gzipped/.exec(docs);
    expect(stated, 'docs/web.md states the size').not.toBeNull();
    const near = (docsKb: number, builtKb: number) => Math.abs(docsKb - builtKb) <= builtKb * 0.03;
    expect(near(Number(stated?.[1]), size.minifiedKb), `minified: ${size.minifiedKb} kB`).toBe(
      true,
    );
    expect(near(Number(stated?.[2]), size.gzippedKb), `gzipped: ${size.gzippedKb} kB`).toBe(true);
    expect(size.gzippedKb).toBeLessThanOrEqual(BUDGET_KB);
  }, 120_000);

  it('loads the confusables table only for a form with text beyond ASCII, which then is caught', async () => {
    // (The build of the first test is in `out`.)
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      const file = join(out, (req.url ?? '/').slice(1));
      if (req.url?.endsWith('.js') && existsSync(file))
        return void res
          .writeHead(200, { 'content-type': 'text/javascript' })
          .end(readFileSync(file));
      res
        .writeHead(200, { 'content-type': 'text/html', 'content-security-policy': STRICT_CSP })
        .end(
          '<!doctype html><html lang="en"><meta charset="utf-8"><title>t</title><main id="root"></main><script type="module" src="/elicit-web.js"></script></html>',
        );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      await page.waitForFunction(() => customElements.get('elicit-form') !== undefined);
      const ask = (title: string) =>
        page.evaluate((title) => {
          const form = document.createElement('elicit-form');
          document.getElementById('root')?.replaceChildren(form);
          form.request = {
            server: 'Bank',
            message: 'Sign in',
            requestedSchema: { type: 'object', properties: { code: { type: 'string', title } } },
          };
        }, title);
      await ask('Code');
      await page.waitForSelector('elicit-form >> input[name=code]');
      expect(hits.filter((h) => h.includes('confusables'))).toEqual([]);
      // Cyrillic Р and а: it reads "Password". The form is compiled once the table arrives, in the
      // page's own code, where the CSP forbids eval: the schema checks run without generated code.
      await ask('Ра\u00adssw0rd');
      await page.waitForSelector('elicit-form >> [part=caution]');
      expect(hits.filter((h) => h.includes('confusables'))).toEqual([
        '/elicit-web-confusables-data.js',
      ]);
    } finally {
      await browser.close();
      server.close();
    }
  }, 60_000);
});
