/**
 * The SDK seams (src/kernel/sdk-seams.ts) pinned to the installed SDK: its version is the one
 * the seams were written against, and each hook a seam uses is still there and behaves as the
 * seam expects. After an SDK upgrade, a failure here names the seam to look at again: keep it
 * (and move SDK_SEAMS_VERSION) if the limitation is still there, remove it if the SDK now
 * offers a public way.
 */
import { readFileSync } from 'node:fs';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer, Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  beforeMessages,
  forgetClientIdentity,
  interceptRegistrations,
  SDK_SEAMS,
  SDK_SEAMS_VERSION,
  wrapStoredHandlers,
} from '../src/kernel/sdk-seams.ts';
import { Withdrawal } from '../src/server/engines/withdrawal.ts';

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
});
