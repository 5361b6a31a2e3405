/**
 * Each answer goes to the request that asked for it: `ask.all` checks every member against the
 * client's capabilities before anything is sent, and on a 2025 session a call that fails or
 * ends while a question is on the person's screen withdraws it (`notifications/cancelled` for
 * that request). A real SDK client records every message it receives.
 */
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import { createServer, type ElicitServer, httpEntry } from '../../src/server/index.ts';
import { MODERN_META, modernBody, modernHeaders, readReply } from '../support/kit.ts';

const nameForm = form({ name: text() });
const SAMPLE = {
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }],
  maxTokens: 5,
};

function app(seen: { detached?: Promise<unknown> } = {}): ElicitServer {
  return createServer({ name: 'withdraw', version: '1', onWarning: () => {} })
    .tool('form_and_sample', {}, async (_a, ask) => {
      const r = await ask.all({ a: { form: nameForm }, b: { sample: SAMPLE } });
      return JSON.stringify(r);
    })
    .tool('form_and_roots', {}, async (_a, ask) => {
      await ask.all({ a: { form: nameForm }, b: { roots: true } });
      return 'done';
    })
    .tool('leaves_a_question', {}, async (_a, ask) => {
      // Asked and not awaited: the call ends while the question is on screen.
      seen.detached = ask.form('late', nameForm).catch((e: unknown) => e);
      await sleep(50);
      return 'ended';
    })
    .tool('asks_after_the_end', {}, async (_a, ask) => {
      seen.detached = sleep(100).then(() => ask.form('after', nameForm).catch((e: unknown) => e));
      return 'ended';
    })
    .tool('fails_while_asking', {}, async (_a, ask) => {
      void ask.form('open', nameForm).catch(() => {});
      await sleep(50);
      throw new Error('the tool broke');
    });
}

interface Peer {
  readonly client: Client;
  /** Every message the client received, in order. */
  readonly received: JSONRPCMessage[];
  /** elicitation/create requests the client's handler saw, with whether each was withdrawn. */
  readonly shown: { id: unknown; message: string; withdrawn: boolean }[];
}

/** A plain SDK client on a 2025-11-25 session with `caps`; forms stay on screen until withdrawn. */
async function peer(server: ElicitServer, caps: Record<string, unknown>, sampling?: 'fail') {
  const client = new Client({ name: 'c', version: '1' }, { capabilities: caps });
  const p: Peer = { client, received: [], shown: [] };
  client.setRequestHandler('elicitation/create', async (req, ctx) => {
    const entry = { id: ctx.mcpReq.id, message: String(req.params.message), withdrawn: false };
    p.shown.push(entry);
    // The person never answers: only a withdrawal takes the question away.
    await new Promise<void>((resolve) =>
      ctx.mcpReq.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    entry.withdrawn = true;
    return { action: 'cancel' };
  });
  if ('sampling' in caps)
    client.setRequestHandler('sampling/createMessage', async () => {
      await sleep(30);
      if (sampling === 'fail') throw new Error('no model here');
      return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' };
    });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.build('legacy').connect(st);
  await client.connect(ct);
  const inner = ct.onmessage;
  ct.onmessage = (message, extra) => {
    p.received.push(message);
    inner?.(message, extra);
  };
  return p;
}

const cancelledFor = (p: Peer, id: unknown) =>
  p.received.filter(
    (m) =>
      (m as { method?: string }).method === 'notifications/cancelled' &&
      (m as { params?: { requestId?: unknown } }).params?.requestId === id,
  );
const creates = (p: Peer) =>
  p.received.filter((m) => (m as { method?: string }).method === 'elicitation/create');

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await sleep(10);
  expect(check()).toBe(true);
}

describe('ask.all on a 2025-11-25 session', () => {
  it('refuses a member the client cannot answer before anything is shown', async () => {
    for (const [tool, missing] of [
      ['form_and_sample', 'sampling'],
      ['form_and_roots', 'roots'],
    ] as const) {
      const p = await peer(app(), { elicitation: { form: {} } });
      const result = await p.client.callTool({ name: tool, arguments: {} });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain(missing);
      expect(creates(p)).toHaveLength(0);
      expect(p.shown).toHaveLength(0);
      await p.client.close();
    }
  });

  it('withdraws the form when another member of the round fails', async () => {
    const p = await peer(app(), { elicitation: { form: {} }, sampling: {} }, 'fail');
    // The client's sampling error ends the call (a JSON-RPC error, as the client sent it).
    await expect(p.client.callTool({ name: 'form_and_sample', arguments: {} })).rejects.toThrow(
      /no model here/,
    );
    expect(p.shown).toHaveLength(1);
    const shown = p.shown[0] as Peer['shown'][number];
    await until(() => shown.withdrawn);
    expect(cancelledFor(p, shown.id)).toHaveLength(1);
    await p.client.close();
  });

  it('withdraws a question still on screen when the call ends, by returning or failing', async () => {
    for (const tool of ['leaves_a_question', 'fails_while_asking']) {
      const seen: { detached?: Promise<unknown> } = {};
      const p = await peer(app(seen), { elicitation: { form: {} } });
      await p.client.callTool({ name: tool, arguments: {} });
      await until(() => p.shown.length === 1 && (p.shown[0]?.withdrawn ?? false));
      expect(cancelledFor(p, p.shown[0]?.id)).toHaveLength(1);
      await p.client.close();
    }
  });

  it('withdraws the question when the client cancels the call', async () => {
    const p = await peer(
      createServer({ name: 'cancel', version: '1', onWarning: () => {} }).tool(
        'asks',
        {},
        async (_a, ask) => (await ask.form('who', nameForm)).action,
      ),
      { elicitation: { form: {} } },
    );
    const abort = new AbortController();
    const call = p.client
      .callTool({ name: 'asks', arguments: {} }, { signal: abort.signal })
      .catch(() => 'cancelled');
    await until(() => p.shown.length === 1);
    abort.abort('changed my mind');
    expect(await call).toBe('cancelled');
    await until(() => p.shown[0]?.withdrawn ?? false);
    expect(cancelledFor(p, p.shown[0]?.id)).toHaveLength(1);
    await p.client.close();
  });

  it('a waiting ask puts no listener on its call’s signal; the call’s cancel still withdraws it', async () => {
    let signal: AbortSignal | undefined;
    const p = await peer(
      createServer({ name: 'cancel', version: '1', onWarning: () => {} }).tool(
        'asks',
        {},
        async (_a, ask, ctx) => {
          signal = ctx.mcpReq.signal;
          return (await ask.form('who', nameForm)).action;
        },
      ),
      { elicitation: { form: {} } },
    );
    const abort = new AbortController();
    const call = p.client
      .callTool({ name: 'asks', arguments: {} }, { signal: abort.signal })
      .catch(() => 'cancelled');
    await until(() => p.shown.length === 1);
    // The call's abort is heard through the server (seam callAborts), not per waiting call.
    expect(getEventListeners(signal as AbortSignal, 'abort')).toHaveLength(0);
    abort.abort('changed my mind');
    expect(await call).toBe('cancelled');
    await until(() => p.shown[0]?.withdrawn ?? false);
    expect(cancelledFor(p, p.shown[0]?.id)).toHaveLength(1);
    await p.client.close();
  });

  it('after a failed round the call asks on, and its new question is not withdrawn', async () => {
    const server = createServer({ name: 'again', version: '1', onWarning: () => {} }).tool(
      'again',
      {},
      async (_a, ask) => {
        await ask.all({ a: { form: nameForm }, b: { sample: SAMPLE } }).catch(() => undefined);
        return (await ask.form('again', nameForm, { message: 'again' })).action;
      },
    );
    const client = new Client(
      { name: 'c', version: '1' },
      { capabilities: { elicitation: { form: {} }, sampling: {} } },
    );
    const withdrawn: string[] = [];
    client.setRequestHandler('elicitation/create', async (req, ctx) => {
      if (req.params.message === 'again') return { action: 'accept', content: { name: 'Ada' } };
      await new Promise<void>((resolve) =>
        ctx.mcpReq.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      withdrawn.push(String(req.params.message));
      return { action: 'cancel' };
    });
    client.setRequestHandler('sampling/createMessage', async () => {
      await sleep(30);
      throw new Error('no model here');
    });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await server.build('legacy').connect(st);
    await client.connect(ct);
    expect(await client.callTool({ name: 'again', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'accept' }],
    });
    expect(withdrawn).toHaveLength(1);
    expect(withdrawn[0]).not.toBe('again');
    await client.close();
  });

  it('shows nothing for a call that has already ended', async () => {
    const seen: { detached?: Promise<unknown> } = {};
    const p = await peer(app(seen), { elicitation: { form: {} } });
    expect(await p.client.callTool({ name: 'asks_after_the_end', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'ended' }],
    });
    expect(await seen.detached).toMatchObject({ code: 'ELICIT_ASK_ABANDONED' });
    await sleep(50);
    expect(creates(p)).toHaveLength(0);
    await p.client.close();
  });

  it('a round that succeeds withdraws nothing', async () => {
    const server = createServer({ name: 'ok', version: '1' }).tool('two', {}, async (_a, ask) => {
      const r = await ask.all({ a: { form: nameForm }, b: { sample: SAMPLE } });
      return r.a.action;
    });
    const client = new Client(
      { name: 'c', version: '1' },
      { capabilities: { elicitation: { form: {} }, sampling: {} } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    client.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'ok' },
      model: 'm',
    }));
    const received: JSONRPCMessage[] = [];
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await server.build('legacy').connect(st);
    await client.connect(ct);
    const inner = ct.onmessage;
    ct.onmessage = (m, e) => {
      received.push(m);
      inner?.(m, e);
    };
    expect(await client.callTool({ name: 'two', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'accept' }],
    });
    await sleep(20);
    expect(
      received.some((m) => (m as { method?: string }).method === 'notifications/cancelled'),
    ).toBe(false);
    await client.close();
  });
});

describe('ask.all on 2026-07-28', () => {
  it('refuses a member the client cannot answer with -32021 and asks nothing', async () => {
    const entry = httpEntry(app());
    const res = await entry.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { ...modernHeaders('form_and_sample'), host: '127.0.0.1' },
        body: modernBody('form_and_sample', { arguments: {} }, 1, MODERN_META),
      }),
    );
    const reply = (await readReply(res)) as {
      result?: { inputRequests?: unknown };
      error?: { code: number; data?: unknown };
    };
    expect(reply.error?.code).toBe(-32021);
    expect(reply.error?.data).toMatchObject({ requiredCapabilities: { sampling: {} } });
    expect(reply.result?.inputRequests).toBeUndefined();
  });
});
