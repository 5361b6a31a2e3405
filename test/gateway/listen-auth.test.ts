/**
 * A gateway served over HTTP that verifies access tokens (`accessTokens`), on real parts:
 * oidc-provider with resource indicators issues JWT access tokens (RFC 9068) for the gateway's
 * MCP URL to two people. No token gets a 401 whose challenge names the protected-resource
 * metadata, and that document names the issuer; an expired token, one for another resource,
 * one from another issuer, a tampered one and an oversized one get 401 too; the SDK client's own
 * discovery finds the issuer from the challenge. A valid token's call works, from an SDK client
 * on both eras, and the question it asks belongs to the token's issuer and subject: Alice's
 * inbox shows it, Bob's does not, and Alice's answer ends the call. An issuer whose keys cannot
 * be fetched is a 500 the client may retry, never a 401 that sends it to sign in again.
 */
import {
  Client,
  discoverOAuthServerInfo,
  extractResourceMetadataUrl,
  resourceUrlFromServerUrl,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, Inbox, type InboxQuestion } from '../../src/gateway/index.ts';
import { tokenPrincipal } from '../../src/kernel/keys.ts';
import { form, text } from '../../src/schema/index.ts';
import {
  AccessTokenConfigError,
  accessTokens,
  createServer,
  httpEntry,
  type Listening,
  listen,
} from '../../src/server/index.ts';
import { type Idp, jwtAccessToken, startIdp } from '../support/idp.ts';
import { freePort } from '../support/processes.ts';

let idp: Idp;
let other: Idp;
let upstream: Listening;
let gateway: Gateway;
let front: Listening;
let inbox: Inbox;
let resource = '';
const waitingFor: string[] = [];

const hostClient = { client_id: 'mcp-host', redirect_uris: ['http://127.0.0.1/unused'] };

beforeAll(async () => {
  idp = await startIdp([hostClient], { jwtResources: () => true });
  other = await startIdp([hostClient], { jwtResources: () => true });
  const app = createServer({ name: 'asker', version: '1' })
    .tool('ping', { description: 'answers pong' }, async () => 'pong')
    .tool('name', { description: 'asks for a name' }, async (_args, ask) => {
      const r = await ask.form('who', form({ name: text() }), { message: 'Your name?' });
      return r.action === 'accept' ? `hello ${r.content.name}` : r.action;
    });
  upstream = await listen(httpEntry(app));
  inbox = await Inbox.start({ onWaiting: (_q, p) => waitingFor.push(p) });
  gateway = await createGateway({
    transport: () => new StreamableHTTPClientTransport(upstream.url),
    inbox,
  });
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const tokens = await accessTokens({ issuer: idp.issuer, resource, allowInsecure: true });
  front = await gateway.listen({ port }, tokens);
}, 60_000);
afterAll(async () => {
  await front?.close();
  await gateway?.close();
  await inbox?.close();
  await upstream?.close();
  await idp?.close();
  await other?.close();
});

const initialize = (authorization?: string) =>
  fetch(resource, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  });

async function host(token: string, era: 'legacy' | 'modern' = 'legacy'): Promise<Client> {
  const client = new Client({ name: 'cli', version: '1' }, { capabilities: {} });
  client.setVersionNegotiation({ mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(front.url, { requestInit: { headers } }));
  return client;
}

async function signIn(who: string): Promise<{ cookie: string; csrf: string }> {
  const first = await fetch(await inbox.link(who), { redirect: 'manual' });
  expect(first.status).toBe(303);
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const page = await (await fetch(inbox.url, { headers: { cookie } })).text();
  return { cookie, csrf: /name="csrf" content="([^"]+)"/.exec(page)?.[1] as string };
}

async function questions(session: { cookie: string }): Promise<InboxQuestion[]> {
  const r = await fetch(new URL('/inbox/questions', inbox.url), {
    headers: { cookie: session.cookie },
  });
  return (await r.json()) as InboxQuestion[];
}

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

describe('a gateway that verifies access tokens', () => {
  it('answers a request without a token with a 401 naming the metadata, which names the issuer', async () => {
    const r = await initialize();
    expect(r.status).toBe(401);
    const challenge = r.headers.get('www-authenticate') ?? '';
    const metadataUrl = `http://127.0.0.1:${front.url.port}/.well-known/oauth-protected-resource/mcp`;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${metadataUrl}"`);
    const doc = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ resource, authorization_servers: [idp.issuer] });
    // An SDK client follows the challenge to the issuer, and asks for tokens for this resource.
    const found = extractResourceMetadataUrl(await initialize());
    expect(found?.href).toBe(metadataUrl);
    const info = await discoverOAuthServerInfo(resource, { resourceMetadataUrl: found });
    expect(info.authorizationServerUrl).toBe(idp.issuer);
    expect(info.authorizationServerMetadata?.issuer).toBe(idp.issuer);
    expect(resourceUrlFromServerUrl(resource).href).toBe(resource);
    // Other paths are still not found.
    expect((await fetch(new URL('/elsewhere', resource))).status).toBe(404);
  });

  it('refuses an expired, wrong-audience, other-issuer, tampered or oversized token with a 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = await jwtAccessToken(idp, 'alice', resource);
    const [head, payload, signature] = good.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'bob' })).toString('base64url');
    const bad = {
      expired: await jwtAccessToken(idp, 'alice', resource, { iat: now - 7200, exp: now - 3600 }),
      otherAudience: await jwtAccessToken(idp, 'alice', 'http://127.0.0.1:1/mcp'),
      otherIssuer: await jwtAccessToken(other, 'alice', resource),
      tampered: `${head}.${forged}.${signature}`,
      oversized: `${good}${'A'.repeat(9000)}`,
      notAJwt: 'opaque-token',
    };
    for (const [what, token] of Object.entries(bad)) {
      const r = await initialize(`Bearer ${token}`);
      expect(r.status, what).toBe(401);
      expect(r.headers.get('www-authenticate'), what).toContain('error="invalid_token"');
      // The same words whatever failed: nothing of the verifier's own text.
      expect(await r.json(), what).toEqual({
        error: 'invalid_token',
        error_description: 'The access token is not valid for this server.',
      });
    }
    expect((await initialize(`Bearer ${good}`)).status).toBe(200);
  });

  it('serves a valid token to an SDK client on both eras', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const client = await host(await jwtAccessToken(idp, 'alice', resource), era);
      try {
        const r = await client.callTool({ name: 'ping', arguments: {} });
        expect(textOf(r), era).toBe('pong');
      } finally {
        await client.close();
      }
    }
  });

  it("puts a caller's question in the inbox of the token's issuer and subject", async () => {
    const alice = await host(await jwtAccessToken(idp, 'alice', resource));
    try {
      const call = alice.callTool({ name: 'name', arguments: {} });
      for (let i = 0; i < 200 && inbox.size < 1; i++) await new Promise((r) => setTimeout(r, 25));
      expect(waitingFor).toEqual([tokenPrincipal(idp.issuer, 'alice')]);
      const asAlice = await signIn(tokenPrincipal(idp.issuer, 'alice'));
      const asBob = await signIn(tokenPrincipal(idp.issuer, 'bob'));
      expect(await questions(asBob)).toEqual([]);
      const [question] = await questions(asAlice);
      expect(question?.tool).toBe('name');
      const answered = await fetch(new URL('/inbox/answer', inbox.url), {
        method: 'POST',
        headers: {
          cookie: asAlice.cookie,
          'x-elicit-csrf': asAlice.csrf,
          origin: inbox.url.origin,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ id: question?.id, action: 'accept', content: { name: 'Alice' } }),
      });
      expect(answered.status).toBe(204);
      expect(textOf(await call)).toBe('hello Alice');
    } finally {
      await alice.close();
    }
  });

  it("answers 500 server_error, not 401, while the issuer's keys cannot be fetched", async () => {
    // Its own provider, stopped after discovery and before any key was fetched.
    const gone = await startIdp([hostClient], { jwtResources: () => true });
    const tokens = await accessTokens({ issuer: gone.issuer, resource, allowInsecure: true });
    const token = await jwtAccessToken(gone, 'alice', resource);
    await gone.close();
    const request = new Request(resource, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    const refused = await tokens.authInfo(request);
    expect(refused).toBeInstanceOf(Response);
    const r = refused as Response;
    expect(r.status).toBe(500);
    expect(r.headers.get('www-authenticate')).toBeNull();
    expect(await r.json()).toEqual({
      error: 'server_error',
      error_description: "The token issuer's signing keys could not be fetched; try again shortly.",
    });
  });

  it('refuses a configuration that cannot work, with a stable code', async () => {
    await expect(
      accessTokens({ issuer: 'http://idp.example.com', resource }),
    ).rejects.toMatchObject({ code: 'ELICIT_ACCESS_TOKEN_CONFIG' });
    await expect(
      accessTokens({ issuer: idp.issuer, resource: 'not a url', allowInsecure: true }),
    ).rejects.toBeInstanceOf(AccessTokenConfigError);
    // An issuer that is not the one its metadata names (a typo'd path) is not discovered.
    await expect(
      accessTokens({ issuer: `${idp.issuer}/other`, resource, allowInsecure: true }),
    ).rejects.toMatchObject({ code: 'ELICIT_ACCESS_TOKEN_ISSUER' });
  });
});
