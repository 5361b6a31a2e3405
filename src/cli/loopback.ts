/**
 * The one-shot loopback redirect of a terminal sign-in (RFC 8252 §7.3): an HTTP server on
 * 127.0.0.1 that waits for the authorization server to send the browser back. Only a GET on
 * the exact path, addressed to the exact host, carrying the exact `state` settles it; anything
 * else is answered and ignored (up to a limit, so a local process cannot keep it busy). It
 * closes after that one request or the timeout, whichever comes first.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ElicitError } from '../errors.ts';
import {
  ELICIT_SIGNIN_CLOSED,
  ELICIT_SIGNIN_STRAY_REQUESTS,
  ELICIT_SIGNIN_TIMEOUT,
} from '../kernel/error-codes.ts';

export class SignInError extends ElicitError {}

export interface LoopbackOptions {
  /** The state sent with the authorization request; the callback must carry it unchanged. */
  readonly state: string;
  readonly path: string;
  /** Port to try first (the one registered earlier); 0 or busy: any free port. */
  readonly port: number;
  readonly timeoutMs: number;
  /** Requests that do not settle the flow before it gives up. */
  readonly maxStrayRequests: number;
}

export interface Loopback {
  readonly port: number;
  readonly redirectUrl: string;
  /** The callback's query (code, state, iss, or error): resolves once, rejects on timeout/close. */
  readonly result: Promise<URLSearchParams>;
  close(): void;
}

// Fixed pages: nothing from the request or the authorization server is reflected.
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};
function page(res: ServerResponse, status: number, title: string, text: string): void {
  res
    .writeHead(status, PAGE_HEADERS)
    .end(
      `<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${text}</p>`,
    );
}

function bind(port: number): Promise<ReturnType<typeof createServer>> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

export async function startLoopback(o: LoopbackOptions): Promise<Loopback> {
  let server: ReturnType<typeof createServer>;
  try {
    server = await bind(o.port);
  } catch (error) {
    if (o.port === 0 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    // Authorization servers must accept any port on a loopback redirect (RFC 8252 §7.3).
    server = await bind(0);
  }
  const port = (server.address() as AddressInfo).port;
  const host = `127.0.0.1:${port}`;
  const redirectUrl = `http://${host}${o.path}`;
  let settle: { resolve(p: URLSearchParams): void; reject(e: Error): void } | undefined;
  const result = new Promise<URLSearchParams>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // A rejection nobody awaited yet (timeout before the host waits) must not crash the process.
  result.catch(() => {});
  let strays = 0;
  const finish = (error?: Error, params?: URLSearchParams) => {
    clearTimeout(timer);
    server.close();
    server.closeIdleConnections();
    const s = settle;
    settle = undefined;
    if (s === undefined) return;
    if (error !== undefined) s.reject(error);
    else s.resolve(params as URLSearchParams);
  };
  const timer = setTimeout(
    () =>
      finish(
        new SignInError(
          ELICIT_SIGNIN_TIMEOUT,
          `Sign-in was not completed within ${Math.round(o.timeoutMs / 1000)} s; run the command again to retry.`,
        ),
      ),
    o.timeoutMs,
  );
  timer.unref();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', `http://${host}`);
    const good =
      settle !== undefined &&
      req.method === 'GET' &&
      req.headers.host === host &&
      url.pathname === o.path &&
      url.searchParams.get('state') === o.state;
    if (!good) {
      page(res, 400, 'Not a sign-in for this terminal', 'This address only completes a sign-in.');
      if (++strays > o.maxStrayRequests)
        finish(
          new SignInError(
            ELICIT_SIGNIN_STRAY_REQUESTS,
            `The sign-in listener on ${host} received ${strays} requests that were not the expected callback; it stopped. Run the command again to retry.`,
          ),
        );
      return;
    }
    const failed = url.searchParams.has('error') || !url.searchParams.has('code');
    res.once('finish', () => finish(undefined, url.searchParams));
    if (failed) page(res, 400, 'Sign-in did not complete', 'Return to the terminal for details.');
    else page(res, 200, 'Signed in', 'You can close this tab and return to the terminal.');
  });
  return {
    port,
    redirectUrl,
    result,
    close: () =>
      finish(
        new SignInError(ELICIT_SIGNIN_CLOSED, 'The sign-in was abandoned before it completed.'),
      ),
  };
}
