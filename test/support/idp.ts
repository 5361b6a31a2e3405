/**
 * A real OAuth 2.1 / OpenID provider for tests: oidc-provider on loopback, with its development
 * login and consent pages, PKCE required, RFC 9207 `iss` in responses, and a tiny "calendar"
 * API that accepts only its own access tokens.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface Idp {
  readonly issuer: string;
  readonly api: string;
  readonly provider: Provider;
  close(): Promise<void>;
}

export interface IdpClient {
  readonly client_id: string;
  readonly client_secret?: string;
  readonly redirect_uris: string[];
}

export interface IdpOptions {
  /**
   * Resource indicators (RFC 8707): a token requested for a resource this accepts is a JWT
   * access token (RFC 9068) whose audience is that resource, with the scope `mcp`.
   */
  readonly jwtResources?: (resource: string) => boolean;
}

export async function startIdp(clients: IdpClient[], options: IdpOptions = {}): Promise<Idp> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: c.client_secret === undefined ? 'none' : 'client_secret_post',
      ...c,
    })),
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      ...(options.jwtResources === undefined
        ? {}
        : {
            resourceIndicators: {
              enabled: true,
              useGrantedResource: () => true,
              getResourceServerInfo: (_ctx: unknown, resource: string) => {
                if (!options.jwtResources?.(resource)) throw new Error('unknown resource');
                return { scope: 'mcp', accessTokenFormat: 'jwt', audience: resource };
              },
            },
          }),
    },
    scopes: ['openid', 'offline_access', 'calendar.read', 'mcp'],
    claims: { openid: ['sub'] },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    issueRefreshToken: () => true,
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      Grant: 3600,
      Interaction: 600,
      Session: 3600,
      IdToken: 3600,
      RefreshToken: 86400,
    },
    cookies: { keys: ['test-only-cookie-key-0123456789'] },
  } as never);
  provider.proxy = false;
  const callback = provider.callback();
  server.on('request', async (req, res) => {
    if (req.url?.startsWith('/calendar')) {
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const found = token === '' ? undefined : await provider.AccessToken.find(token);
      if (found === undefined) {
        res.writeHead(401).end('unauthorized');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          owner: found.accountId,
          events: ['Standup 09:30', 'Lunch 12:00', 'Review 16:00'],
        }),
      );
      return;
    }
    callback(req, res);
  });
  return {
    issuer,
    api: `${issuer}/calendar`,
    provider,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** A JWT access token from `from`'s provider for `sub`, as its token endpoint issues them
 * for a host (client `mcp-host`) that asked for `audience` as its resource. */
export async function jwtAccessToken(
  from: Idp,
  sub: string,
  audience: string,
  times: { iat?: number; exp?: number } = {},
): Promise<string> {
  const { provider } = from;
  const client = await provider.Client.find('mcp-host');
  const grant = new provider.Grant({ accountId: sub, clientId: 'mcp-host' });
  grant.addResourceScope(audience, 'mcp');
  const ResourceServer = (provider as unknown as { ResourceServer: new (...a: unknown[]) => never })
    .ResourceServer;
  const token = new provider.AccessToken({
    accountId: sub,
    client: client as NonNullable<typeof client>,
    grantId: await grant.save(),
    gty: 'authorization_code',
    scope: 'mcp',
    resourceServer: new ResourceServer(audience, {
      accessTokenFormat: 'jwt',
      scope: 'mcp',
      audience,
    }),
    ...times,
  } as never);
  return token.save();
}
