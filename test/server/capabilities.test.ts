import { describe, expect, it } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import { createServer, httpEntry } from '../../src/server/index.ts';
import { connectTo, MODERN_META, nameForm, textOf } from '../support/kit.ts';

const app = createServer({ name: 'caps', version: '1', limits: { timeoutMs: 300 } })
  .tool('ask', {}, async (_a, ask) => {
    const r = await ask.form('name', nameForm, { message: 'Name?' });
    return r.action;
  })
  .tool('polite', {}, async (_a, ask) =>
    ask.can('form') ? 'can ask' : 'pass the name as an argument instead',
  )
  .resource('profile', 'elicit://profile', { mimeType: 'text/plain' }, async (uri, ask) => {
    const r = await ask.form('who', form({ who: text() }), { message: 'Whose profile?' });
    return {
      contents: [
        { uri: uri.href, text: r.action === 'accept' ? `profile of ${r.content.who}` : 'none' },
      ],
    };
  });

async function connect(
  era: 'legacy' | 'modern',
  capabilities: Record<string, unknown>,
  onElicit?: () => Promise<unknown>,
) {
  return (await connectTo(app, { era, capabilities, ...(onElicit ? { onElicit } : {}) })).client;
}

describe.each(['legacy', 'modern'] as const)('capabilities on %s', (era) => {
  it('a client without elicitation gets a typed, helpful error and nothing is sent', async () => {
    const client = await connect(era, {});
    const message =
      'This tool needs to ask you for input, but the client did not declare form elicitation support. Use a client that supports it, or pass the values as arguments.';
    if (era === 'legacy') {
      // 2025 revisions have no error code for it: the tool answers.
      const r = await client.callTool({ name: 'ask', arguments: {} });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toBe(message);
      expect((r._meta as Record<string, unknown>)['elicit/error']).toBe(
        'ELICIT_CLIENT_UNSUPPORTED',
      );
    } else {
      // 2026-07-28: MissingRequiredClientCapability, naming what is missing (HTTP 400: http.test).
      await expect(client.callTool({ name: 'ask', arguments: {} })).rejects.toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      });
    }
    expect(textOf(await client.callTool({ name: 'polite', arguments: {} }))).toBe(
      'pass the name as an argument instead',
    );
    await client.close();
  });
  it('a URL-only client is not sent a form', async () => {
    const client = await connect(era, { elicitation: { url: {} } }, async () => ({
      action: 'accept',
    }));
    expect(textOf(await client.callTool({ name: 'polite', arguments: {} }))).toBe(
      'pass the name as an argument instead',
    );
    await client.close();
  });
  it('resources can ask', async () => {
    const client = await connect(era, { elicitation: {} }, async () => ({
      action: 'accept',
      content: { who: 'Ann' },
    }));
    const r = await client.readResource({ uri: 'elicit://profile' });
    expect((r.contents[0] as { text: string }).text).toBe('profile of Ann');
    await client.close();
  });
});

describe('legacy waiting', () => {
  it('times out with a clear result when nobody answers', async () => {
    const client = await connect('legacy', { elicitation: {} }, () => new Promise(() => {}));
    const r = await client.callTool({ name: 'ask', arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      'No answer to "name" within 0 s; nothing was done. Try again when you are ready.',
    );
    await client.close();
  });
  it('stops waiting when the tool call is cancelled', async () => {
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    const client = await connect('legacy', { elicitation: {} }, () => {
      asked();
      return new Promise(() => {});
    });
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'ask', arguments: {} },
      { signal: controller.signal, timeout: 10_000 },
    );
    await wasAsked;
    controller.abort();
    await expect(call).rejects.toThrow();
    await client.close();
  });
});

describe('a missing capability over HTTP on 2026-07-28', () => {
  const entry = httpEntry(
    createServer({ name: 'caps-http', version: '1' })
      .tool('needs_sampling', {}, async (_a, ask) => {
        const r = await ask.sample('s', {
          messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
          maxTokens: 5,
        });
        return r.role;
      })
      .prompt('needs_roots', {}, async (_a, ask) => {
        const r = await ask.roots('r');
        return {
          messages: [{ role: 'user', content: { type: 'text', text: String(r.roots.length) } }],
        };
      }),
  );
  const post = (method: string, params: Record<string, unknown>) =>
    entry.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          host: '127.0.0.1',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          'mcp-name': String(params.name),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method,
          params: {
            ...params,
            _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': {} },
          },
        }),
      }),
    );

  it('a tool answers -32021 with requiredCapabilities and HTTP 400', async () => {
    const res = await post('tools/call', { name: 'needs_sampling', arguments: {} });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { id: number; error: { code: number; data: unknown } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32021);
    expect(body.error.data).toMatchObject({ requiredCapabilities: { sampling: {} } });
  });

  it('so does a prompt', async () => {
    const res = await post('prompts/get', { name: 'needs_roots', arguments: {} });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; data: unknown } };
    expect(body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { roots: {} } },
    });
  });
});
