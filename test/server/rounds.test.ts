import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { choices, form } from '../../src/schema/index.ts';
import { createServer, generateKeySecret, httpEntry, listen } from '../../src/server/index.ts';
import { connectTo, oneText, textOf } from '../support/kit.ts';

describe('limits per round', () => {
  const app = createServer({ name: 'r', version: '1' }).tool('greedy', {}, async (_a, ask) => {
    const specs = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`k${i}`, { form: oneText }]),
    );
    await ask.all(specs);
    return 'unreachable';
  });
  it.each(['legacy', 'modern'] as const)(
    '1 000 asks in one round get a clear error on %s',
    async (era) => {
      let asked = 0;
      const { client, close } = await connectTo(app, {
        era,
        via: era === 'legacy' ? 'memory' : 'http',
        capabilities: { elicitation: {} },
        onElicit: () => {
          asked++;
          return { action: 'cancel' };
        },
      });
      const r = await client.callTool({ name: 'greedy', arguments: {} });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(
        /asked for 1000 inputs in one round; the limit is 32|asked for 33 inputs in one round; the limit is 32/,
      );
      expect(asked).toBe(0);
      await close();
    },
  );
});

describe('an older peer', () => {
  it('a 2025-06-18 client gets a lowered form and the handler still sees a list', async () => {
    const app = createServer({ name: 'old', version: '1' }).tool('extras', {}, async (_a, ask) => {
      const r = await ask.form(
        'x',
        form({ extras: choices({ wifi: 'Wi-Fi', meal: 'Meal' }, { maxItems: 1 }) }),
        { message: 'Extras?' },
      );
      return r.action === 'accept' ? `extras=${JSON.stringify(r.content.extras)}` : r.action;
    });
    const schemas: unknown[] = [];
    let n = 0;
    const { client } = await connectTo(app, {
      era: 'legacy',
      revisions: ['2025-06-18'],
      capabilities: { elicitation: {} },
      onElicit: (params: { requestedSchema: unknown }) => {
        schemas.push(params.requestedSchema);
        // First too many (maxItems 1 is enforced on the mapped answer), then one.
        const content: Record<string, boolean> =
          n++ === 0 ? { 'extras.wifi': true, 'extras.meal': true } : { 'extras.meal': true };
        return { action: 'accept', content };
      },
    });
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-06-18');
    expect(textOf(await client.callTool({ name: 'extras', arguments: {} }))).toBe(
      'extras=["meal"]',
    );
    expect(schemas[0]).toEqual({
      type: 'object',
      properties: {
        'extras.wifi': { type: 'boolean', title: 'extras: Wi-Fi' },
        'extras.meal': { type: 'boolean', title: 'extras: Meal' },
      },
    });
    await client.close();
  });
});

describe('replicas', () => {
  it('two servers sharing a keyring continue each other’s flows; a third with another key refuses', async () => {
    const keyring = { keys: [{ id: 'shared', secret: generateKeySecret() }] };
    const make = (k: typeof keyring) =>
      createServer({ name: 'rep', version: '1', keyring: k }).tool('two', {}, async (_a, ask) => {
        const a = await ask.form('a', oneText);
        const b = await ask.form('b', oneText);
        return `${a.action}/${b.action}`;
      });
    const servers = [
      await listen(httpEntry(make(keyring))),
      await listen(httpEntry(make(keyring))),
    ];
    const other = await listen(
      httpEntry(make({ keys: [{ id: 'other', secret: generateKeySecret() }] })),
    );
    let turn = 0;
    const targets = [servers[0], servers[1], other];
    const client = new Client(
      { name: 'c', version: '1' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { v: 'x' },
    }));
    // Round-robin over the replicas, as a load balancer would.
    let pool = [0, 1];
    await client.connect(
      new StreamableHTTPClientTransport(servers[0]!.url, {
        fetch: (u, i) => {
          const target = targets[pool[turn++ % pool.length] as number]!;
          return fetch(new URL(new URL(String(u)).pathname, target.url), i);
        },
      }),
    );
    turn = 0;
    expect(textOf(await client.callTool({ name: 'two', arguments: {} }))).toBe('accept/accept');
    pool = [0, 2];
    turn = 0;
    await expect(client.callTool({ name: 'two', arguments: {} })).rejects.toThrow(
      /Invalid or expired requestState/,
    );
    await client.close();
    for (const s of [...servers, other]) await s.close();
  });
});
