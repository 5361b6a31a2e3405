/**
 * What is not elicitation goes through as it is: the server's sampling and roots requests reach
 * a host that declares them (on a 2026-07-28 server as input_required rounds, on a 2025 server
 * pushed), prompts, resources, completions and logging are forwarded, and a host's cancel stops
 * the server's call.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createGateway, type Gateway } from '../../src/gateway/index.ts';
import { createServer, httpEntry, type Listening, listen } from '../../src/server/index.ts';

let upstream: Listening;
let cancelled = 0;

beforeAll(async () => {
  const app = createServer({ name: 'helper', version: '1' })
    .tool('think', { description: 'samples and reads roots' }, async (_args, ask) => {
      const r = await ask.all({
        model: {
          sample: {
            messages: [{ role: 'user', content: { type: 'text', text: 'capital of France?' } }],
            maxTokens: 10,
          },
        },
        where: { roots: true },
      });
      const said = (r.model.content as { text?: string }).text;
      return `${said} in ${r.where.roots.map((x) => x.uri).join(',')}`;
    })
    .tool('wait', { description: 'waits until cancelled' }, async (_args, _ask, ctx) => {
      await new Promise<void>((resolve) =>
        ctx.mcpReq.signal.addEventListener('abort', () => {
          cancelled++;
          resolve();
        }),
      );
      return 'stopped';
    })
    .prompt(
      'greet',
      { description: 'a prompt', argsSchema: z.object({ who: z.string() }) },
      async ({ who }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }],
      }),
    )
    .resource('motd', 'test://motd', { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, text: 'message of the day' }],
    }));
  upstream = await listen(httpEntry(app));
});
afterAll(async () => {
  await upstream?.close();
});

async function through(
  era: 'legacy' | 'modern',
): Promise<{ gateway: Gateway; front: Listening; host: Client }> {
  const gateway = await createGateway({
    transport: () => new StreamableHTTPClientTransport(upstream.url),
    era,
  });
  const front = await gateway.listen();
  const host = new Client(
    { name: 'host', version: '1' },
    { capabilities: { sampling: {}, roots: { listChanged: true } } },
  );
  host.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'Paris' },
    model: 'test-model',
  }));
  host.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work' }] }));
  host.setVersionNegotiation({ mode: 'legacy' });
  await host.connect(new StreamableHTTPClientTransport(front.url));
  return { gateway, front, host };
}

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

describe('forwarded as it is', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`server on ${era === 'modern' ? '2026-07-28' : '2025-11-25'}: sampling and roots reach the host`, async () => {
      const { gateway, front, host } = await through(era);
      expect(textOf(await host.callTool({ name: 'think', arguments: {} }))).toBe(
        'Paris in file:///work',
      );
      await host.close();
      await front.close();
      await gateway.close();
    });
  }

  it('prompts, resources and a cancelled call', async () => {
    const { gateway, front, host } = await through('modern');
    const prompt = await host.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello Ada' });
    const resources = await host.listResources();
    expect(resources.resources.map((r) => r.uri)).toEqual(['test://motd']);
    const read = await host.readResource({ uri: 'test://motd' });
    expect((read.contents[0] as { text: string }).text).toBe('message of the day');
    const stop = new AbortController();
    const call = host.callTool({ name: 'wait', arguments: {} }, { signal: stop.signal });
    await new Promise((r) => setTimeout(r, 300));
    stop.abort();
    await expect(call).rejects.toThrow();
    for (let i = 0; i < 50 && cancelled === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(cancelled).toBe(1);
    await host.close();
    await front.close();
    await gateway.close();
  });
});
