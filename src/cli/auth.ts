/**
 * Signing in to an MCP server from a terminal: an `OAuthClientProvider` for the SDK client.
 * The SDK does discovery (protected resource metadata, then authorization server metadata),
 * registration, PKCE and the token requests; this provider supplies what only a terminal host
 * can: a loopback redirect, the system browser, and a private place to keep tokens.
 */

import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import type { Writable } from 'node:stream';
import {
  type Client,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { inert } from '../client/index.ts';
import {
  ELICIT_SIGNIN_NO_FLOW,
  ELICIT_SIGNIN_STATE,
  ELICIT_SIGNIN_UNSAFE_URL,
} from '../kernel/error-codes.ts';
import {
  defaultConfigDir,
  readSignIn,
  removeSignIn,
  type SavedSignIn,
  signInFile,
  writeSignIn,
} from './auth-store.ts';
import { type Loopback, SignInError, startLoopback } from './loopback.ts';
import { openInBrowser } from './open.ts';

export { SignInError } from './loopback.ts';

export interface SignInLimits {
  /** How long the loopback listener waits for the browser to come back. */
  readonly callbackTimeoutMs: number;
  /** Requests to the listener that are not the callback before it gives up. */
  readonly maxStrayRequests: number;
}

export const DEFAULT_SIGNIN_LIMITS: SignInLimits = Object.freeze({
  callbackTimeoutMs: 5 * 60_000,
  maxStrayRequests: 20,
});

export interface AuthProviderOptions {
  /** Where sign-ins are kept; default `$XDG_CONFIG_HOME/elicit` or `~/.config/elicit`. */
  readonly configDir?: string;
  /** Opens the authorization page; default: the system browser (ELICIT_BROWSER overrides). */
  readonly openUrl?: (url: string) => Promise<void>;
  /** Where to tell the person what is happening (the URL, in case no browser opens). */
  readonly output?: Writable;
  /** Scope to ask for when the server does not advertise one. */
  readonly scope?: string;
  /**
   * An https URL of this client's metadata document (Client ID Metadata Document), used as the
   * client_id where the authorization server supports it; otherwise elicit registers itself.
   */
  readonly clientMetadataUrl?: string;
  /**
   * A client id registered with the authorization server beforehand (as a public, native client
   * with the redirect URI http://127.0.0.1/callback), for servers that allow no registration.
   */
  readonly clientId?: string;
  readonly clientName?: string;
  readonly limits?: Partial<SignInLimits>;
}

const CALLBACK_PATH = '/callback';

/** The authorization page may only be an https page, or http on this machine. */
function checkAuthorizationUrl(url: URL): void {
  const loopback =
    url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost';
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) return;
  throw new SignInError(
    ELICIT_SIGNIN_UNSAFE_URL,
    `The server's authorization page ${JSON.stringify(inert(url.href, 200, false))} is not an https address; elicit will not open it. Ask the server's operator to fix its authorization server metadata.`,
  );
}

/** A port free at this moment (the listener falls back to any port if it is taken later). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.once('error', () => resolve(0));
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function registeredPort(client: StoredOAuthClientInformation | undefined): number {
  const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  if (!Array.isArray(uris)) return 0;
  for (const uri of uris) {
    try {
      const u = new URL(String(uri));
      if (u.hostname === '127.0.0.1' && u.port !== '') return Number(u.port);
    } catch {}
  }
  return 0;
}

export class TerminalAuthProvider implements OAuthClientProvider {
  readonly serverUrl: URL;
  readonly file: string;
  readonly clientMetadataUrl?: string;
  readonly #options: AuthProviderOptions;
  readonly #limits: SignInLimits;
  #saved: SavedSignIn;
  #port: number;
  #loopback: Loopback | undefined;
  #state: string | undefined;
  #verifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;

  constructor(
    serverUrl: URL,
    file: string,
    saved: SavedSignIn,
    options: AuthProviderOptions,
    sparePort = 0,
  ) {
    this.serverUrl = serverUrl;
    this.file = file;
    this.#saved = saved;
    this.#options = options;
    this.#limits = { ...DEFAULT_SIGNIN_LIMITS, ...options.limits };
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
    // The port registered before, else one free now: registration happens before the listener
    // starts, and not every authorization server lets a loopback port vary (RFC 8252 §7.3).
    this.#port = registeredPort(saved.client) || sparePort;
  }

  get redirectUrl(): string {
    return `http://127.0.0.1${this.#port === 0 ? '' : `:${this.#port}`}${CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.#options.clientName ?? 'elicit',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      ...(this.#options.scope !== undefined ? { scope: this.#options.scope } : {}),
    } as OAuthClientMetadata;
  }

  /** True while a sign-in waits for the browser (after the SDK asked for a redirect). */
  get signingIn(): boolean {
    return this.#loopback !== undefined && this.#state !== undefined;
  }

  /**
   * Called by the SDK just before it builds the authorization URL, so the listener starts here:
   * the redirect URL then carries the port it really listens on.
   */
  async state(): Promise<string> {
    this.#loopback?.close();
    const state = randomBytes(16).toString('base64url');
    this.#loopback = await startLoopback({
      state,
      path: CALLBACK_PATH,
      port: this.#port,
      timeoutMs: this.#limits.callbackTimeoutMs,
      maxStrayRequests: this.#limits.maxStrayRequests,
    });
    this.#port = this.#loopback.port;
    this.#state = state;
    return state;
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    const given = this.#options.clientId;
    const client =
      given !== undefined && this.#saved.client?.client_id !== given
        ? { client_id: given }
        : this.#saved.client;
    if (client === undefined) return undefined;
    if (ctx !== undefined && client.issuer !== undefined && client.issuer !== ctx.issuer)
      return undefined;
    return client;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    await this.#save({ ...this.#saved, client });
  }

  tokens(ctx?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    const tokens = this.#saved.tokens;
    if (tokens === undefined) return undefined;
    if (ctx !== undefined && tokens.issuer !== undefined && tokens.issuer !== ctx.issuer)
      return undefined;
    return tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.#save({ ...this.#saved, tokens });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    checkAuthorizationUrl(authorizationUrl);
    if (this.#state === undefined || authorizationUrl.searchParams.get('state') !== this.#state)
      throw new SignInError(
        ELICIT_SIGNIN_STATE,
        'The authorization URL does not carry the state this sign-in started with; not opening it.',
      );
    const out = this.#options.output;
    out?.write(
      `Sign in to ${inert(this.serverUrl.host, 100, false)} in your browser. If it does not open, visit:\n  ${inert(authorizationUrl.href, 4000, false)}\n`,
    );
    try {
      await (this.#options.openUrl ?? openInBrowser)(authorizationUrl.href);
    } catch (error) {
      out?.write(`${(error as Error).message}\n`);
    }
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined)
      throw new SignInError(
        ELICIT_SIGNIN_NO_FLOW,
        'No sign-in is in progress in this process, so there is no PKCE verifier to finish it with.',
      );
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  async invalidateCredentials(
    scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery',
  ): Promise<void> {
    if (scope === 'all' || scope === 'verifier') this.#verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined;
    if (scope === 'all' || scope === 'client' || scope === 'tokens') {
      const { client, tokens, ...rest } = this.#saved;
      const keepClient = scope === 'tokens' ? { client } : {};
      await this.#save({ ...rest, ...keepClient } as SavedSignIn);
    }
  }

  /**
   * After the SDK asked for a redirect: the callback's parameters, once the browser comes back
   * to the loopback listener with the right state. Rejects on timeout.
   */
  async waitForCallback(): Promise<URLSearchParams> {
    const loopback = this.#loopback;
    if (loopback === undefined)
      throw new SignInError(ELICIT_SIGNIN_NO_FLOW, 'No sign-in is in progress in this process.');
    try {
      return await loopback.result;
    } finally {
      this.#loopback = undefined;
      this.#state = undefined;
    }
  }

  /**
   * For a host whose connect failed because a sign-in started (`signingIn`): waits for the
   * browser, then exchanges the code through the transport that started it (closed or not).
   * Connect again with a new transport afterwards.
   */
  async finishSignIn(transport: {
    finishAuth(params: URLSearchParams): Promise<void>;
  }): Promise<void> {
    try {
      await transport.finishAuth(await this.waitForCallback());
    } finally {
      this.close();
    }
  }

  /** Stops a sign-in that is still waiting (the listener closes). */
  close(): void {
    this.#loopback?.close();
    this.#loopback = undefined;
    this.#state = undefined;
  }

  async #save(next: SavedSignIn): Promise<void> {
    await writeSignIn(this.file, next);
    this.#saved = next;
  }
}

/**
 * The provider for one server, with what was saved for it before. Pass it as the transport's
 * `authProvider`, or use `connectSignedIn`, which also completes a browser sign-in.
 */
export async function authProviderFor(
  serverUrl: string | URL,
  options: AuthProviderOptions = {},
): Promise<TerminalAuthProvider> {
  const url = new URL(serverUrl);
  const file = signInFile(options.configDir ?? defaultConfigDir(), url);
  const saved = (await readSignIn(file)) ?? { version: 1, server: `${url.origin}${url.pathname}` };
  return new TerminalAuthProvider(url, file, saved, options, await freePort());
}

/**
 * Connects `client` over Streamable HTTP with `provider`; when the server wants a sign-in, waits
 * for the browser to come back, exchanges the code, and connects again. Returns the transport.
 */
export async function connectSignedIn(
  client: Client,
  provider: TerminalAuthProvider,
  options: Omit<StreamableHTTPClientTransportOptions, 'authProvider'> = {},
): Promise<StreamableHTTPClientTransport> {
  const make = () =>
    new StreamableHTTPClientTransport(provider.serverUrl, { ...options, authProvider: provider });
  const first = make();
  try {
    await client.connect(first);
    return first;
  } catch (error) {
    if (!UnauthorizedError.isInstance(error) || !provider.signingIn) throw error;
    await client.close();
  }
  await provider.finishSignIn(first);
  const second = make();
  await client.connect(second);
  return second;
}

/** Forgets the saved sign-in for a server (`elicit logout`). True if there was one. */
export function forgetSignIn(
  serverUrl: string | URL,
  options: Pick<AuthProviderOptions, 'configDir'> = {},
): Promise<boolean> {
  return removeSignIn(signInFile(options.configDir ?? defaultConfigDir(), serverUrl));
}
