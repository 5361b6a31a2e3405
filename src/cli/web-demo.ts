/**
 * `elicit demo --web`: the demo stack plus a browser host page on the same loopback origin.
 * The page's script is the prebuilt dist/browser/host.js when present, otherwise bundled from
 * source on first request (development).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DemoStack, startDemo } from '../demo/internal.ts';
import { HOST_CSP, HOST_CSS, HOST_PAGE } from '../web/internal.ts';

let bundled: Promise<string> | undefined;
async function hostScript(): Promise<string> {
  const built = fileURLToPath(new URL('../browser/host.js', import.meta.url));
  if (existsSync(built)) return readFileSync(built, 'utf8');
  bundled ??= (async () => {
    const { rolldown } = await import('rolldown');
    const bundle = await rolldown({
      input: fileURLToPath(new URL('../web/host/main.ts', import.meta.url)),
      platform: 'browser',
    });
    const { output } = await bundle.generate({ format: 'esm', minify: true });
    return (output[0] as { code: string }).code;
  })();
  return bundled;
}

const headers = (type: string) => ({
  'content-type': type,
  'content-security-policy': HOST_CSP,
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
});

export function startWebDemo(options: { dir?: string; port?: number } = {}): Promise<DemoStack> {
  return startDemo({
    ...options,
    assets: async (req) => {
      const path = new URL(req.url).pathname;
      if (path === '/')
        return new Response(HOST_PAGE, { headers: headers('text/html; charset=utf-8') });
      if (path === '/host.css') return new Response(HOST_CSS, { headers: headers('text/css') });
      if (path === '/host.js')
        return new Response(await hostScript(), { headers: headers('text/javascript') });
      return new Response('not found', { status: 404 });
    },
  });
}
