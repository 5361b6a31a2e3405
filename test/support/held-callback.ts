import { getRequestListener } from '@hono/node-server';

type Fetch = (
  req: Request,
  env: { incoming: unknown; outgoing: unknown },
) => Response | Promise<Response>;

/**
 * A request listener for the connect pages that, when armed, captures the next request to `path`
 * (a provider's redirect back) instead of serving it, so a test can replay it, altered or from
 * another browser.
 */
export function holdingListener(path: string, fetch: Fetch) {
  let hold: ((url: URL) => void) | undefined;
  return {
    listener: getRequestListener((req, env) => {
      if (hold !== undefined && new URL(req.url).pathname === path) {
        hold(new URL(req.url));
        return new Response('held');
      }
      return fetch(req, env as never);
    }),
    /** The next request to `path`, which is not served. */
    next(): Promise<URL> {
      return new Promise((resolve) => {
        hold = (url) => {
          hold = undefined;
          resolve(url);
        };
      });
    },
  };
}
