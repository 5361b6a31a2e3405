/**
 * `createConnectApp`: the web side of URL mode, a Hono app to mount beside the MCP endpoint.
 *
 *   GET  /elicit/<id>             the connect page: same-user check, then OAuth or the secret form
 *   POST /elicit/<id>/secret      the secret form (CSRF token + Origin/Fetch-Metadata checks)
 *   POST /elicit/<id>/decline     the person says no
 *   GET  /elicit/oauth/callback   the third-party authorization server comes back here
 *   /elicit/login…                the pluggable login (rate-limited per client address)
 *   POST /elicit/logout           sign out (CSRF token + Origin/Fetch-Metadata checks)
 *   /elicit/inbox…                questions the client could not be asked (inbox.ts)
 *
 * Every POST is checked for its origin first, then its body is read within `limits.bodyBytes`
 * while it streams in, and only then parsed.
 * A link opened by anyone but the user who asked is refused with the same page as an unknown
 * id, stores nothing and never reaches the provider; the event is logged.
 *
 * The checks live in context.ts; the routes in account-routes.ts (index, sign out),
 * oauth-routes.ts (provider page, callback) and secret-routes.ts (secret form, decline).
 */
import { Hono } from 'hono';
import { ElicitError } from '../errors.ts';
import { ELICIT_CONNECT_INSECURE } from '../kernel/error-codes.ts';
import { type Json, type Store, StoreError } from '../kernel/store.ts';
import type { InboxPort, UrlPort } from '../server/url-port.ts';
import { mountAccountRoutes } from './account-routes.ts';
import { readForm } from './body.ts';
import type { CompletionBus } from './completion.ts';
import { providerConnection } from './connection.ts';
import { pagesContext } from './context.ts';
import { InboxRecords, mountInboxRoutes } from './inbox.ts';
import type { ConnectLimits } from './limits.ts';
import type { Provider } from './oauth.ts';
import { mountOAuthCallback, oauthPage } from './oauth-routes.ts';
import type { ConnectAppOptions } from './options.ts';
import { failed, unavailable } from './pages.ts';
import type { UrlRecords } from './records.ts';
import { mountRecordPosts, secretPage } from './secret-routes.ts';
import { recordEntryName, type Vault, vaultEntryName } from './vault.ts';

/** The connect pages; also the server's URL-mode port (pass it as createServer's connect.app). */
export interface ConnectApp extends UrlPort {
  readonly app: Hono;
  readonly store: Store;
  readonly records: UrlRecords;
  readonly vault: Vault;
  readonly bus: CompletionBus;
  /** Serves a request; `env` is the server's bindings (@hono/node-server: `{ incoming }`). */
  fetch(req: Request, env?: unknown): Promise<Response>;
  readonly providers: ReadonlyMap<string, Provider>;
  /** The link for a record. */
  link(id: string): string;
  readonly redirectUri: string;
  /** The inbox: questions a server's client could not be asked (createServer's `inbox`). */
  readonly inbox: InboxPort;
  /** Lifetime of vault entries, kept when a token is refreshed. */
  readonly vaultTtlMs: number;
  readonly limits: ConnectLimits;
}

/** Whether `error` (or what it wraps) is a store that failed. */
function isStoreFailure(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof StoreError) return true;
  return false;
}

/** createConnectApp was given options it cannot serve safely. */
export class ConnectConfigError extends ElicitError {}

export function createConnectApp(options: ConnectAppOptions): ConnectApp {
  const baseUrl = new URL(options.baseUrl);
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(baseUrl.hostname);
  if (baseUrl.protocol !== 'https:' && !loopback)
    throw new ConnectConfigError(
      ELICIT_CONNECT_INSECURE,
      `createConnectApp: baseUrl ${baseUrl.origin} is neither https nor loopback; serve the connect pages over https, or on 127.0.0.1, localhost or [::1] while developing.`,
    );
  const ctx = pagesContext(options, baseUrl);
  const { limits, providers, vaultTtl } = ctx;
  const app = new Hono();

  // Registration order matters: the login's own paths before the record page's `/elicit/:id`.
  app.use('/elicit/login/*', ctx.limitLogin); // matches /elicit/login itself too
  options.login.mount(app, {
    sessions: ctx.sessions,
    store: options.store,
    baseUrl,
    limits,
    safeNext: ctx.safeNext,
    sameOrigin: ctx.sameOrigin,
    readForm: (req, who) => readForm(req, limits.bodyBytes, who),
    log: ctx.log,
  });
  mountAccountRoutes(app, ctx);
  mountOAuthCallback(app, ctx);
  const inbox = new InboxRecords(options.store);
  mountInboxRoutes(app, ctx, inbox);
  app.get('/elicit/:id', async (c) => {
    const checked = await ctx.gate(c.req.param('id'), c.req.raw);
    if (checked instanceof Response) return checked;
    return checked.record.purpose === 'connect'
      ? oauthPage(ctx, checked)
      : secretPage(checked, baseUrl);
  });
  mountRecordPosts(app, ctx);
  // A failing store is a 503 page that says to try again, with nothing of the driver's text;
  // any other error a plain 500 page. Never Hono's bare default, never a stack.
  app.onError((error) => {
    const store = isStoreFailure(error);
    ctx.log(
      store ? { type: 'store_failed', what: 'store', error } : { type: 'page_failed', error },
    );
    return store ? unavailable() : failed('Something went wrong on the server.', null, 500);
  });

  const connectionOf = (principal: string, provider: string, record?: string) =>
    providerConnection(
      options.vault,
      providers,
      vaultTtl,
      principal,
      provider,
      (error) => ctx.log({ type: 'connection_lost', principal, provider, error }),
      record,
    );

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
    readEntry: async (principal, purpose, subject, record) => {
      // A connection whose tokens can no longer be renewed is not a connection: the entry is
      // dropped and the caller sees "not connected" (ask.connect asks again through URL mode).
      if (purpose === 'connect')
        return (await connectionOf(principal, subject, record).usable()) as Json | undefined;
      // A record's value is its own: the entry its page saved, never another record's.
      const provider =
        record === undefined ? vaultEntryName(purpose, subject) : recordEntryName(record);
      return options.vault.get({ principal, provider });
    },
    connection: (principal, provider, record) => connectionOf(principal, provider, record),
    inbox: {
      create: (fields, ttlMs, caps) => inbox.create(fields, ttlMs, caps),
      get: (id) => inbox.get(id),
      find: (principal, call) => inbox.find(principal, call),
      remove: (id) => inbox.remove(id),
      url: new URL('/elicit/inbox', baseUrl).href,
    },
    redirectUri: ctx.redirectUri,
    vaultTtlMs: vaultTtl,
    limits,
  };
}
