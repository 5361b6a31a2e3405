/**
 * How a browser proves who it is to the connect pages. Pluggable: `oidcLogin` signs in with
 * the server's own OpenID provider (production: the same identity as MCP authorization);
 * `devLogin` is a documented development stand-in with no password.
 *
 * Whatever the login, a browser that is already signed in is never switched to another identity
 * silently: it gets a page naming both and asking to sign out first.
 */
import type { Hono } from 'hono';
import { tokenPrincipal } from '../kernel/keys.ts';
import { callbackState, OidcLoginError, type OidcOptions, OidcSignIn } from '../kernel/oidc.ts';
import type { Store } from '../kernel/store.ts';
import type { ConnectLimits } from './limits.ts';
import { admitLogin } from './limits.ts';
import { escapeHtml, failed, render, type Who } from './pages.ts';
import { type BrowserSession, type Sessions, whoOf } from './sessions.ts';

export type LoginEvent =
  | { type: 'login_refused'; reason: 'other_browser' | 'expired' | 'busy' | 'failed' }
  | { type: 'login_switch_refused'; current: string; presented: string };

export interface LoginContext {
  readonly sessions: Sessions;
  readonly store: Store;
  readonly baseUrl: URL;
  readonly limits: ConnectLimits;
  /** Only paths under the connect pages are allowed as return targets (no open redirect). */
  safeNext(next: string | undefined): string;
  sameOrigin(req: Request): boolean;
  /** The request's form fields within the body limit, or the page that refuses it. */
  readForm(req: Request, who: Who | null): Promise<URLSearchParams | Response>;
  log(event: LoginEvent): void;
}

export interface Login {
  /** Path to send a browser without a session to. */
  start(next: string): string;
  mount(app: Hono, ctx: LoginContext): void;
}

function redirect(location: string, ...cookies: string[]): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  return new Response(null, { status: 303, headers });
}

/**
 * Ends a sign-in: a new session, or the same one when it is the same identity, or, when the
 * browser is signed in as someone else, a page that says so and offers to sign out first.
 */
async function finishSignIn(
  ctx: LoginContext,
  current: BrowserSession | undefined,
  principal: string,
  name: string,
  next: string,
  ...cookies: string[]
): Promise<Response> {
  if (current !== undefined && current.principal === principal) return redirect(next, ...cookies);
  if (current !== undefined) {
    ctx.log({ type: 'login_switch_refused', current: current.principal, presented: principal });
    const page = render({
      title: 'Signed in as someone else',
      status: 409,
      who: whoOf(current),
      body: `<h1>You are already signed in</h1><p>This browser is signed in as <strong><bdi>${escapeHtml(current.name)}</bdi></strong>, but this sign-in is for <strong><bdi>${escapeHtml(name.slice(0, 200))}</bdi></strong>. Nothing was changed.</p>
<p class="muted">If you did not just sign in yourself, someone may have sent you their sign-in link: keep your account and close this tab.</p>
<form method="post" action="/elicit/logout" class="box"><input type="hidden" name="csrf" value="${escapeHtml(current.csrf)}"><input type="hidden" name="next" value="${escapeHtml(next)}">
<p>To use the other account, sign out of <strong><bdi>${escapeHtml(current.name)}</bdi></strong> first, then sign in again.</p><button type="submit" class="primary">Sign out and sign in again</button></form>`,
    });
    for (const cookie of cookies) page.headers.append('set-cookie', cookie);
    return page;
  }
  const { cookie } = await ctx.sessions.create(principal, name);
  return redirect(next, ...cookies, cookie);
}

/**
 * Development login: pick a user name, no password. The principal is `["dev","<name>"]` (as a
 * token with issuer `dev` and that subject would be), or a fixed
 * principal (the demo uses `local`, matching an unauthenticated local MCP server). Never use it
 * where others can reach the pages.
 */
export function devLogin(options: { fixedPrincipal?: string } = {}): Login {
  return {
    start: (next) => `/elicit/login?next=${encodeURIComponent(next)}`,
    mount(app, ctx) {
      app.get('/elicit/login', async (c) => {
        const next = ctx.safeNext(c.req.query('next'));
        const current = await ctx.sessions.current(c.req.header('cookie'));
        const who =
          options.fixedPrincipal === undefined
            ? '<label for="user">User name</label><input id="user" name="user" required maxlength="64" pattern="[A-Za-z0-9_.@-]+" autocomplete="username">'
            : `<p>Continue as <strong><bdi>${escapeHtml(options.fixedPrincipal)}</bdi></strong>, the local user.</p>`;
        return render({
          title: 'Sign in (development)',
          who: whoOf(current),
          body: `<h1>Sign in</h1><p class="muted">Development sign-in: no password.</p><form method="post" action="/elicit/login" class="box">${who}<input type="hidden" name="next" value="${escapeHtml(next)}"><button type="submit" class="primary">Continue</button></form>`,
        });
      });
      app.post('/elicit/login', async (c) => {
        const current = await ctx.sessions.current(c.req.header('cookie'));
        if (!ctx.sameOrigin(c.req.raw))
          return failed('This sign-in came from another site.', whoOf(current), 403);
        const form = await ctx.readForm(c.req.raw, whoOf(current));
        if (form instanceof Response) return form;
        const user = form.get('user') ?? '';
        if (options.fixedPrincipal === undefined && !/^[A-Za-z0-9_.@-]{1,64}$/.test(user))
          return failed(
            'Choose a user name of letters, digits, "_", ".", "@" or "-".',
            whoOf(current),
          );
        const principal = options.fixedPrincipal ?? tokenPrincipal('dev', user);
        return finishSignIn(
          ctx,
          current,
          principal,
          options.fixedPrincipal ?? user,
          ctx.safeNext(form.get('next') ?? ''),
        );
      });
    },
  };
}

/** Which OpenID provider signs people in to the connect pages (one declaration with the gateway's). */
export type OidcLoginOptions = OidcOptions;

interface LoginTx {
  readonly verifier: string;
  readonly nonce: string;
  readonly next: string;
  /** SHA-256 of the login cookie of the browser that started this sign-in. */
  readonly binding: string;
}

/**
 * Sign-in with OpenID Connect (code flow, PKCE S256, nonce; kernel/oidc.ts); the principal is
 * issuer and subject joined as the MCP server joins a token's (`["<iss>","<sub>"]`), so the same
 * person is the same principal on both sides.
 * The transaction is single-use, expires with `limits.loginTtlMs`, and is bound to the browser
 * that started it by a login cookie: a callback link replayed in another browser signs no one in.
 */
export function oidcLogin(options: OidcLoginOptions): Login {
  const flow = new OidcSignIn(options);
  return {
    start: (next) => `/elicit/login?next=${encodeURIComponent(next)}`,
    mount(app, ctx) {
      const redirectUri = new URL('/elicit/login/callback', ctx.baseUrl).href;
      const ttlMs = ctx.limits.loginTtlMs;
      app.get('/elicit/login', async (c) => {
        const cookieHeader = c.req.header('cookie');
        const next = ctx.safeNext(c.req.query('next'));
        const current = await ctx.sessions.current(cookieHeader);
        if (!(await admitLogin(ctx.store, ctx.limits))) {
          ctx.log({ type: 'login_refused', reason: 'busy' });
          return failed(
            'Too many sign-ins are in progress; try again in a few minutes.',
            whoOf(current),
            503,
          );
        }
        const { url, state, pending } = await flow.start(redirectUri);
        const { cookie, binding } = ctx.sessions.startLogin(cookieHeader, ttlMs);
        const tx: LoginTx = { ...pending, next, binding };
        await ctx.store.create(`login:${state}`, { ...tx }, { ttlMs });
        return redirect(url.href, cookie);
      });
      app.get('/elicit/login/callback', async (c) => {
        const cookieHeader = c.req.header('cookie');
        const current = await ctx.sessions.current(cookieHeader);
        const who = whoOf(current);
        const callback = new URL(c.req.url);
        const state = callbackState(callback);
        const tx =
          state === undefined
            ? undefined
            : ((await ctx.store.take<never>(`login:${state}`))?.value as LoginTx | undefined);
        if (state === undefined || tx === undefined) {
          ctx.log({ type: 'login_refused', reason: 'expired' });
          return failed('This sign-in has expired or was already used.', who);
        }
        if (!ctx.sessions.startedHere(cookieHeader, tx.binding)) {
          ctx.log({ type: 'login_refused', reason: 'other_browser' });
          return failed(
            'This sign-in was started in another browser, so it does not sign you in here. If someone sent you this link, close this tab.',
            who,
            403,
          );
        }
        try {
          const person = await flow.finish(callback, state, tx, redirectUri);
          return finishSignIn(
            ctx,
            current,
            tokenPrincipal(person.issuer, person.subject),
            person.name,
            tx.next,
            ctx.sessions.clearLogin(),
          );
        } catch (error) {
          ctx.log({ type: 'login_refused', reason: 'failed' });
          // The flow's own errors say what failed and carry their code; anything else is named.
          const said =
            error instanceof OidcLoginError
              ? `${error.message} (${error.code})`
              : `Sign-in failed: ${(error as Error).message}`;
          return failed(said, who);
        }
      });
    },
  };
}
