/**
 * Server threats, each end to end through the real SDK client and the real HTTP entry where
 * the wire matters.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { form, text } from '../../src/schema/index.ts';
import {
  createServer,
  generateKeySecret,
  httpEntry,
  type Listening,
  listen,
} from '../../src/server/index.ts';
import { callModern, MODERN_META, postModern } from '../support/kit.ts';

const keyring = { keys: [{ id: 'k1', secret: generateKeySecret() }] };
let charged = 0;
const app = createServer({ name: 'threats', version: '1', keyring })
  .tool('pay', { inputSchema: z.object({ amount: z.number() }) }, async ({ amount }, ask) => {
    const r = await ask.form('confirm', form({ ok: text() }), { message: `Pay ${amount}?` });
    if (r.action !== 'accept') return 'cancelled';
    const receipt = await ask.once('charge', () => `R-${++charged}`);
    const again = await ask.form('rate', form({ stars: text() }), { message: 'Rate us' });
    return `paid ${receipt} ${again.action}`;
  })
  .tool('other', {}, async (_a, ask) => {
    await ask.form('confirm', form({ ok: text() }));
    return 'other';
  })
  .tool('nested', {}, async (_a, ask) => {
    await ask.form('bad', {
      type: 'object',
      properties: { address: { type: 'object', properties: {} } },
    });
    return 'unreachable';
  })
  .tool('huge', {}, async (_a, ask) => {
    await ask.form('bad', {
      type: 'object',
      properties: { a: { type: 'string', description: 'x'.repeat(1_000_000) } },
    });
    return 'unreachable';
  });

let server: Listening;
beforeAll(async () => {
  server = await listen(httpEntry(app));
});
afterAll(async () => {
  await server.close();
});

const call = (name: string, params: Record<string, unknown>, id = 1) =>
  callModern(server.url, name, params, { id });
const callRaw = (name: string, body: string) => postModern(server.url, name, body);

async function firstRound(amount = 5) {
  const r = (await call('pay', { arguments: { amount } })).result as {
    resultType: string;
    requestState: string;
  };
  expect(r.resultType).toBe('input_required');
  return r.requestState;
}

const invalid = { code: -32602, message: 'Invalid or expired requestState' };

describe('requestState threats (2026-07-28 over HTTP)', () => {
  it('state from tool X is refused on tool Y, and with other arguments', async () => {
    const state = await firstRound();
    expect((await call('other', { requestState: state })).error).toMatchObject(invalid);
    expect(
      (await call('pay', { arguments: { amount: 500 }, requestState: state })).error,
    ).toMatchObject(invalid);
  });
  it('damaged states are refused with a JSON-RPC error, never a re-prompt', async () => {
    const state = await firstRound();
    const variants = [
      `${state}-TAMPERED`,
      state.slice(0, -5),
      state.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
      Buffer.from(state).toString('base64'),
      state.replace(/-/g, '+').replace(/_/g, '/'),
      'x'.repeat(1_000_000),
      '',
    ];
    for (const [i, v] of variants.entries()) {
      // A state with no '-' or '_' has no base64 spelling to swap to: that variant is the state.
      if (v === state) continue;
      expect(
        (await call('pay', { arguments: { amount: 5 }, requestState: v })).error,
        `variant ${i}: ${v.slice(0, 40)}`,
      ).toMatchObject(invalid);
    }
    for (const v of [null, 42, { state }, [state], true]) {
      expect(
        (await call('pay', { arguments: { amount: 5 }, requestState: v })).error,
      ).toMatchObject({ code: -32602 });
    }
  });
  it('state for user A is refused for user B', async () => {
    const principals = ['alice', 'bob'];
    let who = 0;
    const multi = createServer({
      name: 'p',
      version: '1',
      keyring,
      principal: () => principals[who] as string,
    }).tool('t', {}, async (_a, ask) => {
      await ask.form('k', form({ v: text() }));
      return 'done';
    });
    const entry = await listen(httpEntry(multi));
    try {
      const post = (params: Record<string, unknown>) =>
        callModern(entry.url, 't', params) as Promise<
          Record<string, { requestState?: string; resultType?: string; content?: unknown }>
        >;
      const first = await post({});
      const state = first.result?.requestState as string;
      who = 1;
      expect(
        (
          await post({
            requestState: state,
            inputResponses: { k: { action: 'accept', content: { v: 'x' } } },
          })
        ).error,
      ).toMatchObject(invalid);
      who = 0;
      expect(
        (
          await post({
            requestState: state,
            inputResponses: { k: { action: 'accept', content: { v: 'x' } } },
          })
        ).result?.content,
      ).toEqual([{ type: 'text', text: 'done' }]);
    } finally {
      await entry.close();
    }
  });
  it('a one-time step is refused when the same state is replayed', async () => {
    const state = await firstRound();
    const answer = { inputResponses: { confirm: { action: 'accept', content: { ok: 'yes' } } } };
    const before = charged;
    const once = (await call('pay', { arguments: { amount: 5 }, requestState: state, ...answer }))
      .result as { resultType: string };
    expect(once.resultType).toBe('input_required');
    expect(charged).toBe(before + 1);
    const replay = (await call('pay', { arguments: { amount: 5 }, requestState: state, ...answer }))
      .result as { isError: boolean; content: { text: string }[] };
    expect(replay.isError).toBe(true);
    expect(replay.content[0]?.text).toMatch(/one-time step "charge" already ran/);
    expect(charged).toBe(before + 1);
  });
  it('answers with wrong types, extra keys or __proto__ are re-asked, not handed to the handler', async () => {
    const state = await firstRound();
    const bad = JSON.parse(
      '{"action":"accept","content":{"ok":5,"__proto__":{"polluted":true},"extra":1}}',
    );
    const r = (
      await call('pay', {
        arguments: { amount: 5 },
        requestState: state,
        inputResponses: { confirm: bad },
      })
    ).result as {
      resultType: string;
      inputRequests: { confirm: { params: { message: string } } };
    };
    expect(r.resultType).toBe('input_required');
    expect(r.inputRequests.confirm.params.message).toContain('- ok: Enter text.');
    expect(r.inputRequests.confirm.params.message).toContain(
      '- __proto__: This field is not part of the form.',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('1 000 keys or deeply nested inputResponses get a clear error and the server stays up', async () => {
    const many = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`k${i}`, { action: 'decline' }]),
    );
    expect(
      (await call('pay', { arguments: { amount: 5 }, inputResponses: many })).error,
    ).toMatchObject({ code: -32602 });
    const deep = `${'{"content":'.repeat(5000)}{"action":"accept"}${'}'.repeat(5000)}`;
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"pay","arguments":{"amount":5},"_meta":${JSON.stringify(MODERN_META)},"inputResponses":{"confirm":${deep}}}}`;
    const nested = await callRaw('pay', body);
    expect(nested.error).toMatchObject({ code: -32602 });
    expect(
      ((await call('pay', { arguments: { amount: 5 } })).result as { resultType: string })
        .resultType,
    ).toBe('input_required');
  });
});

describe('schema threats from a handler', () => {
  it('a nested or oversized schema is refused before anything is sent, with the path named', async () => {
    const client = new Client(
      { name: 'c', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked++;
      return { action: 'cancel' };
    });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    try {
      const nested = await client.callTool({ name: 'nested', arguments: {} });
      expect(nested.isError).toBe(true);
      expect((nested.content as { text: string }[])[0]?.text).toBe(
        'Invalid requested schema at properties.address: properties.address is an object; elicitation forms are flat. Split it into top-level properties.',
      );
      const huge = await client.callTool({ name: 'huge', arguments: {} });
      expect((huge.content as { text: string }[])[0]?.text).toMatch(
        /larger than 262144 characters/,
      );
      expect(asked).toBe(0);
    } finally {
      await client.close();
    }
  });
});
