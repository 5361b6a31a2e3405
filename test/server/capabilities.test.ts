import { describe, expect, it } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import { createServer } from '../../src/server/index.ts';
import { connectTo, nameForm, textOf } from '../support/kit.ts';

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
    const r = await client.callTool({ name: 'ask', arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      'This tool needs to ask you for input, but the client did not declare form elicitation support. Use a client that supports it, or pass the values as arguments.',
    );
    expect((r._meta as Record<string, unknown>)['elicit/error']).toBe('ELICIT_CLIENT_UNSUPPORTED');
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
