/**
 * The client pipeline through the real SDK: our server and a raw SDK server send requests; the
 * client attached with elicit checks, renders (scripted) and validates.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  attachElicitation,
  type FormRequest,
  inert,
  type Renderer,
  scriptedRenderer,
  type UrlRequest,
} from '../../src/client/index.ts';

/** A plain SDK server whose tool sends whatever elicitation params the test gives it. */
function rawServer(params: () => Record<string, unknown>) {
  const s = new McpServer({ name: 'raw', version: '1' });
  s.registerTool('ask', {}, async (ctx) => {
    try {
      const r = await ctx.mcpReq.elicitInput(params() as never, {
        relatedRequestId: ctx.mcpReq.id,
      });
      return { content: [{ type: 'text', text: JSON.stringify(r) }] };
    } catch (error) {
      return {
        content: [
          {
            type: 'text',
            text: `error ${(error as { code?: number }).code}: ${(error as Error).message}`,
          },
        ],
        isError: true,
      };
    }
  });
  return s;
}

async function connect(
  server: McpServer,
  renderer: Renderer,
  modes?: { form?: boolean; url?: boolean },
  rate?: false,
) {
  const client = new Client({ name: 'host', version: '1' });
  const elicit = attachElicitation(client, {
    renderer,
    modes,
    rateLimit: rate,
    openUrl: async () => {},
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  await client.connect(ct);
  const call = async () => {
    const r = await elicit.callTool({ name: 'ask', arguments: {} });
    return (r.content as { text: string }[])[0]?.text ?? '';
  };
  return { client, elicit, call };
}

const form = (properties: Record<string, unknown>, message = 'Please fill') => ({
  mode: 'form',
  message,
  requestedSchema: { type: 'object', properties },
});

describe('requests outside the subset are refused with -32602 and no UI', () => {
  it.each([
    ['nested object', { a: { type: 'object', properties: {} } }],
    ['array of objects', { a: { type: 'array', items: { type: 'object' } } }],
    [
      '100k options',
      { a: { type: 'string', enum: Array.from({ length: 100_000 }, (_, i) => `o${i}`) } },
    ],
    ['1 MB title', { a: { type: 'string', title: 'x'.repeat(1_000_000) } }],
    ['pattern that does not compile', { a: { type: 'string', pattern: '(' } }],
  ])('%s', async (_name, properties) => {
    let shown = 0;
    const { call } = await connect(
      rawServer(() => form(properties)),
      {
        ...scriptedRenderer(),
        form: async () => {
          shown++;
          return { action: 'cancel' };
        },
      },
    );
    expect(await call()).toMatch(/^error -32602/);
    expect(shown).toBe(0);
  });
  it('keeps pattern and checks answers against it', async () => {
    const seen: FormRequest[] = [];
    let n = 0;
    const renderer: Renderer = {
      ...scriptedRenderer(),
      form: async (req) => {
        seen.push(req);
        return { action: 'accept', content: { code: n++ === 0 ? 'abc' : 'ABC' } };
      },
    };
    const { call } = await connect(
      rawServer(() => form({ code: { type: 'string', pattern: '^[A-Z]+$' } })),
      renderer,
    );
    expect(await call()).toBe('{"action":"accept","content":{"code":"ABC"}}');
    expect(seen[0]?.schema.fields[0]).toMatchObject({ kind: 'text', pattern: '^[A-Z]+$' });
    expect(seen[1]?.issues.map((i) => i.code)).toEqual(['pattern']);
  });
  it('URL mode to a client that declared only form is refused', async () => {
    const { call } = await connect(
      rawServer(() => ({
        mode: 'url',
        message: 'Sign in',
        url: 'https://example.com',
        elicitationId: 'e1',
      })),
      scriptedRenderer(),
      { form: true, url: false },
    );
    expect(await call()).toMatch(/^error/);
  });
});

describe('answers', () => {
  it('applies defaults and validates before sending', async () => {
    const { call } = await connect(
      rawServer(() =>
        form({
          n: { type: 'integer', default: 3 },
          s: { type: 'string', enum: ['a', 'b'], default: 'b' },
        }),
      ),
      scriptedRenderer({ answers: [{ action: 'accept', content: {} }] }),
    );
    expect(await call()).toBe('{"action":"accept","content":{"n":3,"s":"b"}}');
  });
  it('accept in URL mode carries no content', async () => {
    const renderer: Renderer = {
      ...scriptedRenderer(),
      url: async (req: UrlRequest) => {
        await req.open();
        return { action: 'opened' };
      },
    };
    const { call } = await connect(
      rawServer(() => ({
        mode: 'url',
        message: 'Sign in',
        url: 'https://example.com/auth',
        elicitationId: 'e1',
      })),
      renderer,
    );
    expect(await call()).toBe('{"action":"accept"}');
  });
  it('a refused URL is never opened', async () => {
    let opened = 0;
    const renderer: Renderer = {
      ...scriptedRenderer({ urls: 'open' }),
    };
    const client = new Client({ name: 'host', version: '1' });
    const elicit = attachElicitation(client, { renderer, openUrl: async () => void opened++ });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await rawServer(() => ({
      mode: 'url',
      message: 'x',
      url: 'https://example.com/a',
      elicitationId: 'e1',
    })).connect(st);
    await client.connect(ct);
    // javascript: cannot even be sent by the SDK server (url must be a URL); analyse it directly.
    await expect(
      elicit.pipeline.handle(
        { mode: 'url', message: 'x', url: 'javascript:alert(1)' },
        { server: { name: 's' }, revision: '2025-11-25', signal: new AbortController().signal },
      ),
    ).resolves.toEqual({ action: 'decline' });
    expect(opened).toBe(0);
  });
});

describe('hostile text', () => {
  it('is shown inert: escapes, controls, bidi and invisibles become visible markers', () => {
    expect(inert('\u001b[31mred\u001b[0m')).toBe('⟨ESC[31m⟩red⟨ESC[0m⟩');
    expect(inert('abc\u202Egnp.exe')).toBe('abc⟨U+202E⟩gnp.exe');
    expect(inert('a\u2028b')).toBe('a b');
    expect(inert('zero\u200bwidth')).toBe('zero⟨U+200B⟩width');
    expect(inert('x'.repeat(3000), 100)).toBe(`${'x'.repeat(100)}… (2900 more characters hidden)`);
    expect(inert('see https://evil.example and javascript:alert(1)')).toBe(
      'see https://evil.example and javascript:alert(1)',
    );
  });
});

describe('rate limiting', () => {
  it('a flood of 1 000 requests is declined without bothering the person, and the host stays usable', async () => {
    let shown = 0;
    const notices: string[] = [];
    const renderer: Renderer = {
      form: async () => {
        shown++;
        return { action: 'decline' };
      },
      url: async () => ({ action: 'decline' }),
      notice: (e) => void notices.push(e.type),
    };
    const { call } = await connect(
      rawServer(() => form({ a: { type: 'string' } })),
      renderer,
    );
    const results = await Promise.all(Array.from({ length: 1000 }, () => call()));
    expect(shown).toBeLessThanOrEqual(11);
    expect(results.filter((r) => r === '{"action":"decline"}')).toHaveLength(1000);
    expect(notices.filter((n) => n === 'rate_limited').length).toBeGreaterThan(985);
  });
});

describe('idle and declined URL requests', () => {
  it('make zero network requests', async () => {
    const { createServer } = await import('node:http');
    let hits = 0;
    const page = createServer((_q, r) => {
      hits++;
      r.end();
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    const href = `http://127.0.0.1:${(page.address() as { port: number }).port}/connect`;
    const { createPipeline } = await import('../../src/client/index.ts');
    const idle = createPipeline({
      renderer: {
        ...scriptedRenderer(),
        // A person who never answers: the request is cancelled after a while.
        url: (_req, signal) =>
          new Promise((resolve) =>
            signal.addEventListener('abort', () => resolve({ action: 'cancel' })),
          ),
      },
      openUrl: async (u) => void (await fetch(u)),
    });
    const controller = new AbortController();
    const pending = idle.handle(
      { mode: 'url', message: 'Connect', url: href },
      { server: { name: 's' }, revision: '2025-11-25', signal: controller.signal },
    );
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    expect(await pending).toEqual({ action: 'cancel' });
    const declining = createPipeline({
      renderer: scriptedRenderer({ urls: 'decline' }),
      openUrl: async (u) => void (await fetch(u)),
    });
    expect(
      await declining.handle(
        { mode: 'url', message: 'Connect', url: href },
        { server: { name: 's' }, revision: '2025-11-25', signal: new AbortController().signal },
      ),
    ).toEqual({ action: 'decline' });
    expect(hits).toBe(0);
    page.close();
  });
});
