/**
 * The authorised fetch handed to a tool handler by `ask.connect`: the user's provider tokens
 * are read from the vault here, in this process, and never reach the MCP client; the client's
 * own bearer token is never sent.
 */
import { ElicitError } from '../errors.ts';
import type { Connection } from '../server/url-port.ts';
import type { Provider, Tokens } from './oauth.ts';
import { type Vault, vaultEntryName } from './vault.ts';

export function providerConnection(
  vault: Vault,
  providers: ReadonlyMap<string, Provider>,
  vaultTtlMs: number,
  principal: string,
  provider: string,
): Connection {
  const entry = { principal, provider: vaultEntryName('connect', provider) };
  return {
    provider,
    async fetch(input, init) {
      const p = providers.get(provider);
      if (p === undefined)
        throw new ElicitError(
          'ELICIT_NOT_CONNECTED',
          `${provider} is no longer configured on the connect pages.`,
        );
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
      let tokens = (await vault.get<never>(entry)) as Tokens | undefined;
      if (tokens === undefined)
        throw new ElicitError(
          'ELICIT_NOT_CONNECTED',
          `${provider} is not connected for this user any more; call ask.connect again.`,
        );
      const expired = tokens.expires_at !== undefined && tokens.expires_at <= Date.now() + 30_000;
      let response = expired ? undefined : await send(tokens);
      if (
        (response === undefined || response.status === 401) &&
        tokens.refresh_token !== undefined
      ) {
        const fresh = await p.refresh(tokens.refresh_token);
        tokens = { ...fresh, refresh_token: fresh.refresh_token ?? tokens.refresh_token };
        await vault.put(entry, tokens as never, vaultTtlMs);
        response = await send(tokens);
      }
      return response ?? send(tokens);
    },
  };
}
