/**
 * The inbox page's script (src/web/inbox-page.ts, browser), for the two places that serve an
 * inbox: the gateway's and the connect pages'. Neither may import the elements (the layering
 * table), and neither needs to: they serve the page's bundle as text. A package has it prebuilt
 * in dist/browser/inbox.js; a clone bundles the source on first request (rolldown, which tsdown
 * brings), once per process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let script: Promise<string> | undefined;

/** Where the built bundle may be, from this module: a bundler may put it in an entry or a chunk. */
const BUILT = ['../browser/inbox.js', './browser/inbox.js'];

/** The page's script as served: `<script type="module" src=…>` under a CSP of `script-src 'self'`. */
export function inboxPageScript(): Promise<string> {
  for (const path of BUILT) {
    const built = fileURLToPath(new URL(path, import.meta.url));
    if (existsSync(built)) return Promise.resolve(readFileSync(built, 'utf8'));
  }
  script ??= (async () => {
    const { rolldown } = await import('rolldown');
    const bundle = await rolldown({
      input: fileURLToPath(new URL('../web/inbox-page.ts', import.meta.url)),
      platform: 'browser',
    });
    const { output } = await bundle.generate({ format: 'esm', minify: true });
    return (output[0] as { code: string }).code;
  })();
  return script;
}
