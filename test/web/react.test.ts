/**
 * The React example in docs/web.md, as a React 19 app: it type-checks with elicit/web/react (TSX
 * with the elements' props and event), esbuild bundles it, and in Chromium a parent that
 * re-renders with a new inline `request` object keeps what was typed, and the answer arrives
 * through `onelicit-response`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { STRICT_CSP } from '../support/web-page.ts';

const root = resolve(import.meta.dirname, '../..');
const dir = join(root, 'test-results', 'react-app');
const example = /```tsx\n([\s\S]*?)```/.exec(readFileSync(join(root, 'docs/web.md'), 'utf8'))?.[1];

const main = `
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Ask } from './ask.tsx';

function App() {
  // A parent that re-renders on its own: each render hands the element a new request object.
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), 50);
    return () => clearInterval(t);
  }, []);
  return (
    <main data-tick={tick}>
      <h1>React host</h1>
      <Ask onAnswer={(detail) => ((window as unknown as { answer: unknown }).answer = detail)} />
    </main>
  );
}
createRoot(document.getElementById('root') as HTMLElement).render(<App />);
`;

const tsconfig = {
  compilerOptions: {
    target: 'es2022',
    lib: ['es2023', 'dom', 'dom.iterable'],
    module: 'preserve',
    moduleResolution: 'bundler',
    jsx: 'react-jsx',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    types: [],
    paths: {
      'elicit/web': ['../../src/web/index.ts'],
      'elicit/web/react': ['../../src/web/react.ts'],
    },
  },
  files: ['main.tsx'],
};

let server: ReturnType<typeof createServer> | undefined;
afterAll(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('elicit/web in a React 19 app', () => {
  it('type-checks, bundles, keeps typed input across parent renders, and answers', async () => {
    expect(example).toBeDefined();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'ask.tsx'), example as string);
    writeFileSync(join(dir, 'main.tsx'), main);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    // Types: the TSX names the elements' props and event; a wrong prop must fail.
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
      stdio: 'pipe',
    });
    writeFileSync(
      join(dir, 'wrong.tsx'),
      `import 'elicit/web';\nimport type {} from 'elicit/web/react';\nexport const x = <elicit-form request={{ server: 1 }} />;\n`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ ...tsconfig, files: ['main.tsx', 'wrong.tsx'] }),
    );
    let reported = '';
    try {
      execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
        stdio: 'pipe',
      });
    } catch (error) {
      reported = String((error as { stdout?: Buffer }).stdout);
    }
    expect(reported).toMatch(/wrong\.tsx.*error TS2322/);

    const bundled = await build({
      entryPoints: [join(dir, 'main.tsx')],
      bundle: true,
      write: false,
      format: 'esm',
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
      alias: { 'elicit/web': join(root, 'src/web/index.ts') },
      external: ['elicit/web/react'],
      logLevel: 'silent',
    });
    const code = bundled.outputFiles[0]?.text ?? '';
    expect(code).not.toContain('elicit/web/react'); // types only: nothing to load
    server = createServer((req, res) => {
      if (req.url === '/app.js')
        return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
      res
        .writeHead(200, { 'content-type': 'text/html', 'content-security-policy': STRICT_CSP })
        .end(
          '<!doctype html><html lang="en"><meta charset="utf-8"><title>React host</title><div id="root"></div><script type="module" src="/app.js"></script></html>',
        );
    });
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      await page.fill('elicit-form >> input[name=name]', 'Ada');
      const tick = Number(await page.getAttribute('main', 'data-tick'));
      await page.waitForFunction(
        (t) => Number(document.querySelector('main')?.dataset.tick) > t + 3,
        tick,
      );
      expect(await page.inputValue('elicit-form >> input[name=name]')).toBe('Ada');
      await page.click('elicit-form >> label:has-text("aisle")');
      await page.click('elicit-form >> [part=submit]');
      await page.click('elicit-form >> [part=submit]');
      await page.waitForFunction(() => (window as unknown as { answer?: unknown }).answer);
      expect(await page.evaluate(() => (window as unknown as { answer: unknown }).answer)).toEqual({
        action: 'accept',
        content: { name: 'Ada', seat: 'aisle' },
      });
      expect(
        await page.evaluate(
          () =>
            document.querySelector('elicit-form')?.shadowRoot?.querySelector('[part=outcome]')
              ?.textContent,
        ),
      ).toBe('Sent.');
    } finally {
      await browser.close();
    }
  }, 120_000);
});
