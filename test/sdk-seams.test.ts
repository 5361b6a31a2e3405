/**
 * The SDK seams (src/kernel/sdk-seams.ts) pinned to the installed SDK: its version is the one
 * the seams were written against, and each hook a seam uses is still there and behaves as the
 * seam expects. After an SDK upgrade, a failure here names the seam to look at again: keep it
 * (and move SDK_SEAMS_VERSION) if the limitation is still there, remove it if the SDK now
 * offers a public way.
 */
import { readFileSync } from 'node:fs';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import * as serverSdk from '@modelcontextprotocol/server';
import {
  type AuthInfo,
  createMcpHandler,
  fromJsonSchema,
  isLegacyRequest,
  McpServer,
  PerRequestHTTPServerTransport,
  requireScopes,
  Server,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  beforeMessages,
  dispatchInternals,
  forgetClientIdentity,
  hearCallAborts,
  interceptRegistrations,
  isRequestSignal,
  registeredToolsOf,
  replaceExecuteToolHandler,
  resultValidator,
  SDK_SEAMS,
  SDK_SEAMS_VERSION,
  seedClientIdentity,
  serveRegisteredTools,
  wrapStoredHandlers,
} from '../src/kernel/sdk-seams.ts';
import { Withdrawal } from '../src/server/engines/withdrawal.ts';
import { classify, plainToolCall } from '../src/server/lean-call.ts';
import { readReply } from './support/kit.ts';

const installed = (pkg: string): string =>
  (
    JSON.parse(
      readFileSync(
        new URL(`../node_modules/@modelcontextprotocol/${pkg}/package.json`, import.meta.url),
        'utf8',
      ),
    ) as { version: string }
  ).version;

describe('SDK seams', () => {
  it('are written against the installed SDK version (server and client)', () => {
    const seams = Object.keys(SDK_SEAMS).join(', ');
    for (const pkg of ['server', 'client'])
      expect(
        installed(pkg),
        `@modelcontextprotocol/${pkg} is not ${SDK_SEAMS_VERSION}: check each seam (${seams}) against it, then move SDK_SEAMS_VERSION`,
      ).toBe(SDK_SEAMS_VERSION);
  });

  it('wrapHandler: Server and Client still store handlers through a protected _wrapHandler', () => {
    for (const proto of [Server.prototype, Client.prototype])
      expect(typeof (proto as unknown as { _wrapHandler?: unknown })._wrapHandler).toBe('function');
    const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
    const seen: string[] = [];
    wrapStoredHandlers(server, (method, wrapped) => {
      seen.push(method);
      return wrapped;
    });
    server.setRequestHandler('tools/list', async () => ({ tools: [] }));
    expect(seen).toContain('tools/list');
  });

  it('wrapHandler and setRequestHandler: the SDK calls both as methods, so one hook serves every instance', () => {
    const wrap = <H>(_method: string, wrapped: H) => wrapped;
    const intercept = (register: (m: string, ...r: unknown[]) => void, m: string, r: unknown[]) =>
      register(m, ...r);
    const servers = [0, 1].map(() => {
      const mcp = new McpServer({ name: 's', version: '1' });
      wrapStoredHandlers(mcp.server, wrap);
      interceptRegistrations(mcp.server, intercept);
      mcp.registerTool('t', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
      return mcp;
    });
    const [a, b] = servers.map((m) => m.server as unknown as Record<string, unknown>);
    expect(a?._wrapHandler).toBe(b?._wrapHandler);
    expect(a?.setRequestHandler).toBe(b?.setRequestHandler);
  });

  it('setRequestHandler: McpServer still installs its call handlers through setRequestHandler', () => {
    const mcp = new McpServer({ name: 's', version: '1' });
    const seen: string[] = [];
    interceptRegistrations(mcp.server, (register, method, rest) => {
      seen.push(method);
      register(method, ...rest);
    });
    mcp.registerTool('t', {}, async () => ({ content: [] }));
    mcp.registerPrompt('p', {}, async () => ({ messages: [] }));
    mcp.registerResource('r', 'file:///r', {}, async () => ({ contents: [] }));
    expect(seen).toEqual(expect.arrayContaining(['tools/call', 'prompts/get', 'resources/read']));
  });

  it('executeToolHandler: McpServer still runs a tool through its private executeToolHandler(tool, args, ctx)', async () => {
    class Sub extends McpServer {}
    const seen: unknown[] = [];
    const handler = async () => ({ content: [{ type: 'text' as const, text: 'sdk' }] });
    replaceExecuteToolHandler(Sub.prototype, McpServer.prototype, (self, tool, args, ctx, sdk) => {
      seen.push(self instanceof Sub, tool.handler === handler, args);
      return sdk(self, tool, args, ctx);
    });
    const mcp = new Sub({ name: 's', version: '1' });
    mcp.registerTool('t', {}, handler);
    const client = new Client({ name: 'c', version: '1' });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await mcp.connect(st);
    await client.connect(ct);
    const result = (await client.callTool({ name: 't', arguments: {} })) as {
      content: { text: string }[];
    };
    expect(result.content[0]?.text).toBe('sdk');
    expect(seen).toEqual([true, true, undefined]);
    await mcp.close();
  });

  it('registeredTools: a server given another’s table of tools lists and calls them', async () => {
    const holder = new McpServer({ name: 's', version: '1' });
    holder.registerTool('t', { description: 'd' }, async () => ({
      content: [{ type: 'text', text: 'ok' }],
    }));
    const mcp = new McpServer({ name: 's', version: '1' });
    serveRegisteredTools(mcp, registeredToolsOf(holder));
    expect(registeredToolsOf(mcp)).toBe(registeredToolsOf(holder));
    const client = new Client({ name: 'c', version: '1' });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await mcp.connect(st);
    await client.connect(ct);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.description])).toEqual([['t', 'd']]);
    const result = (await client.callTool({ name: 't', arguments: {} })) as {
      content: { text: string }[];
    };
    expect(result.content[0]?.text).toBe('ok');
    await mcp.close();
  });

  it('wrapHandler: the SDK’s Server still checks tools/call params itself, as -32602 (the params guard leaves it be)', async () => {
    const mcp = new McpServer({ name: 's', version: '1' });
    mcp.registerTool('t', {}, async () => ({ content: [] }));
    const [peer, st] = InMemoryTransport.createLinkedPair();
    await mcp.connect(st);
    const replies: { id?: number; error?: { code: number } }[] = [];
    peer.onmessage = (m) => {
      replies.push(m as never);
    };
    await peer.start();
    await peer.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    await peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 5 } });
    await new Promise((r) => setTimeout(r, 20));
    expect(replies.find((r) => r.id === 2)?.error?.code).toBe(-32602);
    await mcp.close();
  });

  it('createToolError: McpServer still has the private createToolError that makes isError results', () => {
    const make = (McpServer.prototype as unknown as { createToolError?: unknown }).createToolError;
    expect(typeof make).toBe('function');
    const mcp = new McpServer({ name: 's', version: '1' });
    const result = (make as (m: string) => { isError?: boolean }).call(mcp, 'boom');
    expect(result.isError).toBe(true);
  });

  it('transportMessages: connect still sets the transport onmessage that the seam chains in front of', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const mcp = new McpServer({ name: 's', version: '1' });
    await mcp.connect(serverSide);
    expect(typeof serverSide.onmessage).toBe('function');
    const seen: unknown[] = [];
    beforeMessages(serverSide as never, (message) => {
      seen.push(message);
      return false;
    });
    await clientSide.start();
    await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toHaveLength(1);
    await mcp.close();
  });

  it('clientIdentity: a reused server keeps the last request’s clientInfo unless forgotten', async () => {
    const mcp = new McpServer({ name: 's', version: '1' });
    mcp.registerTool('t', {}, async () => ({ content: [] }));
    const handler = createMcpHandler(() => mcp, { legacy: 'reject' });
    const meta = (info: boolean) => ({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      ...(info ? { 'io.modelcontextprotocol/clientInfo': { name: 'first', version: '1' } } : {}),
      'io.modelcontextprotocol/clientCapabilities': {},
    });
    const call = async (info: boolean) => {
      const res = await handler.fetch(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 't',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 't', _meta: meta(info) },
          }),
        }),
      );
      await res.text();
      await new Promise((r) => setTimeout(r, 0));
    };
    await call(true);
    await call(false);
    // The limitation: the second request named no client, yet the first one's is still there.
    expect(mcp.server.getClientVersion()?.name).toBe('first');
    forgetClientIdentity(mcp.server);
    expect(mcp.server.getClientVersion()).toBeUndefined();
    expect(mcp.server.getClientCapabilities()).toBeUndefined();
    await handler.close();
  });

  it('requestSignal: a request reads its signal through aborted, reason and its abort listener only', async () => {
    const mcp = new McpServer({ name: 's', version: '1' });
    const read = new Set<string>();
    let withdrawal: Withdrawal | undefined;
    mcp.registerTool('t', {}, async (ctx) => {
      const own = new Withdrawal(ctx.mcpReq.signal);
      withdrawal = own;
      // Every member the SDK reads, recorded.
      const spy = new Proxy(own, {
        get(target, key) {
          read.add(String(key));
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const outcome = await ctx.mcpReq
        .send(
          {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: 'm',
              requestedSchema: { type: 'object', properties: {} },
            },
          },
          { signal: spy as unknown as AbortSignal },
        )
        .then(
          () => 'answered',
          (error: unknown) => String((error as Error).message),
        );
      return { content: [{ type: 'text', text: outcome }] };
    });
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: {} } });
    const cancelled: unknown[] = [];
    let shown: (() => void) | undefined;
    client.setRequestHandler('elicitation/create', (_req, ctx) => {
      shown?.();
      return new Promise((resolve) =>
        ctx.mcpReq.signal.addEventListener('abort', () => {
          cancelled.push(ctx.mcpReq.id);
          resolve({ action: 'cancel' });
        }),
      );
    });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await mcp.connect(st);
    await client.connect(ct);
    const asked = new Promise<void>((resolve) => {
      shown = resolve;
    });
    const call = client.callTool({ name: 't', arguments: {} });
    await asked;
    withdrawal?.withdraw('taken back');
    const result = (await call) as { content: { text: string }[] };
    // The request was cancelled on the wire (the client saw notifications/cancelled) and failed.
    expect(result.content[0]?.text).toContain('taken back');
    expect(cancelled).toHaveLength(1);
    expect(
      [...read].every((k) =>
        ['aborted', 'reason', 'addEventListener', 'removeEventListener'].includes(k),
      ),
    ).toBe(true);
    expect(read).toContain('addEventListener');
    await mcp.close();
  });

  it('callAborts: the SDK aborts a call’s signal in _oncancel and _onclose, its own per request', async () => {
    const mcp = new McpServer({ name: 's', version: '1' });
    const signals: AbortSignal[] = [];
    const mine: boolean[] = [];
    let started: (() => void) | undefined;
    mcp.registerTool('t', {}, (ctx) => {
      signals.push(ctx.mcpReq.signal);
      mine.push(isRequestSignal(mcp.server, ctx.mcpReq.id, ctx.mcpReq.signal));
      started?.();
      return new Promise(() => {});
    });
    const heard: AbortSignal[] = [];
    hearCallAborts(mcp.server, (signal) => heard.push(signal));
    const client = new Client({ name: 'c', version: '1' });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await mcp.connect(st);
    await client.connect(ct);
    const start = () =>
      new Promise<void>((resolve) => {
        started = resolve;
      });
    // Cancelled by the client (notifications/cancelled): heard once the SDK has aborted it.
    const abort = new AbortController();
    let running = start();
    const cancelled = client
      .callTool({ name: 't', arguments: {} }, { signal: abort.signal })
      .catch(() => 'cancelled');
    await running;
    abort.abort('no');
    expect(await cancelled).toBe('cancelled');
    for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(heard).toEqual([signals[0]]);
    expect(signals[0]?.aborted).toBe(true);
    // The connection closed: every call still running is heard.
    running = start();
    void client.callTool({ name: 't', arguments: {} }).catch(() => {});
    await running;
    await client.close();
    for (let i = 0; i < 50 && heard.length === 1; i++) await new Promise((r) => setTimeout(r, 5));
    expect(heard).toEqual([signals[0], signals[1]]);
    expect(mine).toEqual([true, true]);
    // The limitation: nothing else tells a handler of its call's abort but a listener on its signal.
    expect(typeof (mcp.server as unknown as { _oncancel?: unknown })._oncancel).toBe('function');
  });

  it('resultValidator: send checks a result through the codec function the adapter calls', async () => {
    const mcp = new McpServer({ name: 's', version: '1' });
    const outcomes: string[] = [];
    mcp.registerTool('t', {}, async (ctx) => {
      const check = resultValidator(mcp.server, 'elicitation/create');
      const request = {
        method: 'elicitation/create',
        params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } },
      } as const;
      for (const send of [
        () => ctx.mcpReq.send(request as never),
        () => ctx.mcpReq.send(request as never, check as never),
      ])
        outcomes.push(
          await send().then(
            (r) => `ok ${JSON.stringify(r)}`,
            (e: unknown) => `${(e as { code?: unknown }).code} ${(e as Error).message}`,
          ),
        );
      return { content: [] };
    });
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: {} } });
    const answers = [
      { action: 'accept', content: { a: 'x' } },
      { action: 'maybe' },
      { action: 'accept', content: { a: { nested: true } } },
    ];
    let n = 0;
    client.setRequestHandler(
      'elicitation/create',
      async () => answers[Math.floor(n++ / 2)] as never,
    );
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await mcp.connect(st);
    await client.connect(ct).catch(() => {});
    // The client's own check refuses the bad answers before they leave; bypass it on the wire.
    const inner = ct.send.bind(ct);
    ct.send = (message, options) => {
      const m = message as { id?: unknown; result?: unknown; error?: unknown };
      if (m.error !== undefined && m.id !== undefined)
        return inner(
          { jsonrpc: '2.0', id: m.id as number, result: answers[Math.floor((n - 1) / 2)] as never },
          options,
        );
      return inner(message, options);
    };
    for (let i = 0; i < answers.length; i++) await client.callTool({ name: 't', arguments: {} });
    // The SDK's own validator and the adapter made once agree on every answer, errors included.
    for (let i = 0; i < outcomes.length; i += 2) expect(outcomes[i + 1]).toBe(outcomes[i]);
    expect(outcomes.some((o) => o.startsWith('ok'))).toBe(true);
    expect(outcomes.some((o) => !o.startsWith('ok'))).toBe(true);
    expect(resultValidator(mcp.server, 'elicitation/create')).toBe(
      resultValidator(mcp.server, 'elicitation/create'),
    );
    await client.close();
  });
});

// A JSON Schema extension keyword (SEP-2243) that the schema types do not list.
const HEADER_REGION = { 'x-mcp-header': 'Region' } as unknown as Record<string, never>;

const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const HEADERS: Record<string, string> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': 't',
};

/** A 2026-07-28 tools/call of `name`, headers changed by `change` (null drops one). */
function toolCall(
  name: string,
  change: Record<string, string | null> = {},
  params: Record<string, unknown> = {},
): { request: Request; body: unknown } {
  const headers = new Headers();
  for (const [k, v] of Object.entries({ ...HEADERS, 'mcp-name': name, ...change }))
    if (v !== null) headers.set(k, v);
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, _meta: META, ...params },
  };
  return {
    request: new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    }),
    body,
  };
}

/** A server whose supported versions list 2026-07-28, as elicit builds its modern ones. */
function modernServer(): McpServer {
  const mcp = new McpServer(
    { name: 's', version: '1' },
    { supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, MODERN] },
  );
  mcp.registerTool('t', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
  mcp.registerTool(
    'headered',
    {
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { region: { type: 'string', ...HEADER_REGION } },
      }),
    },
    async () => ({ content: [] }),
  );
  mcp.registerTool('scoped', { scopeChallenge: requireScopes('admin') }, async () => ({
    content: [],
  }));
  return mcp;
}

async function answer(res: Response): Promise<{ status: number; code?: number }> {
  const msg = (await readReply(res)) as { error?: { code: number } };
  return { status: res.status, ...(msg.error === undefined ? {} : { code: msg.error.code }) };
}

describe('SDK seam modernDispatch: what the lean tools/call path stands in for', () => {
  it('the SDK still exports no per-request dispatch of its handler (the limitation)', () => {
    const exported = Object.keys(serverSdk);
    for (const name of [
      'invoke',
      'validateStandardRequestHeaders',
      'requiredClientCapabilitiesForRequest',
      'validateMcpParamHeaders',
      'setNegotiatedProtocolVersion',
    ])
      expect(exported, name).not.toContain(name);
    for (const name of [
      'classifyInboundRequest',
      'PerRequestHTTPServerTransport',
      'isJsonContentType',
    ])
      expect(exported, name).toContain(name);
  });

  it('classifying once routes the eras as isLegacyRequest does', async () => {
    const bodies: unknown[] = [
      toolCall('t').body,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } },
      [toolCall('t').body],
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 1, result: {} },
      { nonsense: true },
    ];
    const headerSets = [HEADERS, {}, { 'mcp-protocol-version': '2025-11-25' }];
    for (const body of bodies)
      for (const h of headerSets) {
        const req = () =>
          new Request('http://127.0.0.1/mcp', {
            method: 'POST',
            headers: h,
            body: JSON.stringify(body),
          });
        expect(classify(req(), body).kind === 'legacy', JSON.stringify([body, h])).toBe(
          await isLegacyRequest(req(), body),
        );
      }
  });

  it('the handler serves what the predicate takes, and refuses each header it requires when it is missing or differs', async () => {
    const handler = createMcpHandler(modernServer, { legacy: 'reject' });
    const served = toolCall('t');
    expect(
      plainToolCall(served.request.clone(), classify(served.request, served.body)),
    ).toBeDefined();
    expect(await answer(await handler.fetch(served.request))).toEqual({ status: 200 });
    const changes: Record<string, string | null>[] = [
      { 'mcp-protocol-version': null },
      { 'mcp-method': null },
      { 'mcp-name': null },
      { 'mcp-name': 'u' },
      { 'mcp-method': 'tools/list' },
      { 'mcp-protocol-version': '2025-11-25' },
    ];
    for (const change of changes) {
      const { request, body } = toolCall('t', change);
      expect(
        plainToolCall(request, classify(request, body)),
        JSON.stringify(change),
      ).toBeUndefined();
      expect(await answer(await handler.fetch(request)), JSON.stringify(change)).toEqual({
        status: 400,
        code: -32020,
      });
    }
    // A body that is not JSON by its Content-Type is refused before anything else.
    const text = toolCall('t', { 'content-type': 'text/plain' });
    expect(plainToolCall(text.request, classify(text.request, text.body))).toBeUndefined();
    expect((await handler.fetch(text.request)).status).toBe(415);
    await handler.close();
  });

  it('tools/call requires no client capability: a client declaring none is served', async () => {
    const handler = createMcpHandler(modernServer, { legacy: 'reject' });
    const { request } = toolCall('t');
    expect(await answer(await handler.fetch(request))).toEqual({ status: 200 });
    await handler.close();
  });

  it('Mcp-Param headers and scope challenges are checked by the handler, read through toolInputSchemaJson and resolveScopeChallenge', async () => {
    const mcp = modernServer();
    const open = dispatchInternals(mcp);
    expect(JSON.stringify(open.toolInputSchemaJson('headered'))).toContain('x-mcp-header');
    expect(JSON.stringify(open.toolInputSchemaJson('t'))).not.toContain('x-mcp-header');
    expect(open.toolInputSchemaJson('nope')).toBeUndefined();
    const request = (name: string) => toolCall(name).body as never;
    expect(open.resolveScopeChallenge({ request: request('t') })).toBeUndefined();
    const auth: AuthInfo = { token: 'x', clientId: 'c', scopes: [] };
    expect(
      open.resolveScopeChallenge({ request: request('scoped'), authInfo: auth as never }),
    ).toBeDefined();
    const handler = createMcpHandler(modernServer, { legacy: 'reject' });
    const headered = toolCall('headered', {}, { arguments: { region: 'eu' } });
    expect(await answer(await handler.fetch(headered.request))).toEqual({
      status: 400,
      code: -32020,
    });
    const scoped = toolCall('scoped');
    expect((await handler.fetch(scoped.request, { authInfo: auth })).status).toBe(403);
    await handler.close();
  });

  it('connecting a server that lists 2026-07-28 to a classified transport binds it, and it serves the call', async () => {
    const mcp = modernServer();
    const { request, body } = toolCall('t');
    const route = classify(request, body);
    if (route.kind !== 'modern') throw new Error('not modern');
    const transport = new PerRequestHTTPServerTransport({ classification: route.classification });
    await mcp.connect(transport);
    expect(mcp.server.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(await answer(await transport.handleMessage(route.message, { request }))).toEqual({
      status: 200,
    });
  });

  it('clientIdentity: seeding writes what the handler seeds, only the fields given', async () => {
    const viaSdk = modernServer();
    const handler = createMcpHandler(() => viaSdk, { legacy: 'reject' });
    await (await handler.fetch(toolCall('t').request)).text();
    await new Promise((r) => setTimeout(r, 0));
    const seeded = modernServer();
    seedClientIdentity(seeded.server, META['io.modelcontextprotocol/clientInfo'], {});
    expect(seeded.server.getClientVersion()).toEqual(viaSdk.server.getClientVersion());
    expect(seeded.server.getClientCapabilities()).toEqual(viaSdk.server.getClientCapabilities());
    seedClientIdentity(seeded.server, undefined, undefined);
    expect(seeded.server.getClientVersion()).toEqual({ name: 'c', version: '1' });
    await handler.close();
  });
});
