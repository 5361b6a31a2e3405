/**
 * Browser sessions for the connect pages: a random 128-bit id in a `__Host-` cookie (Secure,
 * HttpOnly, SameSite=Lax), the principal and a CSRF token kept server-side in the store. On a
 * plain-http loopback origin (development) the cookie cannot be `__Host-`/Secure; it is then
 * named `elicit-dev-session` and still HttpOnly and SameSite=Lax.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../store/types.ts';

export interface BrowserSession {
  readonly id: string;
  readonly principal: string;
  readonly csrf: string;
}

export class Sessions {
  private readonly store: Store;
  readonly secure: boolean;
  readonly cookieName: string;
  readonly ttlMs: number;
  constructor(store: Store, baseUrl: URL, ttlMs = 12 * 60 * 60_000) {
    this.store = store;
    this.secure = baseUrl.protocol === 'https:';
    this.cookieName = this.secure ? '__Host-elicit-session' : 'elicit-dev-session';
    this.ttlMs = ttlMs;
  }

  async create(principal: string): Promise<{ session: BrowserSession; cookie: string }> {
    const session: BrowserSession = {
      id: randomBytes(16).toString('base64url'),
      principal,
      csrf: randomBytes(16).toString('base64url'),
    };
    await this.store.create(`bs:${session.id}`, session as never, { ttlMs: this.ttlMs });
    const attrs = [
      'Path=/',
      'HttpOnly',
      'SameSite=Lax',
      `Max-Age=${Math.floor(this.ttlMs / 1000)}`,
      ...(this.secure ? ['Secure'] : []),
    ];
    return { session, cookie: `${this.cookieName}=${session.id}; ${attrs.join('; ')}` };
  }

  async current(cookieHeader: string | null | undefined): Promise<BrowserSession | undefined> {
    const value = (cookieHeader ?? '')
      .split(';')
      .map((p) => p.trim())
      .find((p) => p.startsWith(`${this.cookieName}=`))
      ?.slice(this.cookieName.length + 1);
    if (value === undefined || !/^[A-Za-z0-9_-]{22}$/.test(value)) return undefined;
    return (await this.store.get<never>(`bs:${value}`))?.value as BrowserSession | undefined;
  }
}

/** What an OAuth transaction records of the browser that started it. */
export function browserBinding(session: BrowserSession): string {
  return createHash('sha256').update(`elicit-browser\u0000${session.id}`).digest('base64url');
}
