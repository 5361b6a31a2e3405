/**
 * The authorised fetch handed to a tool handler by `ask.connect`: the user's provider tokens
 * are read from the vault here, in this process, and never reach the MCP client; the client's
 * own bearer token is never sent. A connection the provider no longer honours (a refresh it
 * refuses, a token it refuses with no way to renew it) is removed from the vault: the user is
 * "not connected" and the next ask.connect asks again, instead of failing the same way forever.
 */
import { ElicitError } from '../errors.ts';
import { ELICIT_NOT_CONNECTED } from '../kernel/error-codes.ts';
import type { Connection } from '../server/url-port.ts';
import type { Provider, Tokens } from './oauth.ts';
import {
  RECORD_VALUE_GRACE_MS,
  recordEntryName,
  type Vault,
  type VaultEntry,
  vaultEntryName,
} from './vault.ts';

/** A connection with the check ask.connect makes before it trusts a stored entry. */
export interface ProviderConnection extends Connection {
  /**
   * The stored tokens when they can still be used: expired ones are renewed first. Undefined
   * when there are none, or when the provider refused to renew them (the entry is then dropped).
   */
  usable(): Promise<Tokens | undefined>;
}

// Tokens this close to expiry are renewed before use.
const EXPIRY_MARGIN_MS = 30_000;

export function providerConnection(
  vault: Vault,
  providers: ReadonlyMap<string, Provider>,
  vaultTtlMs: number,
  principal: string,
  provider: string,
  onLost: (error: unknown) => void = () => {},
  record?: string,
): ProviderConnection {
  const shared: VaultEntry = { principal, provider: vaultEntryName('connect', provider) };
  // The tokens one record's page obtained: bound to that record, so two requests connecting
  // two accounts at once each use their own; the principal's entry once the copy is gone.
  const own: VaultEntry | undefined =
    record === undefined ? undefined : { principal, provider: recordEntryName(record) };
  let entry = own ?? shared;
  const read = async (): Promise<Tokens | undefined> => {
    if (own !== undefined) {
      const mine = (await vault.get<never>(own)) as Tokens | undefined;
      if (mine !== undefined) {
        entry = own;
        return mine;
      }
    }
    entry = shared;
    return (await vault.get<never>(shared)) as Tokens | undefined;
  };
  const lost = async (error: unknown): Promise<never> => {
    await vault.delete(entry);
    onLost(error);
    // The provider's own words stay in the log (the cause): they are not for the person.
    throw new ElicitError(
      ELICIT_NOT_CONNECTED,
      `The ${provider} connection stopped working (the provider no longer accepts it), so it was removed; ask.connect will ask the user to connect again.`,
      { cause: error },
    );
  };
  const renew = async (p: Provider, tokens: Tokens): Promise<Tokens> => {
    if (tokens.refresh_token === undefined) return lost(new Error('no refresh token'));
    let fresh: Tokens;
    try {
      fresh = await p.refresh(tokens.refresh_token);
    } catch (error) {
      return lost(error);
    }
    const next = { ...fresh, refresh_token: fresh.refresh_token ?? tokens.refresh_token };
    await vault.put(entry, next as never, entry === own ? RECORD_VALUE_GRACE_MS : vaultTtlMs);
    return next;
  };
  const providerOf = (): Provider => {
    const p = providers.get(provider);
    if (p === undefined)
      throw new ElicitError(
        ELICIT_NOT_CONNECTED,
        `${provider} is no longer configured on the connect pages.`,
      );
    return p;
  };
  return {
    provider,
    async usable() {
      const tokens = await read();
      if (tokens === undefined) return undefined;
      const expired =
        tokens.expires_at !== undefined && tokens.expires_at <= Date.now() + EXPIRY_MARGIN_MS;
      if (!expired) return tokens;
      try {
        return await renew(providerOf(), tokens);
      } catch (error) {
        if (error instanceof ElicitError && error.code === ELICIT_NOT_CONNECTED) return undefined;
        throw error;
      }
    },
    async fetch(input, init) {
      const p = providerOf();
      // Checked before the vault is read: a refused URL never gets near the token.
      const url = p.destination(input);
      const send = async (tokens: Tokens) => {
        const headers = new Headers(init?.headers);
        headers.set(
          'authorization',
          `${tokens.token_type === 'bearer' || tokens.token_type === 'Bearer' ? 'Bearer' : tokens.token_type} ${tokens.access_token}`,
        );
        // A redirect could lead the token off the API's origins: the caller decides.
        return fetch(url, { ...init, headers, redirect: 'manual' });
      };
      let tokens = await read();
      if (tokens === undefined)
        throw new ElicitError(
          ELICIT_NOT_CONNECTED,
          `${provider} is not connected for this user any more; call ask.connect again.`,
        );
      const expired =
        tokens.expires_at !== undefined && tokens.expires_at <= Date.now() + EXPIRY_MARGIN_MS;
      const first = expired ? undefined : await send(tokens);
      if (first !== undefined && first.status !== 401) return first;
      // Expired, or refused: renew once; a provider that will not renew ends the connection.
      tokens = await renew(p, tokens);
      return send(tokens);
    },
  };
}
