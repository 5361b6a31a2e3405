/**
 * Signing a person in with OpenID Connect, framework-free: the code flow with PKCE S256, state
 * and nonce, the code exchanged at the provider, the ID token checked (issuer, audience,
 * nonce, signature by oauth4webapi), and the person as `{ issuer, subject, name }`. Both web
 * pages that sign people in (elicit/connect's `oidcLogin`, the gateway's inbox) use this one
 * flow; each keeps its own transactions, cookies and pages, because each serves them its own way.
 *
 * Everything a browser brings back is bounded before it is used: the callback's length, the
 * state's shape (only states minted here), and the name shown on the page.
 */
import * as oauth from 'oauth4webapi';
import { ElicitError } from '../errors.ts';
import {
  ELICIT_LOGIN_CONFIG,
  ELICIT_LOGIN_PROVIDER,
  ELICIT_LOGIN_REFUSED,
  ELICIT_LOGIN_STATE,
} from './error-codes.ts';

/** Which OpenID provider signs people in, and as which of its clients. */
export interface OidcOptions {
  /** The provider's issuer (https; plain http only with `allowInsecure`, for development). */
  readonly issuer: string;
  readonly clientId: string;
  /** For a confidential client (sent in the token request's body); none for a public one. */
  readonly clientSecret?: string;
  /** Allow an http issuer (a provider on loopback in development and tests). */
  readonly allowInsecure?: boolean;
}

/** What a sign-in in progress keeps server-side until its callback (under its state). */
export interface OidcPending {
  readonly verifier: string;
  readonly nonce: string;
}

/** Who signed in: the ID token's issuer and subject, and a short name to show. */
export interface OidcIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly name: string;
}

/** A sign-in could not be started or finished; `code` says whose side failed. */
export class OidcLoginError extends ElicitError {}

/** Longest callback address read (query included): a provider's is far shorter. */
export const MAX_CALLBACK_CHARS = 8192;
/** Longest name shown for a signed-in person. */
export const MAX_NAME_CHARS = 200;

/** States are minted here (32 random bytes, base64url); nothing else is looked up. */
const STATE = /^[A-Za-z0-9_-]{43}$/;

/** The state a callback carries, when it has the shape of one minted here. */
export function callbackState(callback: URL): string | undefined {
  if (callback.href.length > MAX_CALLBACK_CHARS) return undefined;
  const state = callback.searchParams.get('state') ?? '';
  return STATE.test(state) ? state : undefined;
}

/** A short, human name from validated ID token claims. */
function nameOf(claims: oauth.IDToken): string {
  for (const claim of ['email', 'preferred_username', 'name'] as const) {
    const value = claims[claim];
    if (typeof value === 'string' && value.length > 0) return value.slice(0, MAX_NAME_CHARS);
  }
  return claims.sub.slice(0, MAX_NAME_CHARS);
}

/** What oauth4webapi says of a refused response, in words a person can act on. */
function refusal(error: unknown): string {
  if (error instanceof oauth.AuthorizationResponseError)
    return `the identity provider refused the sign-in (${error.error})`;
  if (error instanceof oauth.ResponseBodyError)
    return `the identity provider refused the code (${error.error})`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * One OpenID provider and client: starts sign-ins and finishes them. The provider's metadata is
 * discovered on first use and kept (discovered again after a failure).
 */
export class OidcSignIn {
  readonly issuer: URL;
  readonly #client: oauth.Client;
  readonly #auth: oauth.ClientAuth;
  readonly #insecure: { [oauth.allowInsecureRequests]?: true };
  #metadata: Promise<oauth.AuthorizationServer> | undefined;

  constructor(options: OidcOptions) {
    const issuer = URL.canParse(options.issuer) ? new URL(options.issuer) : undefined;
    if (
      issuer === undefined ||
      !(issuer.protocol === 'https:' || (issuer.protocol === 'http:' && options.allowInsecure))
    )
      throw new OidcLoginError(
        ELICIT_LOGIN_CONFIG,
        `The OpenID issuer must be an https address (http only with allowInsecure, for development); got ${JSON.stringify(options.issuer.slice(0, 100))}`,
      );
    if (options.clientId === '')
      throw new OidcLoginError(ELICIT_LOGIN_CONFIG, 'The OpenID client id is empty.');
    this.issuer = issuer;
    this.#client = { client_id: options.clientId };
    this.#auth =
      options.clientSecret === undefined
        ? oauth.None()
        : oauth.ClientSecretPost(options.clientSecret);
    this.#insecure = options.allowInsecure === true ? { [oauth.allowInsecureRequests]: true } : {};
  }

  #discover(): Promise<oauth.AuthorizationServer> {
    this.#metadata ??= oauth
      .discoveryRequest(this.issuer, { algorithm: 'oidc', ...this.#insecure })
      .then((r) => oauth.processDiscoveryResponse(this.issuer, r))
      .catch((error: unknown) => {
        this.#metadata = undefined;
        throw new OidcLoginError(
          ELICIT_LOGIN_PROVIDER,
          `The identity provider ${this.issuer.origin} could not be reached or described itself wrongly: ${refusal(error)}`,
          { cause: error },
        );
      });
    return this.#metadata;
  }

  /**
   * A new sign-in: the provider's address to send the browser to, the state to key the pending
   * sign-in by, and what to keep until the callback. Throws ELICIT_LOGIN_PROVIDER.
   */
  async start(redirectUri: string): Promise<{ url: URL; state: string; pending: OidcPending }> {
    const server = await this.#discover();
    if (typeof server.authorization_endpoint !== 'string')
      throw new OidcLoginError(
        ELICIT_LOGIN_PROVIDER,
        `The identity provider ${this.issuer.origin} names no authorization endpoint.`,
      );
    const state = oauth.generateRandomState();
    const pending: OidcPending = {
      verifier: oauth.generateRandomCodeVerifier(),
      nonce: oauth.generateRandomNonce(),
    };
    const url = new URL(server.authorization_endpoint);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: this.#client.client_id,
      redirect_uri: redirectUri,
      scope: 'openid',
      state,
      nonce: pending.nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    return { url, state, pending };
  }

  /**
   * Finishes the sign-in the callback belongs to (`pending`, taken once under `state`): the
   * response checked (state, RFC 9207 `iss` where the provider sends it, no error), the code
   * exchanged with the verifier, the ID token checked (this issuer, this client, the nonce).
   * Throws ELICIT_LOGIN_STATE, ELICIT_LOGIN_REFUSED or ELICIT_LOGIN_PROVIDER.
   */
  async finish(
    callback: URL,
    state: string,
    pending: OidcPending,
    redirectUri: string,
  ): Promise<OidcIdentity> {
    if (callbackState(callback) !== state)
      throw new OidcLoginError(ELICIT_LOGIN_STATE, 'The sign-in response is not for this sign-in.');
    const server = await this.#discover();
    let claims: oauth.IDToken | undefined;
    try {
      const params = oauth.validateAuthResponse(server, this.#client, callback, state);
      const response = await oauth.authorizationCodeGrantRequest(
        server,
        this.#client,
        this.#auth,
        params,
        redirectUri,
        pending.verifier,
        this.#insecure,
      );
      const result = await oauth.processAuthorizationCodeResponse(server, this.#client, response, {
        expectedNonce: pending.nonce,
        requireIdToken: true,
      });
      claims = oauth.getValidatedIdTokenClaims(result);
    } catch (error) {
      throw new OidcLoginError(ELICIT_LOGIN_REFUSED, `Sign-in refused: ${refusal(error)}.`, {
        cause: error,
      });
    }
    if (claims === undefined)
      throw new OidcLoginError(ELICIT_LOGIN_REFUSED, 'The identity provider sent no ID token.');
    return { issuer: claims.iss, subject: claims.sub, name: nameOf(claims) };
  }
}
