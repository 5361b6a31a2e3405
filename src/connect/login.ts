/**
 * How a browser proves who it is to the connect pages. Pluggable: `oidcLogin` signs in with
 * the server's own OpenID provider (production: the same identity as MCP authorization);
 * `devLogin` is a documented development stand-in with no password.
 */
import type { Hono } from 'hono';
import * as oauth from 'oauth4webapi';
import type { Store } from '../store/types.ts';
import { escapeHtml, failed, render } from './pages.ts';
import type { Sessions } from './sessions.ts';

export interface LoginContext {
  readonly sessions: Sessions;
  readonly store: Store;
  readonly baseUrl: URL;
  /** Only paths under the connect pages are allowed as return targets (no open redirect). */
  safeNext(next: string | undefined): string;
  sameOrigin(req: Request): boolean;
}

export interface Login {
  /** Path to send a browser without a session to. */
  start(next: string): string;
  mount(app: Hono, ctx: LoginContext): void;
}

function redirect(location: string, cookie?: string): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  if (cookie !== undefined) headers.set('set-cookie', cookie);
  return new Response(null, { status: 303, headers });
}

/**
 * Development login: pick a user name, no password. The principal is `dev|<name>`, or a fixed
 * principal (the demo uses `local`, matching an unauthenticated local MCP server). Never use it
 * where others can reach the pages.
 */
export function devLogin(options: { fixedPrincipal?: string } = {}): Login {
  return {
    start: (next) => `/elicit/login?next=${encodeURIComponent(next)}`,
    mount(app, ctx) {
      app.get('/elicit/login', (c) => {
        const next = ctx.safeNext(c.req.query('next'));
        const who =
          options.fixedPrincipal === undefined
            ? '<label for="user">User name</label><input id="user" name="user" required maxlength="64" pattern="[A-Za-z0-9_.@-]+" autocomplete="username">'
            : `<p>Continue as <strong>${escapeHtml(options.fixedPrincipal)}</strong>, the local user.</p>`;
        return render({
          title: 'Sign in (development)',
          body: `<h1>Sign in</h1><p class="muted">Development sign-in: no password.</p><form method="post" action="/elicit/login" class="box">${who}<input type="hidden" name="next" value="${escapeHtml(next)}"><button type="submit">Continue</button></form>`,
        });
      });
      app.post('/elicit/login', async (c) => {
        if (!ctx.sameOrigin(c.req.raw)) return failed('This sign-in came from another site.', 403);
        const form = await c.req.formData();
        const user = String(form.get('user') ?? '');
        if (options.fixedPrincipal === undefined && !/^[A-Za-z0-9_.@-]{1,64}$/.test(user))
          return failed('Choose a user name of letters, digits, "_", ".", "@" or "-".');
        const principal = options.fixedPrincipal ?? `dev|${user}`;
        const { cookie } = await ctx.sessions.create(principal);
        return redirect(ctx.safeNext(String(form.get('next') ?? '')), cookie);
      });
    },
  };
}

export interface OidcLoginOptions {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly allowInsecure?: boolean;
}

/** Sign-in with OpenID Connect (code flow, PKCE S256, nonce); the principal is `<iss>|<sub>`. */
export function oidcLogin(options: OidcLoginOptions): Login {
  const client: oauth.Client = { client_id: options.clientId };
  const auth =
    options.clientSecret === undefined
      ? oauth.None()
      : oauth.ClientSecretPost(options.clientSecret);
  const insecure = options.allowInsecure === true ? { [oauth.allowInsecureRequests]: true } : {};
  let as: Promise<oauth.AuthorizationServer> | undefined;
  const metadata = () => {
    const issuer = new URL(options.issuer);
    as ??= oauth
      .discoveryRequest(issuer, { algorithm: 'oidc', ...insecure })
      .then((r) => oauth.processDiscoveryResponse(issuer, r));
    return as;
  };
  return {
    start: (next) => `/elicit/login?next=${encodeURIComponent(next)}`,
    mount(app, ctx) {
      const redirectUri = new URL('/elicit/login/callback', ctx.baseUrl).href;
      app.get('/elicit/login', async (c) => {
        const server = await metadata();
        const state = oauth.generateRandomState();
        const verifier = oauth.generateRandomCodeVerifier();
        const nonce = oauth.generateRandomNonce();
        await ctx.store.create(
          `login:${state}`,
          { verifier, nonce, next: ctx.safeNext(c.req.query('next')) },
          { ttlMs: 10 * 60_000 },
        );
        const url = new URL(server.authorization_endpoint as string);
        for (const [k, v] of Object.entries({
          response_type: 'code',
          client_id: options.clientId,
          redirect_uri: redirectUri,
          scope: 'openid',
          state,
          nonce,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        })) {
          url.searchParams.set(k, v);
        }
        return redirect(url.href);
      });
      app.get('/elicit/login/callback', async (c) => {
        const server = await metadata();
        const current = new URL(c.req.url);
        const state = current.searchParams.get('state') ?? '';
        const tx = (await ctx.store.take<never>(`login:${state}`))?.value as
          | { verifier: string; nonce: string; next: string }
          | undefined;
        if (tx === undefined) return failed('This sign-in has expired or was already used.');
        try {
          const params = oauth.validateAuthResponse(server, client, current, state);
          const response = await oauth.authorizationCodeGrantRequest(
            server,
            client,
            auth,
            params,
            redirectUri,
            tx.verifier,
            insecure,
          );
          const result = await oauth.processAuthorizationCodeResponse(server, client, response, {
            expectedNonce: tx.nonce,
            requireIdToken: true,
          });
          const claims = oauth.getValidatedIdTokenClaims(result);
          if (claims === undefined) return failed('The identity provider sent no ID token.');
          const { cookie } = await ctx.sessions.create(`${claims.iss}|${claims.sub}`);
          return redirect(tx.next, cookie);
        } catch (error) {
          return failed(`Sign-in failed: ${(error as Error).message}`);
        }
      });
    },
  };
}
