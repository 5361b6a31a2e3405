/**
 * The options of the connect pages and the events they log: what the app and every route read,
 * kept apart from app.ts so the routes' shared context (context.ts) imports no module that
 * imports it back.
 */
import type { Store } from '../kernel/store.ts';
import type { CompletionBus } from './completion.ts';
import type { ConnectLimits } from './limits.ts';
import type { Login, LoginEvent } from './login.ts';
import type { ProviderConfig } from './oauth.ts';
import type { UrlRecords } from './records.ts';
import type { Vault } from './vault.ts';

export type ConnectEvent =
  | { type: 'principal_mismatch'; id: string; record: string; browser: string }
  | { type: 'unknown_link'; id: string }
  | { type: 'oauth_refused'; reason: string }
  | { type: 'csrf_refused'; id: string }
  | { type: 'completed'; id: string; purpose: string }
  | { type: 'login_rate_limited'; address: string }
  /** The store or the completion bus failed (`what`); `error` has the driver's error as cause. */
  | { type: 'store_failed'; what: 'store' | 'completion bus'; error: unknown }
  /** A page failed for another reason (the browser got a plain 500 page). */
  | { type: 'page_failed'; error: unknown }
  /**
   * A stored connection stopped working (the provider refused to renew it, or refused the
   * token): it was removed, so the next ask.connect asks the person again. `error` has the
   * provider's answer, kept here and never shown to the person.
   */
  | { type: 'connection_lost'; principal: string; provider: string; error: unknown }
  | LoginEvent;

/** What createConnectApp serves with (createConnectStack fills in the store-backed parts). */
export interface ConnectAppOptions {
  /** The public origin of these pages, e.g. https://mcp.example.com (http only on loopback). */
  readonly baseUrl: string;
  readonly store: Store;
  readonly records: UrlRecords;
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
