/**
 * The inbox's own sign-in: OpenID Connect (kernel/oidc.ts, the flow elicit/connect's
 * `oidcLogin` uses), so a person behind `--listen` whose host presents access tokens from that
 * provider signs in as the principal the gateway gives their calls, `["<iss>","<sub>"]`, and
 * sees exactly their own questions. One-time links keep working beside it.
 *
 * Three steps, each a GET:
 * - `/inbox/login` starts a sign-in: a pending record in the store under the state's hash
 *   (single-use, expiring, capped across every replica sharing the store) and a login cookie
 *   (SameSite=Lax, so the provider's redirect back carries it) whose hash the record keeps.
 * - `/inbox/login/callback` takes the pending record once, checks that this browser started it,
 *   and finishes the flow at the provider. The inbox's session cookie is SameSite=Strict, which
 *   a navigation from the provider's site does not carry, so nothing is decided about the
 *   browser's session here: the person is recorded under a fresh one-time token (bound to the
 *   login cookie too) and the page moves on from our own origin.
 * - `/inbox/login/done` (a navigation started by our page, which carries the session cookie)
 *   hands the person to the inbox, which signs the browser in, or refuses to switch a browser
 *   signed in as someone else.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ELICIT_LOGIN_BUSY, ELICIT_LOGIN_STATE } from '../kernel/error-codes.ts';
import { tokenPrincipal } from '../kernel/keys.ts';
import {
  callbackState,
  type OidcLoginError,
  type OidcOptions,
  type OidcPending,
  OidcSignIn,
} from '../kernel/oidc.ts';
import type { Store } from '../kernel/store.ts';
import { LimitOptionError } from '../schema/index.ts';
import { escapeHtml, htmlPage, type Reply, refusedPage } from './inbox-pages.ts';

/** The inbox's OpenID sign-in: the provider and client, and the bounds on sign-ins in progress. */
export interface InboxOidcOptions extends OidcOptions {
  /** How long a started sign-in can be finished; default 10 minutes. */
  readonly loginTtlMs?: number;
  /** Sign-ins in progress at once, across every replica sharing the store; default 1000. */
  readonly maxPendingLogins?: number;
}

/** Who finished a sign-in, for the inbox to sign the browser in as. */
export interface SignedIn {
  readonly principal: string;
  readonly name: string;
  /** The cookie that clears the spent login cookie. */
  readonly clearCookie: string;
}

/** A pending sign-in: the flow's verifier and nonce, and the hash of the login cookie. */
type Pending = { v: string; n: string; b: string };
/** A finished sign-in waiting for the browser's next step. */
type Done = { p: string; n: string; b: string };

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const COOKIE = /^[A-Za-z0-9_-]{22}$/;
/** A finished sign-in is picked up by the browser's very next request. */
const DONE_TTL_MS = 60_000;

const hash = (label: string, value: string) =>
  createHash('sha256').update(`${label}\u0000${value}`).digest('base64url');
const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

const key = {
  pending: (state: string) => `inbox:o:${hash('elicit-inbox-oidc-state', state)}`,
  done: (t: string) => `inbox:od:${hash('elicit-inbox-oidc-done', t)}`,
  /** Every pending sign-in carries it: the cap counts them. */
  pendingTag: 'inbox:ol',
};

/** The value of cookie `name` in a Cookie header, if it has `shape`. */
export function readCookie(
  header: string | undefined,
  name: string,
  shape: RegExp,
): string | undefined {
  const value = (header ?? '')
    .split(';')
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1);
  return value !== undefined && shape.test(value) ? value : undefined;
}

/** A bound given in the options, or its default; LimitOptionError unless a positive whole number. */
function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new LimitOptionError(`oidc.${name}`, value);
  return value;
}

/** The inbox's sign-in with one OpenID provider (see the module comment for its steps). */
export class InboxSignIn {
  /** What the sign-in page offers: "Sign in with <provider>" (the issuer's host). */
  readonly provider: string;
  readonly #flow: OidcSignIn;
  readonly #store: Store;
  readonly #redirectUri: string;
  readonly #cookie: string;
  readonly #secure: boolean;
  readonly #ttlMs: number;
  readonly #max: number;

  /** `origin`: the inbox's address as people open it (the redirect URI is made on it). */
  constructor(options: InboxOidcOptions, store: Store, origin: URL) {
    this.#flow = new OidcSignIn(options);
    this.provider = this.#flow.issuer.host;
    this.#store = store;
    this.#redirectUri = new URL('/inbox/login/callback', origin).href;
    this.#secure = origin.protocol === 'https:';
    this.#cookie = this.#secure ? '__Host-elicit-inbox-login' : 'elicit_inbox_login';
    this.#ttlMs = positive('loginTtlMs', options.loginTtlMs, 10 * 60_000);
    this.#max = positive('maxPendingLogins', options.maxPendingLogins, 1000);
  }

  /** The address the provider sends the browser back to (register it with the provider). */
  get redirectUri(): string {
    return this.#redirectUri;
  }

  #setCookie(value: string, maxAgeMs: number): string {
    return `${this.#cookie}=${value}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${Math.floor(maxAgeMs / 1000)}${this.#secure ? '; Secure' : ''}`;
  }

  /** Whether this browser holds the login cookie whose hash is `binding`. */
  #startedHere(cookieHeader: string | undefined, binding: string): boolean {
    const value = readCookie(cookieHeader, this.#cookie, COOKIE);
    return value !== undefined && same(hash('elicit-inbox-login', value), binding);
  }

  /** `GET /inbox/login`: a pending sign-in, and the browser sent to the provider. */
  async start(cookieHeader: string | undefined): Promise<Reply> {
    let started: Awaited<ReturnType<OidcSignIn['start']>>;
    try {
      started = await this.#flow.start(this.#redirectUri);
    } catch (error) {
      const e = error as OidcLoginError;
      return refusedPage(502, e.message, e.code);
    }
    // Two tabs signing in at once share the browser's login cookie, and both finish.
    const value =
      readCookie(cookieHeader, this.#cookie, COOKIE) ?? randomBytes(16).toString('base64url');
    const pending: Pending = {
      v: started.pending.verifier,
      n: started.pending.nonce,
      b: hash('elicit-inbox-login', value),
    };
    const made = await this.#store.createCapped(
      key.pending(started.state),
      pending,
      { ttlMs: this.#ttlMs, tags: [key.pendingTag] },
      { tag: key.pendingTag, max: this.#max },
    );
    if (made !== 'created')
      return refusedPage(
        503,
        'Too many sign-ins are in progress; try again in a few minutes.',
        ELICIT_LOGIN_BUSY,
      );
    return {
      status: 303,
      type: 'text/plain',
      body: '',
      headers: { location: started.url.href, 'set-cookie': this.#setCookie(value, this.#ttlMs) },
    };
  }

  /** `GET /inbox/login/callback`: the provider's answer checked, the person recorded. */
  async callback(url: URL, cookieHeader: string | undefined): Promise<Reply> {
    const state = callbackState(url);
    const taken =
      state === undefined ? undefined : await this.#store.take<Pending>(key.pending(state));
    const pending = taken?.value;
    if (state === undefined || pending === undefined)
      return refusedPage(
        400,
        'This sign-in has expired or was already used. Start again from the inbox.',
        ELICIT_LOGIN_STATE,
      );
    if (!this.#startedHere(cookieHeader, pending.b))
      return refusedPage(
        403,
        'This sign-in was started in another browser, so it does not sign you in here. If someone sent you this link, close this tab.',
        ELICIT_LOGIN_STATE,
      );
    let person: Awaited<ReturnType<OidcSignIn['finish']>>;
    try {
      const flow: OidcPending = { verifier: pending.v, nonce: pending.n };
      person = await this.#flow.finish(url, state, flow, this.#redirectUri);
    } catch (error) {
      const e = error as OidcLoginError;
      return refusedPage(400, e.message, e.code);
    }
    const t = randomBytes(32).toString('base64url');
    const done: Done = {
      p: tokenPrincipal(person.issuer, person.subject),
      n: person.name,
      b: pending.b,
    };
    await this.#store.create(key.done(t), done, { ttlMs: DONE_TTL_MS });
    const next = `/inbox/login/done?t=${t}`;
    // A navigation from our own page, so the inbox's SameSite=Strict cookie comes along.
    return htmlPage(
      200,
      'Signing in',
      `<meta http-equiv="refresh" content="0;url=${next}"><h1>Signing in…</h1><p><a id="continue" href="${escapeHtml(next)}">Continue to your questions</a></p>`,
    );
  }

  /**
   * `GET /inbox/login/done`: who finished the sign-in this browser started, once; or the page
   * that refuses it.
   */
  async done(url: URL, cookieHeader: string | undefined): Promise<SignedIn | Reply> {
    const t = url.searchParams.get('t') ?? '';
    const done = TOKEN.test(t) ? (await this.#store.take<Done>(key.done(t)))?.value : undefined;
    if (done === undefined)
      return refusedPage(
        400,
        'This sign-in has expired or was already used. Start again from the inbox.',
        ELICIT_LOGIN_STATE,
      );
    if (!this.#startedHere(cookieHeader, done.b))
      return refusedPage(
        403,
        'This sign-in was started in another browser, so it does not sign you in here. If someone sent you this link, close this tab.',
        ELICIT_LOGIN_STATE,
      );
    return { principal: done.p, name: done.n, clearCookie: this.#setCookie('', 0) };
  }
}
