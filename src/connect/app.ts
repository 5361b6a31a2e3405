/**
 * `createConnectApp`: the web side of URL mode, a Hono app to mount beside the MCP endpoint.
 *
 *   GET  /elicit/<id>             the connect page: same-user check, then OAuth or the secret form
 *   POST /elicit/<id>/secret      the secret form (CSRF token + Origin/Fetch-Metadata checks)
 *   POST /elicit/<id>/decline     the person says no
 *   GET  /elicit/oauth/callback   the third-party authorization server comes back here
 *   /elicit/login…                the pluggable login (rate-limited per client address)
 *   POST /elicit/logout           sign out (CSRF token + Origin/Fetch-Metadata checks)
 *
 * Every POST is checked for its origin first, then its body is read within `limits.bodyBytes`
 * while it streams in, and only then parsed.
 * A link opened by anyone but the user who asked is refused with the same page as an unknown
 * id, stores nothing and never reaches the provider; the event is logged.
 */
import { type Context, Hono, type Next } from 'hono';
import { ElicitError } from '../errors.ts';
import { ELICIT_CONNECT_INSECURE } from '../kernel/error-codes.ts';
import { TokenBuckets } from '../kernel/rate-limit.ts';
import type { Store } from '../kernel/store.ts';
import type { UrlPort } from '../server/url-port.ts';
import { readForm } from './body.ts';
import type { CompletionBus } from './completion.ts';
import { providerConnection } from './connection.ts';
import { AddressBuckets, type ConnectLimits, connectLimits } from './limits.ts';
import type { Login, LoginEvent } from './login.ts';
import { newState, newVerifier, OAuthFlowError, Provider, type ProviderConfig } from './oauth.ts';
import { done, escapeHtml, failed, notAvailable, render, type Who } from './pages.ts';
import type { Records, UrlRecord } from './records.ts';
import { type BrowserSession, browserBinding, Sessions, whoOf } from './sessions.ts';
import { type Vault, vaultEntryName } from './vault.ts';

export type ConnectEvent =
  | { type: 'principal_mismatch'; id: string; record: string; browser: string }
  | { type: 'unknown_link'; id: string }
  | { type: 'oauth_refused'; reason: string }
  | { type: 'csrf_refused'; id: string }
  | { type: 'completed'; id: string; purpose: string }
  | { type: 'login_rate_limited'; address: string }
  | LoginEvent;

export interface ConnectOptions {
  /** The public origin of these pages, e.g. https://mcp.example.com (http only on loopback). */
  readonly baseUrl: string;
  readonly store: Store;
  readonly records: Records;
  readonly vault: Vault;
  readonly bus: CompletionBus;
  readonly providers: Readonly<Record<string, ProviderConfig>>;
  readonly login: Login;
  readonly log?: (event: ConnectEvent) => void;
  /** Lifetime of stored tokens and secrets (also after a refresh); default 90 days. */
  readonly vaultTtlMs?: number;
  /** Body size, sign-in rate and sign-in transaction limits; see DEFAULT_CONNECT_LIMITS. */
  readonly limits?: Partial<ConnectLimits>;
  /**
   * The client address the sign-in rate limit is kept by. Default: the socket's remote address
   * when served by @hono/node-server (pass its env to `fetch`). Behind a reverse proxy, return
   * the address the proxy reports, and make sure only the proxy can reach these pages.
   */
  readonly clientAddress?: (req: Request, env: unknown) => string | undefined;
}

/** The connect pages; also the server's URL-mode port (pass it as createServer's connect.app). */
export interface ConnectApp extends UrlPort {
  readonly app: Hono;
  readonly store: Store;
  readonly records: Records;
  readonly vault: Vault;
  readonly bus: CompletionBus;
  /** Serves a request; `env` is the server's bindings (@hono/node-server: `{ incoming }`). */
  fetch(req: Request, env?: unknown): Promise<Response>;
  readonly providers: ReadonlyMap<string, Provider>;
  /** The link for a record. */
  link(id: string): string;
  readonly redirectUri: string;
  /** Lifetime of vault entries, kept when a token is refreshed. */
  readonly vaultTtlMs: number;
  readonly limits: ConnectLimits;
}

interface OAuthTx {
  readonly recordId: string;
  readonly provider: string;
  readonly verifier: string;
  readonly browser: string;
}

function redirect(location: string): Response {
  return new Response(null, {
    status: 303,
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  });
}

/** createConnectApp was given options it cannot serve safely. */
export class ConnectConfigError extends ElicitError {}

export function createConnectApp(options: ConnectOptions): ConnectApp {
  const baseUrl = new URL(options.baseUrl);
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(baseUrl.hostname);
  if (baseUrl.protocol !== 'https:' && !loopback)
    throw new ConnectConfigError(
      ELICIT_CONNECT_INSECURE,
      `createConnectApp: baseUrl ${baseUrl.origin} is neither https nor loopback; serve the connect pages over https, or on 127.0.0.1, localhost or [::1] while developing.`,
    );
  const sessions = new Sessions(options.store, baseUrl);
  const limits = connectLimits(options.limits);
  const providers = new Map(
    Object.entries(options.providers).map(([name, cfg]) => [name, new Provider(name, cfg)]),
  );
  const redirectUri = new URL('/elicit/oauth/callback', baseUrl).href;
  const log = options.log ?? (() => {});
  const guesses = new TokenBuckets({ capacity: 20, perMinute: 30 });
  const logins = new AddressBuckets(limits);
  const clientAddress =
    options.clientAddress ??
    ((_req: Request, env: unknown) =>
      (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket
        ?.remoteAddress);
  const vaultTtl = options.vaultTtlMs ?? 90 * 24 * 60 * 60_000;
  const app = new Hono();

  // Fetch Metadata first (every current browser sends it); Origin when present must match.
  const sameOrigin = (req: Request): boolean => {
    const site = req.headers.get('sec-fetch-site');
    if (site !== null && site !== 'same-origin') return false;
    const origin = req.headers.get('origin');
    if (origin !== null && origin !== baseUrl.origin) return false;
    return site !== null || origin !== null;
  };
  const safeNext = (next: string | undefined): string =>
    next !== undefined && /^\/elicit\/[A-Za-z0-9_-]{22}$/.test(next) ? next : '/elicit/';

  const whoIs = async (req: Request): Promise<Who | null> =>
    whoOf(await sessions.current(req.headers.get('cookie')));

  // Sign-ins are unauthenticated and reach the store and the identity provider: per address,
  // a few at once and a steady trickle after that.
  const limitLogin = async (c: Context, next: Next) => {
    const address = clientAddress(c.req.raw, c.env) ?? 'unknown';
    if (!logins.take(address)) {
      log({ type: 'login_rate_limited', address });
      const res = failed('Too many sign-in attempts; wait a minute.', await whoIs(c.req.raw), 429);
      res.headers.set('retry-after', '60');
      return res;
    }
    await next();
  };
  // Matches /elicit/login itself too.
  app.use('/elicit/login/*', limitLogin);

  options.login.mount(app, {
    sessions,
    store: options.store,
    baseUrl,
    limits,
    safeNext,
    sameOrigin,
    readForm: (req, who) => readForm(req, limits.bodyBytes, who),
    log,
  });

  /**
   * A record's end, once: finished in the store, then announced on the bus (to every replica).
   * False when it had already ended, so a replayed callback changes nothing.
   */
  async function settle(id: string, status: 'complete' | 'declined'): Promise<boolean> {
    if ((await options.records.finish(id, status)) === undefined) return false;
    await options.bus.publish({ id, status });
    return true;
  }

  app.post('/elicit/logout', async (c) => {
    const session = await sessions.current(c.req.header('cookie'));
    if (!sameOrigin(c.req.raw))
      return failed('This form was not sent from this page.', whoOf(session), 403);
    if (session === undefined) return redirect('/elicit/');
    const form = await readForm(c.req.raw, limits.bodyBytes, whoOf(session));
    if (form instanceof Response) return form;
    if (form.get('csrf') !== session.csrf) {
      log({ type: 'csrf_refused', id: 'logout' });
      return failed('This form was not sent from this page.', whoOf(session), 403);
    }
    const cleared = await sessions.end(session);
    const next = safeNext(form.get('next') ?? undefined);
    // A page, not a redirect: the sign-in goes to another origin, which CSP form-action forbids
    // as the end of a form's redirect chain.
    const res = render({
      title: 'Signed out',
      who: null,
      body:
        next === '/elicit/'
          ? '<h1>Signed out</h1><p class="muted">Open the link from your assistant again to continue.</p>'
          : `<h1>Signed out</h1><p class="box"><a id="sign-in" href="${escapeHtml(options.login.start(next))}">Sign in again</a></p>`,
    });
    res.headers.append('set-cookie', cleared);
    return res;
  });

  // Where a sign-in with no link to return to lands.
  app.get('/elicit/', async (c) =>
    render({
      title: 'Connect',
      who: await whoIs(c.req.raw),
      body: '<h1>Nothing to do here</h1><p class="muted">Open the link from your assistant to continue.</p>',
    }),
  );

  const unavailable = (id: string, who: Who | null): Response => {
    log({ type: 'unknown_link', id: id.slice(0, 40) });
    if (!guesses.take('global')) return failed('Too many attempts; wait a minute.', who, 429);
    return notAvailable(who);
  };

  /** The record and session for a request, or the response that refuses it. */
  async function gate(
    id: string,
    req: Request,
  ): Promise<{ record: UrlRecord; session: BrowserSession } | Response> {
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

  app.get('/elicit/oauth/callback', async (c) => {
    const current = new URL(c.req.url);
    const state = current.searchParams.get('state') ?? '';
    const tx =
      state === ''
        ? undefined
        : ((await options.store.take<never>(`oauth:${state}`))?.value as OAuthTx | undefined);
    const session = await sessions.current(c.req.header('cookie'));
    const who = whoOf(session);
    if (tx === undefined) {
      log({ type: 'oauth_refused', reason: 'unknown or reused state' });
      return failed(
        'This sign-in response is not expected here (it may have been used already).',
        who,
      );
    }
    if (session === undefined || browserBinding(session) !== tx.browser) {
      log({ type: 'oauth_refused', reason: 'state from another browser' });
      return failed('This sign-in was started in another browser.', who, 403);
    }
    const record = await options.records.get(tx.recordId);
    if (
      record === undefined ||
      record.status !== 'pending' ||
      record.principal !== session.principal
    )
      return notAvailable(who);
    const provider = providers.get(tx.provider);
    if (provider === undefined) return notAvailable(who);
    try {
      const tokens = await provider.exchange(current, state, redirectUri, tx.verifier);
      await options.vault.put(
        { principal: record.principal, provider: vaultEntryName('connect', provider.name) },
        tokens as never,
        vaultTtl,
      );
    } catch (error) {
      log({
        type: 'oauth_refused',
        reason: error instanceof OAuthFlowError ? error.code : 'exchange failed',
      });
      return failed(
        error instanceof OAuthFlowError ? error.message : 'The sign-in could not be completed.',
        who,
      );
    }
    if (await settle(record.id, 'complete'))
      log({ type: 'completed', id: record.id, purpose: record.purpose });
    return done(`${provider.name} is connected.`, who);
  });

  app.get('/elicit/:id', async (c) => {
    const id = c.req.param('id');
    const checked = await gate(id, c.req.raw);
    if (checked instanceof Response) return checked;
    const { record, session } = checked;
    const who = whoOf(session);
    if (record.purpose === 'connect') {
      const provider = providers.get(record.subject);
      if (provider === undefined) return notAvailable(who);
      const state = newState();
      const verifier = newVerifier();
      let url: URL;
      try {
        url = await provider.authorizationUrl(redirectUri, state, verifier);
      } catch (error) {
        return failed(
          error instanceof OAuthFlowError
            ? error.message
            : 'The provider is not reachable right now.',
          who,
          502,
        );
      }
      const tx: OAuthTx = {
        recordId: record.id,
        provider: provider.name,
        verifier,
        browser: browserBinding(session),
      };
      await options.store.create(`oauth:${state}`, tx as never, { ttlMs: 10 * 60_000 });
      // A page with a link rather than an instant redirect: the person sees where they are going,
      // and the navigation to the provider is their own click (CSP form-action stays 'self').
      const label = escapeHtml(record.label ?? provider.name);
      return render({
        title: `Connect ${record.label ?? provider.name}`,
        who,
        body: `<h1>Connect ${label}</h1>${record.description === undefined ? '' : `<p>${escapeHtml(record.description)}</p>`}
<p>You will sign in at <strong>${escapeHtml(url.host)}</strong> and allow access. Your assistant never sees your password or tokens.</p>
<p class="box"><a id="continue" href="${escapeHtml(url.href)}">Continue to ${escapeHtml(url.host)}</a></p>
<form method="post" action="/elicit/${escapeHtml(record.id)}/decline"><input type="hidden" name="csrf" value="${escapeHtml(session.csrf)}"><button type="submit">No thanks</button></form>`,
      });
    }
    const label = escapeHtml(record.label ?? record.subject);
    return render({
      title: `Enter ${record.label ?? record.subject}`,
      who,
      body: `<h1>${label}</h1>${record.description === undefined ? '' : `<p>${escapeHtml(record.description)}</p>`}
<p class="muted">This goes straight to the server that asked, encrypted. Your assistant never sees it.</p>
<form method="post" action="/elicit/${escapeHtml(record.id)}/secret" class="box" autocomplete="off">
<label for="secret">${label}</label><input id="secret" name="secret" type="password" required maxlength="4096">
<input type="hidden" name="csrf" value="${escapeHtml(session.csrf)}"><button type="submit">Save</button></form>
<form method="post" action="/elicit/${escapeHtml(record.id)}/decline"><input type="hidden" name="csrf" value="${escapeHtml(session.csrf)}"><button type="submit">No thanks</button></form>`,
    });
  });

  const posted = async (
    id: string,
    req: Request,
  ): Promise<{ record: UrlRecord; session: BrowserSession; form: URLSearchParams } | Response> => {
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
  };

  app.post('/elicit/:id/secret', async (c) => {
    const checked = await posted(c.req.param('id'), c.req.raw);
    if (checked instanceof Response) return checked;
    const { record, form } = checked;
    const who = whoOf(checked.session);
    if (record.purpose !== 'secret') return notAvailable(who);
    const secret = form.get('secret') ?? '';
    if (secret.length === 0 || secret.length > 4096)
      return failed('Enter a value of at most 4096 characters.', who);
    await options.vault.put(
      { principal: record.principal, provider: vaultEntryName('secret', record.subject) },
      secret,
      vaultTtl,
    );
    if (await settle(record.id, 'complete'))
      log({ type: 'completed', id: record.id, purpose: record.purpose });
    return done(`${record.label ?? record.subject} is saved.`, who);
  });

  app.post('/elicit/:id/decline', async (c) => {
    const checked = await posted(c.req.param('id'), c.req.raw);
    if (checked instanceof Response) return checked;
    await settle(checked.record.id, 'declined');
    return done('Nothing was saved.', whoOf(checked.session));
  });

  return {
    app,
    store: options.store,
    records: options.records,
    vault: options.vault,
    bus: options.bus,
    fetch: (req, env) => Promise.resolve(app.fetch(req, env)),
    providers,
    link: (id) => new URL(`/elicit/${id}`, baseUrl).href,
    hasProvider: (name) => providers.has(name),
    readEntry: (principal, purpose, subject) =>
      options.vault.get({ principal, provider: vaultEntryName(purpose, subject) }),
    connection: (principal, provider) =>
      providerConnection(options.vault, providers, vaultTtl, principal, provider),
    redirectUri,
    vaultTtlMs: vaultTtl,
    limits,
  };
}
