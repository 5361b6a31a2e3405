/**
 * The third-party OAuth client flow, on oauth4webapi: discovery, PKCE S256 only (an AS that does
 * not advertise it is refused), a single-use `state` bound to the browser, the RFC 9207 `iss`
 * check when the AS advertises it, an exact redirect URI, and tokens straight into the vault.
 * Access tokens are only ever sent to the provider's declared API origins.
 */

import * as oauth from 'oauth4webapi';
import { ElicitError } from '../errors.ts';
import {
  ELICIT_OAUTH_CALLBACK,
  ELICIT_OAUTH_METADATA,
  ELICIT_OAUTH_NO_PKCE,
  ELICIT_OAUTH_TOKEN,
  ELICIT_PROVIDER_CONFIG,
  ELICIT_TOKEN_DESTINATION,
} from '../kernel/error-codes.ts';

export interface ProviderConfig {
  /** The authorization server's issuer identifier (discovery runs against it). */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly scope: string;
  /**
   * Origins of the provider's API (e.g. `https://api.example.com`): `Connection.fetch` sends the
   * access token there and nowhere else. Default: the issuer's origin only.
   */
  readonly apiOrigins?: readonly string[];
  /** Allow http issuers (loopback test servers only). */
  readonly allowInsecure?: boolean;
}

export interface Tokens {
  readonly access_token: string;
  readonly token_type: string;
  readonly refresh_token?: string;
  readonly expires_at?: number;
  readonly scope?: string;
}

export class OAuthFlowError extends ElicitError {}

/** `Connection.fetch` was asked to send a provider's token somewhere that is not its API. */
export class TokenDestinationError extends ElicitError {}

/** A provider's configuration cannot be used as given. */
export class ProviderConfigError extends ElicitError {}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function apiOrigin(provider: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProviderConfigError(
      ELICIT_PROVIDER_CONFIG,
      `${provider}: apiOrigins entry ${JSON.stringify(value)} is not a URL; write an origin such as https://api.example.com.`,
    );
  }
  if (
    (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) ||
    url.username !== '' ||
    url.password !== '' ||
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== ''
  )
    throw new ProviderConfigError(
      ELICIT_PROVIDER_CONFIG,
      `${provider}: apiOrigins entry ${JSON.stringify(value)} must be a bare https origin (http only on loopback), such as https://api.example.com.`,
    );
  return url.origin;
}

export class Provider {
  readonly name: string;
  readonly config: ProviderConfig;
  readonly client: oauth.Client;
  /** Where the access token may be sent. */
  readonly apiOrigins: ReadonlySet<string>;
  private as: Promise<oauth.AuthorizationServer> | undefined;
  constructor(name: string, config: ProviderConfig) {
    this.name = name;
    this.config = config;
    this.client = { client_id: config.clientId };
    this.apiOrigins = new Set(
      (config.apiOrigins ?? [new URL(config.issuer).origin]).map((o) => apiOrigin(name, o)),
    );
  }

  /** The URL `input` names, if the access token may go there; a TokenDestinationError if not. */
  destination(input: string | URL | Request): URL {
    const raw = input instanceof Request ? input.url : String(input);
    let url: URL | undefined;
    try {
      url = new URL(raw);
    } catch {
      url = undefined;
    }
    if (
      url === undefined ||
      !this.apiOrigins.has(url.origin) ||
      url.username !== '' ||
      url.password !== ''
    )
      throw new TokenDestinationError(
        ELICIT_TOKEN_DESTINATION,
        `${this.name}: refusing to send its access token to ${JSON.stringify(raw.slice(0, 200))}; only ${[...this.apiOrigins].join(', ')} may receive it (add the origin to apiOrigins if it belongs to ${this.name}).`,
      );
    return url;
  }

  private get options() {
    return this.config.allowInsecure === true ? { [oauth.allowInsecureRequests]: true } : {};
  }

  private auth(): oauth.ClientAuth {
    return this.config.clientSecret === undefined
      ? oauth.None()
      : oauth.ClientSecretPost(this.config.clientSecret);
  }

  metadata(): Promise<oauth.AuthorizationServer> {
    this.as ??= (async () => {
      const issuer = new URL(this.config.issuer);
      const as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...this.options }),
      );
      if (!as.code_challenge_methods_supported?.includes('S256')) {
        throw new OAuthFlowError(
          ELICIT_OAUTH_NO_PKCE,
          `${this.name}: the authorization server does not advertise PKCE S256; refusing to use it.`,
        );
      }
      if (as.authorization_endpoint === undefined)
        throw new OAuthFlowError(ELICIT_OAUTH_METADATA, `${this.name}: no authorization endpoint.`);
      return as;
    })().catch((error) => {
      this.as = undefined;
      throw error;
    });
    return this.as;
  }

  async authorizationUrl(redirectUri: string, state: string, verifier: string): Promise<URL> {
    const as = await this.metadata();
    const url = new URL(as.authorization_endpoint as string);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.config.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', this.config.scope);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return url;
  }

  /** Validates the callback (state, iss) and exchanges the code with the PKCE verifier. */
  async exchange(
    callback: URL,
    expectedState: string,
    redirectUri: string,
    verifier: string,
  ): Promise<Tokens> {
    const as = await this.metadata();
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, this.client, callback, expectedState);
    } catch (error) {
      throw new OAuthFlowError(
        ELICIT_OAUTH_CALLBACK,
        `The sign-in response was refused: ${(error as Error).message}`,
      );
    }
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      this.client,
      this.auth(),
      params,
      redirectUri,
      verifier,
      this.options,
    );
    try {
      const tokens = await oauth.processAuthorizationCodeResponse(as, this.client, response, {
        requireIdToken: false,
      });
      return toTokens(tokens);
    } catch (error) {
      throw new OAuthFlowError(
        ELICIT_OAUTH_TOKEN,
        `The code could not be exchanged: ${(error as Error).message}`,
      );
    }
  }

  async refresh(refreshToken: string): Promise<Tokens> {
    const as = await this.metadata();
    const response = await oauth.refreshTokenGrantRequest(
      as,
      this.client,
      this.auth(),
      refreshToken,
      this.options,
    );
    return toTokens(await oauth.processRefreshTokenResponse(as, this.client, response));
  }
}

function toTokens(t: oauth.TokenEndpointResponse): Tokens {
  return {
    access_token: t.access_token,
    token_type: t.token_type,
    ...(t.refresh_token === undefined ? {} : { refresh_token: t.refresh_token }),
    ...(t.expires_in === undefined ? {} : { expires_at: Date.now() + t.expires_in * 1000 }),
    ...(t.scope === undefined ? {} : { scope: t.scope }),
  };
}

export const newState = oauth.generateRandomState;
export const newVerifier = oauth.generateRandomCodeVerifier;
