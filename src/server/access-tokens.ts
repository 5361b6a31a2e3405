/**
 * MCP access tokens checked at the server: JWT access tokens (RFC 9068) from one authorization
 * server, verified by oauth4webapi against the issuer's discovered metadata and signing keys,
 * for this server's resource (RFC 8707) only. The SDK's bearer-auth helpers turn a missing or
 * refused token into a 401 whose `WWW-Authenticate` names the protected-resource metadata
 * (RFC 9728), which is served too, so an MCP client discovers where to sign in. A verified
 * token's issuer and subject become the caller's principal (`tokenPrincipal(iss, sub)`).
 */
import {
  type AuthInfo,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  type OAuthMetadata,
  type OAuthTokenVerifier,
  oauthMetadataResponse,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import * as oauth from 'oauth4webapi';
import { ElicitError } from '../errors.ts';
import { ELICIT_ACCESS_TOKEN_CONFIG, ELICIT_ACCESS_TOKEN_ISSUER } from '../kernel/error-codes.ts';

/** Which authorization server's tokens are accepted, and for which resource. */
export interface AccessTokenOptions {
  /** The authorization server's issuer, exactly as its tokens' `iss` (https). */
  readonly issuer: string;
  /** This server's MCP URL as clients reach it: tokens must name it in `aud` (RFC 8707). */
  readonly resource: string;
  /** Allow an http issuer (an authorization server on loopback, in development and tests). */
  readonly allowInsecure?: boolean;
  /** Longest token read, in characters; default 8192 (a longer one is refused unread). */
  readonly maxTokenChars?: number;
  /** Scopes every token must carry (403 `insufficient_scope` otherwise); default none. */
  readonly requiredScopes?: readonly string[];
}

/**
 * What `httpEntry(app, tokens)` takes: each request's verified token (or the 401 challenge),
 * and the protected-resource metadata that `listen` serves beside the MCP path.
 */
export interface AccessTokens {
  /** The request's verified token as the SDK's `AuthInfo`, or the 401/403 challenge to send. */
  readonly authInfo: (req: Request) => Promise<AuthInfo | Response>;
  /** The RFC 9728 document (and the issuer's RFC 8414 metadata) at their well-known paths. */
  readonly wellKnown: (req: Request) => Response | undefined;
  /** The SDK's verifier interface, for your own bearer-auth wiring. */
  readonly verifier: OAuthTokenVerifier;
  /** Where the protected-resource metadata is, as the 401 challenge names it. */
  readonly resourceMetadataUrl: string;
}

/** accessTokens() cannot work as configured: `code` says whether the options or the issuer. */
export class AccessTokenConfigError extends ElicitError {}

/** Default longest token read: far beyond any real JWT access token, far below header limits. */
export const DEFAULT_MAX_TOKEN_CHARS = 8192;

function configError(message: string): AccessTokenConfigError {
  return new AccessTokenConfigError(ELICIT_ACCESS_TOKEN_CONFIG, message);
}

function checked(options: AccessTokenOptions): { issuer: URL; resource: URL; max: number } {
  const issuer = URL.canParse(options.issuer) ? new URL(options.issuer) : undefined;
  if (
    issuer === undefined ||
    !(issuer.protocol === 'https:' || (issuer.protocol === 'http:' && options.allowInsecure))
  )
    throw configError(
      `The access tokens' issuer must be an https address (http only with allowInsecure, for development); got ${JSON.stringify(options.issuer.slice(0, 100))}`,
    );
  const resource = URL.canParse(options.resource) ? new URL(options.resource) : undefined;
  if (resource === undefined || !['https:', 'http:'].includes(resource.protocol) || resource.hash)
    throw configError(
      `The resource must be the absolute http(s) address clients reach this server's MCP endpoint at, without a fragment; got ${JSON.stringify(options.resource.slice(0, 100))}`,
    );
  const max = options.maxTokenChars ?? DEFAULT_MAX_TOKEN_CHARS;
  if (!Number.isSafeInteger(max) || max < 1)
    throw configError(`maxTokenChars must be a positive whole number; got ${String(max)}`);
  return { issuer, resource, max };
}

async function discover(
  issuer: URL,
  insecure: { [oauth.allowInsecureRequests]?: true },
): Promise<oauth.AuthorizationServer> {
  let server: oauth.AuthorizationServer | undefined;
  let failure: unknown;
  // RFC 8414's document first, then OpenID Connect's, as MCP clients look for them.
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    try {
      const response = await oauth.discoveryRequest(issuer, { algorithm, ...insecure });
      server = await oauth.processDiscoveryResponse(issuer, response);
      break;
    } catch (error) {
      failure ??= error;
    }
  }
  if (server === undefined)
    throw new AccessTokenConfigError(
      ELICIT_ACCESS_TOKEN_ISSUER,
      `The authorization server ${issuer.href} could not be discovered (unreachable, or its metadata names another issuer): ${failure instanceof Error ? failure.message : String(failure)}`,
      { cause: failure },
    );
  if (typeof server.jwks_uri !== 'string')
    throw new AccessTokenConfigError(
      ELICIT_ACCESS_TOKEN_ISSUER,
      `The authorization server ${issuer.href} names no jwks_uri, so its access tokens cannot be checked here.`,
    );
  return server;
}

/** One message for every refused token: what failed is not the caller's to learn. */
const REFUSED = 'The access token is not valid for this server.';
const UNREACHABLE = "The token issuer's signing keys could not be fetched; try again shortly.";

/**
 * A failure to fetch the issuer's key set (no answer, a time-out, a status or body that is no key
 * set): oauth4webapi throws fetch's own TypeError or an abort for the first, and an
 * OperationProcessingError whose cause is the Response for the others.
 */
function issuerUnreachable(error: unknown): boolean {
  if (error instanceof oauth.OperationProcessingError) return error.cause instanceof Response;
  if (error instanceof DOMException)
    return error.name === 'TimeoutError' || error.name === 'AbortError';
  // oauth4webapi's own argument errors are TypeErrors with a code; fetch's "fetch failed" has none.
  return error instanceof TypeError && !('code' in error);
}

/**
 * Accepts JWT access tokens from `options.issuer` for `options.resource`. Discovers the issuer
 * once, now (its signing keys are fetched on first use and kept, fetched again for a new key);
 * throws AccessTokenConfigError (ELICIT_ACCESS_TOKEN_CONFIG, ELICIT_ACCESS_TOKEN_ISSUER).
 */
export async function accessTokens(options: AccessTokenOptions): Promise<AccessTokens> {
  const { issuer, resource, max } = checked(options);
  const insecure: { [oauth.allowInsecureRequests]?: true } =
    options.allowInsecure === true ? { [oauth.allowInsecureRequests]: true } : {};
  const server = await discover(issuer, insecure);
  const audience = resource.href;
  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token) {
      if (token.length > max) throw new OAuthError(OAuthErrorCode.InvalidToken, REFUSED);
      let claims: oauth.JWTAccessTokenClaims;
      try {
        // oauth4webapi reads the token from a request's Authorization header (RFC 6750).
        const request = new Request(resource, { headers: { authorization: `Bearer ${token}` } });
        claims = await oauth.validateJwtAccessToken(server, request, audience, insecure);
      } catch (error) {
        // The issuer's keys could not be had: this server's trouble, not the caller's token, so
        // a 500 the client may retry, never a 401 that would send it to sign in again.
        if (issuerUnreachable(error)) throw new OAuthError(OAuthErrorCode.ServerError, UNREACHABLE);
        throw new OAuthError(OAuthErrorCode.InvalidToken, REFUSED);
      }
      return {
        token,
        clientId: claims.client_id,
        scopes: typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [],
        expiresAt: claims.exp,
        resource,
        extra: { iss: claims.iss, sub: claims.sub },
      };
    },
  };
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
  const gate = requireBearerAuth({
    verifier,
    expectedResource: resource,
    resourceMetadataUrl,
    ...(options.requiredScopes === undefined
      ? {}
      : { requiredScopes: [...options.requiredScopes] }),
  });
  const metadata = {
    oauthMetadata: server as unknown as OAuthMetadata,
    resourceServerUrl: resource,
    dangerouslyAllowInsecureIssuerUrl: options.allowInsecure === true,
    ...(options.requiredScopes === undefined
      ? {}
      : { scopesSupported: [...options.requiredScopes] }),
  };
  return {
    authInfo: gate,
    wellKnown: (req) => oauthMetadataResponse(req, metadata),
    verifier,
    resourceMetadataUrl,
  };
}
