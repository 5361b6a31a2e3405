/**
 * Who is asking: a server reachable beyond loopback must tell callers apart (or say it does
 * not), and a request with no principal is refused rather than filed under a shared one.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import {
  createServer,
  type ElicitServerOptions,
  httpEntry,
  listen,
  type McpHttpEntry,
  PrincipalConfigError,
} from '../../src/server/index.ts';
import { callTool } from '../support/mrtr.ts';

function app(principal?: ElicitServerOptions['principal']) {
  return createServer({ name: 'who', version: '1', principal }).tool('t', {}, async (_a, ask) => {
    await ask.form('k', form({ v: text() }));
    return 'done';
  });
}

const call = (
  entry: McpHttpEntry,
  host: string,
  params: Record<string, unknown> = {},
  token?: string,
) => callTool(entry, 't', params, { host, token });

/**
 * Test tokens: `sub:<name>` names a subject, `client:<id>` only a client, `nois:<name>` a
 * subject without an issuer, `raw:<json>` the claims `{iss, sub}` as given.
 */
function authInfo(req: Request): AuthInfo | undefined {
  const token = req.headers.get('authorization')?.replace(/^Bearer /, '');
  if (token === undefined) return undefined;
  const at = token.indexOf(':');
  const kind = token.slice(0, at);
  const value = token.slice(at + 1);
  const extra =
    kind === 'sub'
      ? { iss: 'https://idp.example', sub: value }
      : kind === 'nois'
        ? { sub: value }
        : kind === 'raw'
          ? (JSON.parse(decodeURIComponent(value)) as Record<string, unknown>)
          : {};
  return { token, clientId: kind === 'client' ? value : 'app', scopes: [], extra };
}

/** A `raw:` token for issuer and subject. */
const claims = (iss: unknown, sub: unknown) =>
  `raw:${encodeURIComponent(JSON.stringify({ iss, sub }))}`;

const PUBLIC = { allowedHosts: ['mcp.example.com'] };

describe('principal', () => {
  it('refuses to serve beyond loopback when callers cannot be told apart', async () => {
    expect(() => httpEntry(app(), PUBLIC)).toThrow(PrincipalConfigError);
    expect(() => httpEntry(app('token-or-client-id'), PUBLIC)).toThrow(/principal: 'shared-local'/);
    await expect(listen(httpEntry(app()), { host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'ELICIT_PRINCIPAL_CONFIG',
    });
  });

  it('serves beyond loopback with verified tokens, a resolver, or the explicit opt-in', async () => {
    const withAuth = httpEntry(app(), { ...PUBLIC, authInfo });
    expect((await call(withAuth, 'mcp.example.com', {}, 'sub:alice')).result?.resultType).toBe(
      'input_required',
    );
    const resolver = httpEntry(
      app(() => 'team'),
      PUBLIC,
    );
    expect((await call(resolver, 'mcp.example.com')).result?.resultType).toBe('input_required');
    const shared = httpEntry(app('shared-local'), PUBLIC);
    expect((await call(shared, 'mcp.example.com')).result?.resultType).toBe('input_required');
  });

  it('refuses a request without a principal with -32600, never as the shared "local"', async () => {
    const entry = httpEntry(app(), { ...PUBLIC, authInfo });
    const none = await call(entry, 'mcp.example.com');
    expect(none.error?.code).toBe(-32600);
    expect(none.error?.message).toMatch(/access token/);
    // A token naming only a client is no person under the default.
    expect((await call(entry, 'mcp.example.com', {}, 'client:cli')).error?.code).toBe(-32600);
  });

  it('keeps callers apart: one subject cannot continue another subject’s state', async () => {
    const entry = httpEntry(app('token-or-client-id'), { ...PUBLIC, authInfo });
    const first = await call(entry, 'mcp.example.com', {}, 'sub:alice');
    const requestState = first.result?.requestState as string;
    const answer = {
      requestState,
      inputResponses: { k: { action: 'accept', content: { v: 'x' } } },
    };
    expect((await call(entry, 'mcp.example.com', answer, 'sub:bob')).error?.code).toBe(-32602);
    expect((await call(entry, 'mcp.example.com', answer, 'client:cli')).error?.code).toBe(-32602);
    expect((await call(entry, 'mcp.example.com', answer, 'sub:alice')).result?.content).toEqual([
      { type: 'text', text: 'done' },
    ]);
    // With the opt-in, a token without a subject is its client.
    const byClient = await call(entry, 'mcp.example.com', {}, 'client:cli');
    expect(byClient.result?.resultType).toBe('input_required');
  });

  it('issuer and subject are joined injectively: a separator cannot merge two callers', async () => {
    const entry = httpEntry(app(), { ...PUBLIC, authInfo });
    // (https://a.example, tenant|bob) and (https://a.example|tenant, bob) were one principal.
    const one = claims('https://a.example', 'tenant|bob');
    const other = claims('https://a.example|tenant', 'bob');
    const first = await call(entry, 'mcp.example.com', {}, one);
    const answer = {
      requestState: first.result?.requestState as string,
      inputResponses: { k: { action: 'accept', content: { v: 'x' } } },
    };
    expect((await call(entry, 'mcp.example.com', answer, other)).error?.code).toBe(-32602);
    expect((await call(entry, 'mcp.example.com', answer, one)).result?.content).toEqual([
      { type: 'text', text: 'done' },
    ]);
  });

  it('refuses a token with a subject and no issuer (-32600, token_without_issuer)', async () => {
    for (const option of ['token', 'token-or-client-id', 'shared-local'] as const) {
      const entry = httpEntry(app(option), { ...PUBLIC, authInfo });
      for (const token of ['nois:bob', claims('', 'bob'), claims(5, 'bob'), claims(null, 'bob')]) {
        const refused = await call(entry, 'mcp.example.com', {}, token);
        expect(refused.error?.code).toBe(-32600);
        expect(refused.error?.data).toMatchObject({
          reason: 'token_without_issuer',
          code: 'ELICIT_TOKEN_NO_ISSUER',
        });
        expect(refused.error?.message).toMatch(/no issuer/);
      }
    }
    // Your own resolver decides: it may accept such tokens.
    const resolver = httpEntry(
      app((ctx) => `sub-only:${String(ctx.http?.authInfo?.extra?.sub)}`),
      { ...PUBLIC, authInfo },
    );
    expect((await call(resolver, 'mcp.example.com', {}, 'nois:bob')).result?.resultType).toBe(
      'input_required',
    );
  });

  it('a loopback-only server without auth is one person: local', async () => {
    const entry = httpEntry(app());
    const first = await call(entry, '127.0.0.1');
    const requestState = first.result?.requestState as string;
    const done = await call(entry, 'localhost', {
      requestState,
      inputResponses: { k: { action: 'accept', content: { v: 'x' } } },
    });
    expect(done.result?.content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('on a 2025-11-25 session too: no principal, -32600 before the handler runs', async () => {
    let ran = 0;
    const counted = createServer({ name: 'who', version: '1' })
      .tool('t', {}, () => {
        ran++;
        return 'ran';
      })
      .prompt('p', {}, () => {
        ran++;
        return { messages: [] };
      })
      .resource('r', 'who://r', {}, () => {
        ran++;
        return { contents: [] };
      });
    const server = await listen(
      httpEntry(counted, { allowedHosts: ['127.0.0.1', 'mcp.example.com'], authInfo }),
    );
    const connect = async (token?: string) => {
      const client = new Client({ name: 'c', version: '1' });
      client.setVersionNegotiation({ mode: 'legacy' });
      const headers: Record<string, string> =
        token === undefined ? {} : { authorization: `Bearer ${token}` };
      await client.connect(
        new StreamableHTTPClientTransport(server.url, { requestInit: { headers } }),
      );
      return client;
    };
    try {
      const anonymous = await connect();
      expect(anonymous.getProtocolEra()).toBe('legacy');
      await expect(anonymous.callTool({ name: 't', arguments: {} })).rejects.toMatchObject({
        code: -32600,
      });
      // Prompts and resources are refused the same way.
      await expect(anonymous.getPrompt({ name: 'p', arguments: {} })).rejects.toMatchObject({
        code: -32600,
      });
      await expect(anonymous.readResource({ uri: 'who://r' })).rejects.toMatchObject({
        code: -32600,
      });
      expect(ran).toBe(0);
      const alice = await connect('sub:alice');
      expect(await alice.callTool({ name: 't', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'ran' }],
      });
      await Promise.all([anonymous.close(), alice.close()]);
    } finally {
      await server.close();
    }
  });
});
