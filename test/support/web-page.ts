/** Serves the elements (bundled from source in memory) on a loopback test page. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rolldown } from 'rolldown';

export async function bundle(input: string): Promise<string> {
  const b = await rolldown({ input, platform: 'browser' });
  const { output } = await b.generate({ format: 'esm' });
  return (output[0] as { code: string }).code;
}

/** The strictest policy the elements work under: scripts and styles from the page's origin only. */
export const STRICT_CSP = "default-src 'none'; script-src 'self'; style-src 'self'";

export async function startTestPage(options: { csp?: string } = {}): Promise<{
  url: string;
  hits: string[];
  close(): Promise<void>;
}> {
  const elements = await bundle('src/web/index.ts');
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/elements.js')
      return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(elements);
    if (req.url === '/') {
      return void res
        .writeHead(200, {
          'content-type': 'text/html',
          'content-security-policy': options.csp ?? STRICT_CSP,
        })
        .end(
          '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>elements</title><script type="module" src="/elements.js"></script></head><body><main id="root"></main></body></html>',
        );
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    hits,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
