/**
 * A 2026-07-28 host in front of a 2025-only server: a plain SDK v2 client pinned to 2026-07-28
 * starts `elicit gateway -- node test/fixtures/v1-server.ts` (the command, over stdio), whose
 * server is built on the plain v1 SDK and asks with `elicitInput` (a form) and -32042 (a URL
 * page, then the completion notification). Each pushed question reaches the host as an
 * input_required round; the held call toward the server goes on with the answer.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
type Params = Record<string, unknown> & { message: string; mode?: string };

let client: Client;
const seen: Params[] = [];
let reply: (p: Params) => unknown = () => ({ action: 'cancel' });

beforeAll(async () => {
  client = new Client(
    { name: 'v2-host', version: '1' },
    { capabilities: { elicitation: { form: {}, url: {} } } },
  );
  client.setVersionNegotiation({ mode: { pin: '2026-07-28' } });
  client.setRequestHandler('elicitation/create', async (req) => {
    seen.push(req.params as Params);
    return reply(req.params as Params) as never;
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        join(root, 'bin', 'elicit.js'),
        'gateway',
        '--',
        process.execPath,
        join(root, 'test', 'fixtures', 'v1-server.ts'),
      ],
      stderr: 'ignore',
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
});

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

describe('SDK v2 host on 2026-07-28 → elicit gateway → plain SDK v1 server (2025 only)', () => {
  it('speaks 2026-07-28 to the host and lists the server’s tools', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['book', 'calendar']);
  });

  it('a form the server pushes (elicitInput) is an input_required round, answered', async () => {
    seen.length = 0;
    reply = () => ({ action: 'accept', content: { name: 'Ada', guests: 4 } });
    const r = await client.callTool({ name: 'book', arguments: { restaurant: 'Chez Elicit' } });
    expect(textOf(r)).toBe('booked 4 for Ada at Chez Elicit');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.message).toBe('Details for Chez Elicit?');
  });

  it('a decline reaches the server as a decline', async () => {
    seen.length = 0;
    reply = () => ({ action: 'decline' });
    const r = await client.callTool({ name: 'book', arguments: { restaurant: 'Nowhere' } });
    expect(textOf(r)).toBe('cancelled: decline');
  });

  it('-32042 becomes a URL round; after the server’s completion the call is made again', async () => {
    seen.length = 0;
    reply = () => ({ action: 'accept' });
    const r = await client.callTool({ name: 'calendar', arguments: {} });
    expect(textOf(r)).toBe('3 meetings today (after 1 sign-in)');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      mode: 'url',
      message: 'Sign in to your calendar',
      url: 'https://example.com/signin?state=el-1',
    });
  });
});
