/**
 * Browser sessions for the connect pages: a random 128-bit id in a `__Host-` cookie (Secure,
 * HttpOnly, SameSite=Lax), the principal and a CSRF token kept server-side in the store under
 * the SHA-256 of the id, so a copy of the store holds no cookie that would sign anyone in. On a
 * plain-http loopback origin (development) the cookies cannot be `__Host-`/Secure; they are then
 * named `elicit-dev-…` and still HttpOnly and SameSite=Lax.
 *
 * A sign-in in progress is bound to the browser that started it the same way: a short-lived
 * login cookie whose hash the login transaction keeps and the callback compares.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../kernel/store.ts';
import type { Who } from './pages.ts';

export interface BrowserSession {
  /** The cookie value: only in memory for this request, never stored. */
  readonly id: string;
  readonly principal: string;
  /** What the pages show as "signed in as". */
  readonly name: string;
  readonly csrf: string;
}

type StoredSession = { principal: string; name: string; csrf: string };

const ID = /^[A-Za-z0-9_-]{22}$/;
const digest = (label: string, value: string) =>
  createHash('sha256').update(`${label}\u0000${value}`).digest('base64url');

function cookieValue(header: string | null | undefined, name: string): string | undefined {
  const value = (header ?? '')
    .split(';')
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${name}=`))
    ?.slice(name.length + 1);
  return value !== undefined && ID.test(value) ? value : undefined;
}

export class Sessions {
  private readonly store: Store;
  readonly secure: boolean;
  readonly cookieName: string;
  readonly loginCookieName: string;
  readonly ttlMs: number;
  constructor(store: Store, baseUrl: URL, ttlMs = 12 * 60 * 60_000) {
    this.store = store;
    this.secure = baseUrl.protocol === 'https:';
    this.cookieName = this.secure ? '__Host-elicit-session' : 'elicit-dev-session';
    this.loginCookieName = this.secure ? '__Host-elicit-login' : 'elicit-dev-login';
    this.ttlMs = ttlMs;
  }

  private cookie(name: string, value: string, maxAgeMs: number): string {
    const attrs = [
      'Path=/',
      'HttpOnly',
      'SameSite=Lax',
      `Max-Age=${Math.floor(maxAgeMs / 1000)}`,
      ...(this.secure ? ['Secure'] : []),
    ];
    return `${name}=${value}; ${attrs.join('; ')}`;
  }

  async create(
    principal: string,
    name: string = principal,
  ): Promise<{ session: BrowserSession; cookie: string }> {
    const session: BrowserSession = {
      id: randomBytes(16).toString('base64url'),
      principal,
      name: name.slice(0, 200),
      csrf: randomBytes(16).toString('base64url'),
    };
    const stored: StoredSession = { principal, name: session.name, csrf: session.csrf };
    await this.store.create(`bs:${digest('elicit-session', session.id)}`, stored, {
      ttlMs: this.ttlMs,
    });
    return { session, cookie: this.cookie(this.cookieName, session.id, this.ttlMs) };
  }

  async current(cookieHeader: string | null | undefined): Promise<BrowserSession | undefined> {
    const id = cookieValue(cookieHeader, this.cookieName);
    if (id === undefined) return undefined;
    const stored = (await this.store.get<StoredSession>(`bs:${digest('elicit-session', id)}`))
      ?.value;
    return stored === undefined ? undefined : { id, ...stored };
  }

  /** Signs the browser out: the stored session is gone, and the returned cookie clears it. */
  async end(session: BrowserSession): Promise<string> {
    await this.store.delete(`bs:${digest('elicit-session', session.id)}`);
    return this.cookie(this.cookieName, '', 0);
  }

  /**
   * The login cookie for a sign-in about to start (the browser's current one when it has one, so
   * two tabs signing in at once both succeed), and the hash its transaction keeps.
   */
  startLogin(
    cookieHeader: string | null | undefined,
    ttlMs: number,
  ): { cookie: string; binding: string } {
    const value =
      cookieValue(cookieHeader, this.loginCookieName) ?? randomBytes(16).toString('base64url');
    return {
      cookie: this.cookie(this.loginCookieName, value, ttlMs),
      binding: digest('elicit-login', value),
    };
  }

  /** Whether this browser holds the login cookie whose hash is `binding`. */
  startedHere(cookieHeader: string | null | undefined, binding: string): boolean {
    const value = cookieValue(cookieHeader, this.loginCookieName);
    if (value === undefined) return false;
    const a = Buffer.from(digest('elicit-login', value));
    const b = Buffer.from(binding);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  clearLogin(): string {
    return this.cookie(this.loginCookieName, '', 0);
  }
}

/** What the pages show about the session (null when signed out). */
export function whoOf(session: BrowserSession | undefined): Who | null {
  return session === undefined ? null : { name: session.name, csrf: session.csrf };
}

/** What an OAuth transaction records of the browser that started it. */
export function browserBinding(session: BrowserSession): string {
  return digest('elicit-browser', session.id);
}
