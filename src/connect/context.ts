/**
 * What every connect route shares: the options resolved once, and the checks a request passes
 * before a route acts on it (origin, session, the record and its owner, the CSRF token of a
 * POST), plus a record's one-time end. Kept apart from the routes so each route file reads as
 * what the page does, with the refusals already decided here.
 */
import type { Context, Next } from 'hono';
import { TokenBuckets } from '../kernel/rate-limit.ts';
import { readForm } from './body.ts';
import { AddressBuckets, type ConnectLimits, connectLimits } from './limits.ts';
import { Provider } from './oauth.ts';
import type { ConnectAppOptions, ConnectEvent } from './options.ts';
import { failed, notAvailable, type Who } from './pages.ts';
import type { UrlRecord } from './records.ts';
import { type BrowserSession, Sessions, whoOf } from './sessions.ts';

export interface PagesContext {
  readonly options: ConnectAppOptions;
  readonly baseUrl: URL;
  readonly sessions: Sessions;
  readonly limits: ConnectLimits;
  readonly providers: ReadonlyMap<string, Provider>;
  readonly redirectUri: string;
  readonly vaultTtl: number;
  readonly log: (event: ConnectEvent) => void;
  /** Fetch Metadata first (every current browser sends it); Origin when present must match. */
  sameOrigin(req: Request): boolean;
  /** Where to go after signing in: a link's own page, else the index. */
  safeNext(next: string | undefined): string;
  whoIs(req: Request): Promise<Who | null>;
  /** Per client address: sign-ins are unauthenticated and reach the store and the provider. */
  limitLogin(c: Context, next: Next): Promise<Response | undefined>;
  /** The record and session for a request, or the response that refuses it. */
  gate(id: string, req: Request): Promise<Gated | Response>;
  /** A POST to a record's page: origin, then the gate, then the body within its limit and CSRF. */
  posted(id: string, req: Request): Promise<(Gated & { form: URLSearchParams }) | Response>;
  /**
   * A record's end, once: finished in the store, then announced on the bus (to every replica).
   * False when it had already ended, so a replayed callback changes nothing.
   */
  settle(id: string, status: 'complete' | 'declined'): Promise<boolean>;
}

export interface Gated {
  readonly record: UrlRecord;
  readonly session: BrowserSession;
}

export function redirect(location: string): Response {
  return new Response(null, {
    status: 303,
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  });
}

export function pagesContext(options: ConnectAppOptions, baseUrl: URL): PagesContext {
  const sessions = new Sessions(options.store, baseUrl);
  const limits = connectLimits(options.limits);
  const providers = new Map(
    Object.entries(options.providers).map(([name, cfg]) => [name, new Provider(name, cfg)]),
  );
  const log = options.log ?? (() => {});
  const guesses = new TokenBuckets({ capacity: 20, perMinute: 30 });
  const logins = new AddressBuckets(limits);
  const clientAddress =
    options.clientAddress ??
    ((_req: Request, env: unknown) =>
      (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket
        ?.remoteAddress);

  const sameOrigin = (req: Request): boolean => {
    const site = req.headers.get('sec-fetch-site');
    if (site !== null && site !== 'same-origin') return false;
    const origin = req.headers.get('origin');
    if (origin !== null && origin !== baseUrl.origin) return false;
    return site !== null || origin !== null;
  };
  const whoIs = async (req: Request): Promise<Who | null> =>
    whoOf(await sessions.current(req.headers.get('cookie')));
  const unavailable = (id: string, who: Who | null): Response => {
    log({ type: 'unknown_link', id: id.slice(0, 40) });
    if (!guesses.take('global')) return failed('Too many attempts; wait a minute.', who, 429);
    return notAvailable(who);
  };

  async function gate(id: string, req: Request): Promise<Gated | Response> {
    const session = await sessions.current(req.headers.get('cookie'));
    const record = await options.records.get(id);
    if (record === undefined || record.status !== 'pending') return unavailable(id, whoOf(session));
    if (session === undefined) return redirect(options.login.start(`/elicit/${id}`));
    if (session.principal !== record.principal) {
      log({ type: 'principal_mismatch', id, record: record.principal, browser: session.principal });
      return notAvailable(whoOf(session));
    }
    return { record, session };
  }

  return {
    options,
    baseUrl,
    sessions,
    limits,
    providers,
    redirectUri: new URL('/elicit/oauth/callback', baseUrl).href,
    vaultTtl: options.vaultTtlMs ?? 90 * 24 * 60 * 60_000,
    log,
    sameOrigin,
    safeNext: (next) =>
      next !== undefined && /^\/elicit\/(?:[A-Za-z0-9_-]{22}|inbox)$/.test(next)
        ? next
        : '/elicit/',
    whoIs,
    async limitLogin(c, next) {
      const address = clientAddress(c.req.raw, c.env) ?? 'unknown';
      if (!logins.take(address)) {
        log({ type: 'login_rate_limited', address });
        const res = failed(
          'Too many sign-in attempts; wait a minute.',
          await whoIs(c.req.raw),
          429,
        );
        res.headers.set('retry-after', '60');
        return res;
      }
      await next();
      return undefined;
    },
    gate,
    async posted(id, req) {
      // Origin first: another site's POST is refused before anything is looked up or read.
      if (!sameOrigin(req)) {
        log({ type: 'csrf_refused', id });
        return failed('This form was not sent from this page.', await whoIs(req), 403);
      }
      const checked = await gate(id, req);
      if (checked instanceof Response) return checked;
      const form = await readForm(req, limits.bodyBytes, whoOf(checked.session));
      if (form instanceof Response) return form;
      if (form.get('csrf') !== checked.session.csrf) {
        log({ type: 'csrf_refused', id });
        return failed('This form was not sent from this page.', whoOf(checked.session), 403);
      }
      return { ...checked, form };
    },
    async settle(id, status) {
      if ((await options.records.finish(id, status)) === undefined) return false;
      // The record has ended in the store: a bus that fails now must not make the page say
      // otherwise. Waiting requests read the store too and see the end at their next poll.
      await options.bus.publish({ id, status }).catch((error: unknown) => {
        log({ type: 'store_failed', what: 'completion bus', error });
      });
      return true;
    },
  };
}
