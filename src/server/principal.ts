/**
 * Who is asking. URL-mode records, vault entries and sealed requestState are bound to a
 * principal, so two callers given the same principal can read each other's answers and
 * connections. An unauthenticated caller is only `local` where every caller is the same person
 * (stdio, loopback); a server reachable beyond loopback must tell callers apart or say
 * explicitly that it does not.
 */

import type { ServerContext } from '@modelcontextprotocol/server';
import { ElicitError } from '../errors.ts';
import { ELICIT_PRINCIPAL_CONFIG, ELICIT_TOKEN_NO_ISSUER } from '../kernel/error-codes.ts';
import { tokenPrincipal } from '../kernel/keys.ts';

export { isLoopbackHost } from '../kernel/loopback.ts';

/** Your own resolver: a stable id of the caller, or undefined when there is none (-32600). */
export type PrincipalResolver = (ctx: ServerContext) => string | undefined;

/**
 * - `'token'` (default): issuer and subject of the verified MCP access token (`authInfo.extra`
 *   `iss` and `sub`), joined injectively as the JSON array `["<iss>","<sub>"]`; a token with a
 *   subject but no issuer is refused (TokenIssuerError); without a token, `local` on stdio and
 *   loopback-only HTTP, refused elsewhere.
 * - `'token-or-client-id'`: as `'token'`, falling back to `client:<clientId>` for tokens
 *   without a subject (every user of one OAuth client is then the same principal).
 * - `'shared-local'`: every unauthenticated caller is `local`, even beyond loopback (one
 *   person behind a private network, say). Callers share records, secrets and states.
 * - a function: your own resolver.
 */
export type PrincipalOption = 'token' | 'token-or-client-id' | 'shared-local' | PrincipalResolver;

/** The server's configuration cannot tell callers apart where it would have to. */
export class PrincipalConfigError extends ElicitError {
  constructor(message: string) {
    super(ELICIT_PRINCIPAL_CONFIG, message);
  }
}

/**
 * A token names a subject but no issuer: the same subject from two issuers would be one caller,
 * so it is refused (-32600) unless your own resolver decides who the caller is.
 */
export class TokenIssuerError extends ElicitError {
  constructor() {
    super(
      ELICIT_TOKEN_NO_ISSUER,
      'The access token names a subject but no issuer (iss), so its subject could be anyone’s: refused. Have your token verifier put iss in authInfo.extra beside sub, or pass your own resolver: createServer({ principal: (ctx) => … }).',
    );
  }
}

function fromToken(ctx: ServerContext, clientIdFallback: boolean): string | undefined {
  const auth = ctx.http?.authInfo;
  if (auth === undefined) return undefined;
  const extra = (auth.extra ?? {}) as { iss?: unknown; sub?: unknown };
  if (typeof extra.sub === 'string' && extra.sub !== '') {
    if (typeof extra.iss !== 'string' || extra.iss === '') throw new TokenIssuerError();
    return tokenPrincipal(extra.iss, extra.sub);
  }
  return clientIdFallback && auth.clientId !== '' ? `client:${auth.clientId}` : undefined;
}

/**
 * Resolves a request's principal. `exposed` is true once the server is served beyond loopback
 * (see `checkExposure`); only then does a request without a token stay without a principal.
 * Throws TokenIssuerError for a token with a subject and no issuer (built-in options only).
 */
export function resolvePrincipal(
  option: PrincipalOption,
  ctx: ServerContext,
  exposed: boolean,
): string | undefined {
  if (typeof option === 'function') {
    const p = option(ctx);
    return typeof p === 'string' && p !== '' ? p : undefined;
  }
  const token = fromToken(ctx, option === 'token-or-client-id');
  if (token !== undefined) return token;
  // A token that names nobody is not "no token": never fall back to the shared principal.
  if (ctx.http?.authInfo !== undefined && option !== 'shared-local') return undefined;
  return option === 'shared-local' || !exposed ? 'local' : undefined;
}

/**
 * Called when a server is about to be reachable beyond loopback (`where` names how). Refuses a
 * configuration that would make every unauthenticated caller the same `local` principal.
 */
export function checkExposure(option: PrincipalOption, hasAuth: boolean, where: string): void {
  if (typeof option === 'function' || option === 'shared-local' || hasAuth) return;
  throw new PrincipalConfigError(
    `This server is reachable beyond loopback (${where}) but has no way to tell callers apart, so every caller would share one "local" principal (their URL-mode records, secrets and sealed states). ` +
      `Verify MCP access tokens (httpEntry(app, { authInfo })), pass your own resolver (createServer({ principal: (ctx) => … })), ` +
      `or, if every caller really is the same person, opt in with createServer({ principal: 'shared-local' }).`,
  );
}

/** The JSON-RPC message for a request that needs a principal and has none. */
export const NO_PRINCIPAL_MESSAGE =
  'This server needs an authenticated caller: send a valid MCP access token that names a subject';
