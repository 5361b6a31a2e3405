/**
 * Each answer goes to the request that asked for it: a value saved on a connect page is bound
 * to the record that asked until that request has read it. Two concurrent calls of one
 * principal both run `ask.secret('api_key', { fresh: true })`; page 1 saves "one", page 2
 * "two": call 1 gets "one" and call 2 "two" (the vault's long-term value is the last one
 * saved, which a later non-fresh ask reads). On 2026-07-28 and on 2025-11-25 (in-call), with
 * the real connect pages on a loopback port, on memory, SQLite and Redis.
 */
import type { Server } from 'node:http';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { createConnectStack, devLogin } from '../../src/connect/index.ts';
import { createServer, generateKeySecret } from '../../src/server/index.ts';
import type { Store } from '../../src/store/index.ts';
import { storeDrivers } from '../support/drivers.ts';
import { callModern, listenerOf, loopbackServer, MODERN_META } from '../support/kit.ts';

const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function setUp(store: Store) {
  const { server, base } = await loopbackServer();
  servers.push(server);
  const stack = createConnectStack({
    baseUrl: base,
    store,
    keyring: { keys: [{ id: 'v1', secret: generateKeySecret() }] },
    login: devLogin({ fixedPrincipal: 'local' }),
    providers: {},
  });
  server.on('request', listenerOf(stack.fetch));
  const app = createServer({
    name: 'bound',
    version: '1',
    store,
    connect: { app: stack, waitMs: 20_000 },
    onWarning: () => {},
  })
    .tool('fresh_key', {}, async (_a, ask) => {
      const r = await ask.secret('api_key', { label: 'API key', fresh: true });
      return r.action === 'accept' ? r.value : r.action;
    })
    .tool('stored_key', {}, async (_a, ask) => {
      const r = await ask.secret('api_key', { label: 'API key' });
      return r.action === 'accept' ? r.value : r.action;
    });
  return { base, app };
}

const sameSite = (base: string) => ({
  origin: base,
  'sec-fetch-site': 'same-origin',
  'content-type': 'application/x-www-form-urlencoded',
});

/** The person on the connect page behind `link`: signs in, types `value`, saves. */
async function savePage(base: string, link: string, value: string): Promise<void> {
  const login = await fetch(`${base}/elicit/login`, {
    method: 'POST',
    headers: sameSite(base),
    body: new URLSearchParams({ user: 'me', next: '' }),
    redirect: 'manual',
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const page = await (await fetch(link, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  expect(csrf).toBeDefined();
  const saved = await fetch(`${link}/secret`, {
    method: 'POST',
    headers: { ...sameSite(base), cookie },
    body: new URLSearchParams({ secret: value, csrf: csrf as string }),
  });
  expect(saved.status).toBe(200);
}

const textOf = (r: unknown) =>
  ((r as { content?: { text: string }[] }).content?.[0] as { text: string } | undefined)?.text;

const drivers = storeDrivers('bound').filter(([name]) => name !== 'postgres');

describe.each(drivers)('values bound to their record on %s', (_name, open) => {
  it('2026-07-28: two concurrent fresh asks of one principal each get their own page’s value', async () => {
    const { base, app } = await setUp(await open());
    const { listen, httpEntry } = await import('../../src/server/index.ts');
    const mcp = await listen(httpEntry(app));
    try {
      const meta = {
        ...MODERN_META,
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
      };
      const first = async () => {
        const r = (await callModern(mcp.url, 'fresh_key', { arguments: {}, _meta: meta })) as {
          result?: {
            requestState?: string;
            inputRequests?: Record<string, { params: { url: string } }>;
          };
        };
        const [key, request] = Object.entries(r.result?.inputRequests ?? {})[0] ?? [];
        expect(request?.params.url).toMatch(/\/elicit\//);
        return {
          key: key as string,
          url: request?.params.url as string,
          state: r.result?.requestState,
        };
      };
      const one = await first();
      const two = await first();
      expect(one.url).not.toBe(two.url);
      await savePage(base, one.url, 'one');
      await savePage(base, two.url, 'two');
      const finish = (call: typeof one) =>
        callModern(mcp.url, 'fresh_key', {
          arguments: {},
          _meta: meta,
          requestState: call.state,
          inputResponses: { [call.key]: { action: 'accept' } },
        });
      // Answered in the opposite order too: what counts is the record, not who came last.
      const [second, firstDone] = await Promise.all([finish(two), finish(one)]);
      expect(textOf((firstDone as { result?: unknown }).result)).toBe('one');
      expect(textOf((second as { result?: unknown }).result)).toBe('two');
      // The long-term value is the last one saved.
      const later = await callModern(mcp.url, 'stored_key', { arguments: {}, _meta: meta });
      expect(textOf((later as { result?: unknown }).result)).toBe('two');
    } finally {
      await mcp.close();
    }
  });

  it('2025-11-25 (in-call): two concurrent fresh asks of one principal each get their own page’s value', async () => {
    const { base, app } = await setUp(await open());
    const links: string[] = [];
    const client = new Client(
      { name: 'c', version: '1' },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (req) => {
      links.push(String((req.params as { url?: string }).url));
      return { action: 'accept' };
    });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await app.build('legacy').connect(st);
    await client.connect(ct);
    try {
      const call1 = client.callTool({ name: 'fresh_key', arguments: {} });
      for (let i = 0; i < 200 && links.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
      const call2 = client.callTool({ name: 'fresh_key', arguments: {} });
      for (let i = 0; i < 200 && links.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      expect(links).toHaveLength(2);
      // Both pages saved at once: neither call may take the other's value.
      await Promise.all([
        savePage(base, links[1] as string, 'two'),
        savePage(base, links[0] as string, 'one'),
      ]);
      expect(textOf(await call1)).toBe('one');
      expect(textOf(await call2)).toBe('two');
      // The long-term value is whichever page saved last.
      expect(['one', 'two']).toContain(
        textOf(await client.callTool({ name: 'stored_key', arguments: {} })),
      );
    } finally {
      await client.close();
    }
  });
});
