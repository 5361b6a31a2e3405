/**
 * Era parity: every ask method and every error path, for tools, prompts and resources, on
 * 2025-06-18, 2025-11-25 and 2026-07-28, through the real SDK client. Each case's wire outcome
 * is reduced to a comparable value; all revisions must agree except where the spec says
 * otherwise (DIFFERENCES below, each asserted on its own).
 */
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { choice, form, integer, text } from '../../src/schema/index.ts';
import { AskUsageError, createServer, httpEntry } from '../../src/server/index.ts';

const REVISIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
type Revision = (typeof REVISIONS)[number];

const person = form({ name: text({ minLength: 1 }), age: integer({ min: 0, max: 150 }) });
const seat = form({ seat: choice({ w: 'Window', a: 'Aisle' }) });
let onceRuns = 0;

const app = createServer({ name: 'parity', version: '1', limits: { timeoutMs: 2000 } })
  .tool('form', {}, async (_a, ask) => {
    const r = await ask.form('who', person, { message: 'Who?' });
    return r.action === 'accept' ? `accept ${r.content.name} ${r.content.age}` : r.action;
  })
  .tool('decline', {}, async (_a, ask) => (await ask.form('seat', seat, { message: 'no' })).action)
  .tool('confirm', {}, async (_a, ask) => String(await ask.confirm('ok', 'Go?')))
  .tool('all', {}, async (_a, ask) => {
    const r = await ask.all({
      who: { form: person, message: 'Who?' },
      model: {
        sample: {
          messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
          maxTokens: 5,
        },
      },
      roots: { roots: true },
    });
    const who = r.who.action === 'accept' ? r.who.content.name : r.who.action;
    return `${who}/${r.model.role}/${r.roots.roots.length}`;
  })
  .tool('url', {}, async (_a, ask) => {
    const r = await ask.url('open', { message: 'Open it', url: 'https://example.com/x' });
    return r.action;
  })
  .tool('step', {}, async (_a, ask) => {
    const a = await ask.step('made', () => ({ at: new Date(0).toISOString(), n: [1, 2] }));
    const again = await ask.step('made', () => ({ other: true }));
    await ask.form('seat', seat, { message: 'Seat?' });
    return JSON.stringify([a, again]);
  })
  .tool('step-date', {}, async (_a, ask) => {
    await ask.step('when', () => new Date(0) as never);
    return 'unreachable';
  })
  .tool('once', {}, async (_a, ask) => {
    await ask.once('charge', () => ++onceRuns);
    const r = await ask.form('seat', seat, { message: 'Seat?' });
    return r.action;
  })
  .tool('sample', {}, async (_a, ask) => {
    const r = await ask.sample('s', {
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      maxTokens: 5,
    });
    return `${r.role}:${(r.content as { text: string }).text}`;
  })
  .tool('roots', {}, async (_a, ask) => (await ask.roots('r')).roots.map((x) => x.uri).join(','))
  .tool('bad-key', {}, async (_a, ask) => (await ask.form('not a key!', seat)).action)
  .tool('usage', {}, async () => {
    throw new AskUsageError('handler misuse');
  })
  .tool('bug', {}, async () => {
    throw new Error('a plain bug');
  })
  .tool(
    'stubborn',
    {},
    async (_a, ask) => (await ask.form('who', person, { message: 'Who?' })).action,
  )
  // Methods taken off `ask` keep working: a handler may destructure them.
  .tool('destructured', {}, async (_a, { form: f, confirm, step, can, revision }) => {
    const made = await step('made', () => 7);
    const r = await f('who', person, { message: 'Who?' });
    const ok = await confirm('ok', 'Go?');
    const name = r.action === 'accept' ? r.content.name : r.action;
    return `${name} ${ok} ${made} ${can('form')} ${typeof revision}`;
  })
  .tool('can', {}, async (_a, ask) =>
    (['form', 'url', 'sampling', 'roots'] as const).map((w) => `${w}=${ask.can(w)}`).join(' '),
  )
  .prompt('greet', {}, async (_a, ask) => {
    const r = await ask.form('who', person, { message: 'Who?' });
    const name = r.action === 'accept' ? r.content.name : r.action;
    return { messages: [{ role: 'user', content: { type: 'text', text: `Hi ${name}` } }] };
  })
  .prompt('prompt-bad-key', {}, async (_a, ask) => {
    await ask.form('not a key!', seat);
    return { messages: [] };
  })
  .resource('profile', 'parity://profile', {}, async (uri, ask) => {
    const r = await ask.form('who', person, { message: 'Whose?' });
    return {
      contents: [{ uri: uri.href, text: r.action === 'accept' ? r.content.name : r.action }],
    };
  })
  .resource('resource-usage', 'parity://usage', {}, async () => {
    throw new AskUsageError('resource misuse');
  });

type Elicit = {
  message: string;
  mode?: string;
  requestedSchema?: { properties: Record<string, unknown> };
};

/** The person: invalid once when asked "Who?" under the stubborn tool, else a valid answer. */
function answer(req: Elicit, stubborn: boolean) {
  if (req.mode === 'url') return { action: 'accept' };
  if (req.message === 'no') return { action: 'decline' };
  const props = req.requestedSchema?.properties ?? {};
  if ('confirmed' in props) return { action: 'accept', content: { confirmed: true } };
  if ('seat' in props) return { action: 'accept', content: { seat: 'a' } };
  if (stubborn) return { action: 'accept', content: { name: '', age: 200 } };
  return req.message.startsWith('Who?\n')
    ? { action: 'accept', content: { name: 'Bo', age: 41 } }
    : { action: 'accept', content: { name: 'Ann', age: 40 } };
}

async function connect(revision: Revision, caps: Record<string, unknown>, stubborn = false) {
  const client = new Client(
    { name: 'parity-client', version: '1' },
    {
      capabilities: caps,
      ...(revision === '2026-07-28' ? {} : { supportedProtocolVersions: [revision] }),
    },
  );
  if (Object.keys(caps).length > 0) {
    client.setRequestHandler(
      'elicitation/create',
      async (req) => answer(req.params as never, stubborn) as never,
    );
    client.setRequestHandler(
      'sampling/createMessage',
      async () =>
        ({
          role: 'assistant',
          model: 'm',
          content: { type: 'text', text: 'hello' },
        }) as never,
    );
    client.setRequestHandler('roots/list', async () => ({
      roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }],
    }));
  }
  if (revision === '2026-07-28') {
    // Through the HTTP entry a deployment runs: pooled servers, the lean tools/call path.
    const entry = httpEntry(app);
    client.setVersionNegotiation({ mode: { pin: '2026-07-28' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
        requestInit: { headers: { host: '127.0.0.1' } },
        fetch: (u, i) => entry.fetch(new Request(u, i)),
      }),
    );
  } else {
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await app.build('legacy').connect(st);
    await client.connect(ct);
  }
  expect(client.getNegotiatedProtocolVersion()).toBe(revision);
  return client;
}

const ALL_CAPS = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

/** A wire outcome reduced to what must match: result text and error flag, or error code and data.code. */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    const r = (await run()) as {
      content?: { text?: string }[];
      isError?: boolean;
      _meta?: Record<string, unknown>;
      messages?: { content: { text: string } }[];
      contents?: { text?: string }[];
    };
    if (r.messages !== undefined) return { prompt: r.messages.map((m) => m.content.text) };
    if (r.contents !== undefined) return { resource: r.contents.map((c) => c.text) };
    return {
      text: r.content?.[0]?.text,
      isError: r.isError === true,
      code: r._meta?.['elicit/error'],
    };
  } catch (error) {
    const e = error as { code?: unknown; data?: { code?: unknown } };
    return { error: e.code, code: e.data?.code };
  }
}

const CASES: Record<string, (c: Client) => Promise<unknown>> = {
  form: (c) => c.callTool({ name: 'form', arguments: {} }),
  decline: (c) => c.callTool({ name: 'decline', arguments: {} }),
  confirm: (c) => c.callTool({ name: 'confirm', arguments: {} }),
  destructured: (c) => c.callTool({ name: 'destructured', arguments: {} }),
  all: (c) => c.callTool({ name: 'all', arguments: {} }),
  step: (c) => c.callTool({ name: 'step', arguments: {} }),
  'step-date': (c) => c.callTool({ name: 'step-date', arguments: {} }),
  once: (c) => c.callTool({ name: 'once', arguments: {} }),
  sample: (c) => c.callTool({ name: 'sample', arguments: {} }),
  roots: (c) => c.callTool({ name: 'roots', arguments: {} }),
  'bad-key': (c) => c.callTool({ name: 'bad-key', arguments: {} }),
  usage: (c) => c.callTool({ name: 'usage', arguments: {} }),
  bug: (c) => c.callTool({ name: 'bug', arguments: {} }),
  prompt: (c) => c.getPrompt({ name: 'greet', arguments: {} }),
  'prompt-bad-key': (c) => c.getPrompt({ name: 'prompt-bad-key', arguments: {} }),
  resource: (c) => c.readResource({ uri: 'parity://profile' }),
  'resource-usage': (c) => c.readResource({ uri: 'parity://usage' }),
};

const results: Record<Revision, Record<string, unknown>> = {
  '2025-06-18': {},
  '2025-11-25': {},
  '2026-07-28': {},
};

beforeAll(async () => {
  for (const revision of REVISIONS) {
    const client = await connect(revision, ALL_CAPS);
    for (const [name, run] of Object.entries(CASES))
      results[revision][name] = await outcome(() => run(client));
    results[revision].url = await outcome(() => client.callTool({ name: 'url', arguments: {} }));
    results[revision].can = await outcome(() => client.callTool({ name: 'can', arguments: {} }));
    await client.close();
    const stubborn = await connect(revision, ALL_CAPS, true);
    results[revision].stubborn = await outcome(() =>
      stubborn.callTool({ name: 'stubborn', arguments: {} }),
    );
    await stubborn.close();
    const bare = await connect(revision, {});
    results[revision]['tool-missing-capability'] = await outcome(() =>
      bare.callTool({ name: 'sample', arguments: {} }),
    );
    results[revision]['resource-missing-capability'] = await outcome(() =>
      bare.readResource({ uri: 'parity://profile' }),
    );
    await bare.close();
  }
}, 60_000);

/**
 * The differences the spec mandates, by case. Everything else must be identical on every
 * revision.
 * - url, can: URL-mode elicitation arrived in 2025-11-25; a 2025-06-18 client cannot declare
 *   it, so the ask is refused as unsupported there.
 * - tool-missing-capability, resource-missing-capability: 2026-07-28 defines
 *   MissingRequiredClientCapability (-32021, HTTP 400); the 2025 revisions have no such code,
 *   so a tool answers an isError result and a resource -32602 with the elicit code.
 */
const DIFFERENCES = new Set([
  'url',
  'can',
  'tool-missing-capability',
  'resource-missing-capability',
]);

describe('era parity', () => {
  it('every case has the same wire outcome on every revision', () => {
    for (const name of Object.keys(results['2025-11-25'])) {
      if (DIFFERENCES.has(name)) continue;
      expect(results['2025-06-18'][name], `${name} on 2025-06-18`).toEqual(
        results['2025-11-25'][name],
      );
      expect(results['2026-07-28'][name], `${name} on 2026-07-28`).toEqual(
        results['2025-11-25'][name],
      );
    }
  });

  it('the shared outcomes are the intended ones', () => {
    const r = results['2025-11-25'];
    const ok = (text: string) => ({ text, isError: false, code: undefined });
    expect(r.form).toEqual(ok('accept Ann 40'));
    expect(r.decline).toEqual(ok('decline'));
    expect(r.confirm).toEqual(ok('true'));
    expect(r.destructured).toEqual(ok('Ann true 7 true string'));
    expect(r.all).toEqual(ok('Ann/assistant/2'));
    expect(r.step).toEqual(
      ok(
        JSON.stringify([
          { at: '1970-01-01T00:00:00.000Z', n: [1, 2] },
          { at: '1970-01-01T00:00:00.000Z', n: [1, 2] },
        ]),
      ),
    );
    expect(r['step-date']).toMatchObject({ isError: true, code: 'ELICIT_ASK_USAGE' });
    expect((r['step-date'] as { text: string }).text).toContain('must return a JSON value');
    expect(r.once).toEqual(ok('accept'));
    expect(r.sample).toEqual(ok('assistant:hello'));
    expect(r.roots).toEqual(ok('file:///a,file:///b'));
    expect(r['bad-key']).toMatchObject({ isError: true, code: 'ELICIT_ASK_USAGE' });
    expect(r.usage).toEqual({ text: 'handler misuse', isError: true, code: 'ELICIT_ASK_USAGE' });
    expect(r.bug).toEqual({ text: 'a plain bug', isError: true, code: undefined });
    expect(r.stubborn).toMatchObject({ isError: true, code: 'ELICIT_ANSWER_INVALID' });
    expect(r.prompt).toEqual({ prompt: ['Hi Ann'] });
    expect(r['prompt-bad-key']).toEqual({ error: -32602, code: 'ELICIT_ASK_USAGE' });
    expect(r.resource).toEqual({ resource: ['Ann'] });
    expect(r['resource-usage']).toEqual({ error: -32602, code: 'ELICIT_ASK_USAGE' });
  });

  it('URL mode: 2025-11-25 and 2026-07-28 ask; 2025-06-18 cannot declare it', () => {
    const ok = { text: 'accept', isError: false, code: undefined };
    expect(results['2025-11-25'].url).toEqual(ok);
    expect(results['2026-07-28'].url).toEqual(ok);
    expect(results['2025-06-18'].url).toMatchObject({
      isError: true,
      code: 'ELICIT_CLIENT_UNSUPPORTED',
    });
    expect(results['2025-11-25'].can).toEqual({
      text: 'form=true url=true sampling=true roots=true',
      isError: false,
      code: undefined,
    });
    expect(results['2026-07-28'].can).toEqual(results['2025-11-25'].can);
    expect(results['2025-06-18'].can).toEqual({
      text: 'form=true url=false sampling=true roots=true',
      isError: false,
      code: undefined,
    });
  });

  it('a missing capability: -32021 on 2026-07-28, the elicit code on 2025 revisions', () => {
    for (const revision of ['2025-06-18', '2025-11-25'] as const) {
      expect(results[revision]['tool-missing-capability']).toMatchObject({
        isError: true,
        code: 'ELICIT_CLIENT_UNSUPPORTED',
      });
      expect(results[revision]['resource-missing-capability']).toEqual({
        error: -32602,
        code: 'ELICIT_CLIENT_UNSUPPORTED',
      });
    }
    expect(results['2026-07-28']['tool-missing-capability']).toEqual({
      error: -32021,
      code: undefined,
    });
    expect(results['2026-07-28']['resource-missing-capability']).toEqual({
      error: -32021,
      code: undefined,
    });
  });

  it('ask.once ran once per call on every revision', () => {
    expect(onceRuns).toBe(3);
  });
});
