/**
 * A 2026-07-28 host in front of a 2025 server that asks several things at once (elicit's
 * `ask.all`, pushed in parallel): the questions reach the host as one input_required round, as a
 * 2026-07-28 server would send them, even while another call the host walked away from still
 * waits for its answer on the same connection.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.ts';
import { form, integer, text } from '../../src/schema/index.ts';
import { createServer, httpEntry, type Listening, listen } from '../../src/server/index.ts';

let upstream: Listening;
let gateway: Gateway;
let front: Listening;
let host: Client;

beforeAll(async () => {
  const app = createServer({ name: 'asker', version: '1' })
    .tool('one', { description: 'asks one thing' }, async (_args, ask) => {
      const r = await ask.form('who', form({ name: text() }), { message: 'Who?' });
      return r.action;
    })
    .tool('pair', { description: 'asks two things at once' }, async (_args, ask) => {
      const r = await ask.all({
        who: { form: form({ name: text() }), message: 'Who?' },
        many: { form: form({ count: integer() }), message: 'How many?' },
        where: { roots: true },
      });
      const name = r.who.action === 'accept' ? r.who.content.name : '-';
      const count = r.many.action === 'accept' ? r.many.content.count : '-';
      return `${name} × ${count} in ${r.where.roots.length} root(s)`;
    });
  upstream = await listen(httpEntry(app));
  gateway = await createGateway({
    transport: () => new StreamableHTTPClientTransport(upstream.url),
    era: 'legacy',
  });
  front = await gateway.listen();
  host = new Client(
    { name: 'host', version: '1' },
    { capabilities: { elicitation: { form: {} }, roots: {} } },
  );
  host.setVersionNegotiation({ mode: { pin: '2026-07-28' } });
  await host.connect(new StreamableHTTPClientTransport(front.url));
}, 30_000);
afterAll(async () => {
  await host?.close();
  await front?.close();
  await gateway?.close();
  await upstream?.close();
});

type Round = {
  resultType?: string;
  inputRequests?: Record<string, { method: string; params?: { message?: string } }>;
  requestState?: string;
  content?: { text: string }[];
};

const call = (params: Record<string, unknown>) =>
  host.request(
    { method: 'tools/call', params } as never,
    {
      allowInputRequired: true,
    } as never,
  ) as Promise<Round>;

describe('a 2025 server asking several things at once, behind the gateway', () => {
  it('reaches a 2026-07-28 host as one round, beside a call left waiting', async () => {
    // A call whose question the host never answers: it stays held, waiting.
    const left = await call({ name: 'one', arguments: {} });
    expect(left.resultType).toBe('input_required');
    expect(gateway.heldCalls).toBe(1);

    const first = await call({ name: 'pair', arguments: {} });
    expect(first.resultType).toBe('input_required');
    const requests = Object.entries(first.inputRequests ?? {});
    expect(requests.map(([, r]) => r.params?.message ?? r.method).sort()).toEqual([
      'How many?',
      'Who?',
      'roots/list',
    ]);
    const answers: Record<string, unknown> = {};
    for (const [key, r] of requests)
      answers[key] =
        r.method === 'roots/list'
          ? { roots: [{ uri: 'file:///work', name: 'work' }] }
          : r.params?.message === 'Who?'
            ? { action: 'accept', content: { name: 'Ada' } }
            : { action: 'accept', content: { count: 3 } };
    const done = await call({
      name: 'pair',
      arguments: {},
      inputResponses: answers,
      requestState: first.requestState,
    });
    expect(done.content?.[0]?.text).toBe('Ada × 3 in 1 root(s)');
  }, 30_000);
});
