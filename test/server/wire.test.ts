/**
 * How a tool's failure reaches the client: a protocol error is a JSON-RPC error on every era,
 * anything else the tool's own `isError` answer, and nothing a tool throws can pass for the
 * former by its message.
 */
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { createMcpHandler, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/server/index.ts';
import { escapingCount } from '../../src/server/wire.ts';

const app = createServer({ name: 'wire', version: '1' })
  .tool('protocol', {}, async () => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'no such city', { city: 'Atlantis' });
  })
  .tool('lookalike', {}, async () => {
    // The shape of the message a wire error travels under, with a made-up id.
    throw new Error('elicit wire error 00000000-0000-4000-8000-000000000000 #0');
  })
  .tool('plain', {}, async () => {
    throw new Error('the printer is on fire');
  })
  .prompt('p', {}, async () => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'no such prompt today');
  });

async function legacy(): Promise<Client> {
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await app.build('legacy').connect(st);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(ct);
  return client;
}

async function modern(): Promise<Client> {
  const handler = createMcpHandler(() => app.build('modern'));
  const client = new Client(
    { name: 't', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://wire.test/mcp'), {
      fetch: (u, i) => handler.fetch(new Request(u, i)),
    }),
  );
  return client;
}

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
});

describe.each([
  ['2025-11-25', legacy],
  ['2026-07-28', modern],
])('a tool failing on %s', (_era, connect) => {
  it('with a protocol error: a JSON-RPC error, code, message and data intact', async () => {
    const client = await connect();
    clients.push(client);
    for (let i = 0; i < 3; i++) {
      const error = await client.callTool({ name: 'protocol', arguments: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({
        code: ProtocolErrorCode.InvalidParams,
        data: { city: 'Atlantis' },
      });
      expect((error as Error).message).toContain('no such city');
      expect((error as Error).message).not.toContain('elicit wire error');
    }
    // Every wire error was taken back on its way out.
    expect(escapingCount()).toBe(0);
  });

  it('with anything else: the tool’s isError answer, even under a wire error’s message', async () => {
    const client = await connect();
    clients.push(client);
    for (const [name, text] of [
      ['lookalike', 'elicit wire error 00000000-0000-4000-8000-000000000000 #0'],
      ['plain', 'the printer is on fire'],
    ] as const) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([{ type: 'text', text }]);
    }
  });

  it('a prompt’s protocol error is a JSON-RPC error too', async () => {
    const client = await connect();
    clients.push(client);
    await expect(client.getPrompt({ name: 'p' })).rejects.toMatchObject({
      code: ProtocolErrorCode.InvalidParams,
    });
    expect(escapingCount()).toBe(0);
  });
});
