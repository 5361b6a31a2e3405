/**
 * 2026-07-28 requests served by a few reused servers (src/server/server-pool.ts): two principals'
 * requests interleaved through one pooled server see only their own principal, auth info,
 * state, client identity and per-call objects; a busy server is never handed out, nor one whose
 * hung-up handler still runs or whose task runs on.
 */
import type { AddressInfo } from 'node:net';
import { type AuthInfo, createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import { ElicitServer } from '../../src/server/app.ts';
import { createServer, type Era, httpEntry, listen } from '../../src/server/index.ts';
import { ServerPool } from '../../src/server/server-pool.ts';
import { MODERN_META, modernBody, modernHeaders, readReply } from '../support/kit.ts';

/** `Bearer <name>` is principal <name> (issuer https://idp.example). */
function authInfo(req: Request): AuthInfo | undefined {
  const token = req.headers.get('authorization')?.replace(/^Bearer /, '');
  if (token === undefined) return undefined;
  return {
    token,
    clientId: `client-${token}`,
    scopes: [],
    extra: { iss: 'https://idp.example', sub: token },
  };
}

/** A latch a test opens by hand. */
function latch() {
  let open = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
}

/** Counts the 2026-07-28 servers `app` builds. */
function counting(app: ElicitServer): { readonly modern: number } {
  const build = app.build.bind(app);
  const count = { modern: 0 };
  app.build = (era) => {
    if (era === 'modern') count.modern += 1;
    return build(era);
  };
  return count;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

interface Reply {
  result?: {
    resultType?: string;
    requestState?: string;
    content?: { text: string }[];
  };
  error?: { code: number; message: string };
}

function post(
  entry: { fetch(req: Request): Promise<Response> },
  name: string,
  params: Record<string, unknown>,
  who: string,
  options: { id?: number; meta?: Record<string, unknown> } = {},
): Promise<Reply> {
  return entry
    .fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: modernHeaders(name, { host: '127.0.0.1', authorization: `Bearer ${who}` }),
        body: modernBody(name, params, options.id, options.meta),
      }),
    )
    .then((res) => readReply(res) as Promise<Reply>);
}

const textOf = (r: Reply) => r.result?.content?.[0]?.text;

describe('a pool of 2026-07-28 servers', () => {
  it('serves two principals interleaved through one server, nothing crossing', async () => {
    const seen: object[] = [];
    const app = createServer({ name: 'pool', version: '1' }).tool(
      'who',
      {},
      async (_a, ask, ctx) => {
        // Each call's own objects: collected to check none is shared between calls.
        seen.push(ask, ctx, ctx.mcpReq);
        const r = await ask.form('name', form({ v: text() }));
        const v = r.action === 'accept' ? r.content.v : r.action;
        return `${ctx.http?.authInfo?.token}:${ctx.http?.authInfo?.clientId}:${v}`;
      },
    );
    const built = counting(app);
    const entry = httpEntry(app, { authInfo });
    cleanups.push(() => entry.close());

    // Ann and Bob alternate, each round of one between the rounds of the other.
    const ann1 = await post(entry, 'who', {}, 'ann');
    const bob1 = await post(entry, 'who', {}, 'bob');
    const annState = ann1.result?.requestState;
    const bobState = bob1.result?.requestState;
    expect(ann1.result?.resultType).toBe('input_required');
    expect(annState).toBeTypeOf('string');
    expect(bobState).toBeTypeOf('string');
    expect(annState).not.toBe(bobState);
    const answer = (v: string) => ({ name: { action: 'accept', content: { v } } });
    // Bob presents Ann's state: refused, as it is bound to her.
    const stolen = await post(
      entry,
      'who',
      { requestState: annState, inputResponses: answer('x') },
      'bob',
    );
    expect(stolen.error?.code).toBe(-32602);
    const ann2 = await post(
      entry,
      'who',
      { requestState: annState, inputResponses: answer('A') },
      'ann',
    );
    const bob2 = await post(
      entry,
      'who',
      { requestState: bobState, inputResponses: answer('B') },
      'bob',
    );
    expect(textOf(ann2)).toBe('ann:client-ann:A');
    expect(textOf(bob2)).toBe('bob:client-bob:B');
    // One server served all five requests, and no call saw another's ask, context or request.
    expect(built.modern).toBe(1);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('never hands out a busy server: concurrent requests get their own, then share the idle ones', async () => {
    const gate = latch();
    let inside = 0;
    const app = createServer({ name: 'pool', version: '1' }).tool(
      'hold',
      {},
      async (_a, _ask, ctx) => {
        inside += 1;
        await gate.opened;
        return String(ctx.http?.authInfo?.token);
      },
    );
    const built = counting(app);
    const entry = httpEntry(app, { authInfo });
    cleanups.push(() => entry.close());
    const calls = ['ann', 'bob', 'cy'].map((who) => post(entry, 'hold', {}, who));
    while (inside < 3) await new Promise((r) => setTimeout(r, 5));
    expect(built.modern).toBe(3);
    gate.open();
    expect((await Promise.all(calls)).map(textOf)).toEqual(['ann', 'bob', 'cy']);
    // Idle now: later requests reuse them, whoever asks.
    for (const who of ['bob', 'ann', 'cy', 'ann'])
      expect(textOf(await post(entry, 'hold', {}, who))).toBe(who);
    expect(built.modern).toBe(3);
  });

  it('keeps a server whose hung-up handler still runs out of the pool, so what it sends reaches no one else', async () => {
    const annInside = latch();
    const annGoOn = latch();
    const annDone = latch();
    const bobInside = latch();
    const bobGoOn = latch();
    const app = createServer({ name: 'pool', version: '1' })
      .tool('ann', {}, async (_a, ask) => {
        annInside.open();
        await annGoOn.opened;
        // Her client has hung up; progress she reports now must go nowhere.
        await ask.progress(1, { message: 'ann-secret' }).catch(() => {});
        annDone.open();
        return 'ann';
      })
      .tool('bob', {}, async () => {
        bobInside.open();
        await bobGoOn.opened;
        return 'bob';
      });
    const built = counting(app);
    const served = await listen(httpEntry(app, { authInfo }));
    cleanups.push(() => served.close());
    const url = served.url;
    const raw = (name: string, who: string, signal?: AbortSignal) =>
      fetch(url, {
        method: 'POST',
        headers: modernHeaders(name, { authorization: `Bearer ${who}` }),
        // The same JSON-RPC id and progress token for both: ids are the client's to choose.
        body: modernBody(name, {}, 7, { ...MODERN_META, progressToken: 'p' }),
        ...(signal === undefined ? {} : { signal }),
      });
    const hangUp = new AbortController();
    const ann = raw('ann', 'ann', hangUp.signal).catch(() => undefined);
    await annInside.opened;
    hangUp.abort();
    await ann;
    // Give the server the moment it takes to see the hang-up close Ann's exchange.
    await new Promise((r) => setTimeout(r, 50));
    const bob = raw('bob', 'bob');
    await bobInside.opened;
    annGoOn.open();
    await annDone.opened;
    bobGoOn.open();
    const body = await (await bob).text();
    expect(body).toContain('bob');
    expect(body).not.toContain('ann-secret');
    // Bob was served by a second server; once Ann's handler ended, hers was idle again.
    expect(built.modern).toBe(2);
    await new Promise((r) => setTimeout(r, 10));
    const again = await fetch(url, {
      method: 'POST',
      headers: modernHeaders('bob', { authorization: 'Bearer cy' }),
      body: modernBody('bob', {}, 8),
    });
    bobGoOn.open();
    expect(await again.text()).toContain('bob');
    expect(built.modern).toBe(2);
    expect((served.server.address() as AddressInfo).port).toBeGreaterThan(0);
  });

  it('keeps what a handler left behind from reaching the next request on its server', async () => {
    const fired = latch();
    const bobInside = latch();
    const bobGoOn = latch();
    let late: unknown;
    const app = createServer({ name: 'pool', version: '1' })
      .tool('ann', {}, async (_a, ask, ctx) => {
        // Work left running after the call has answered: once Bob's call is on this server.
        void bobInside.opened.then(async () => {
          late = await Promise.allSettled([
            ask.progress(1, { message: 'ann-late' }),
            ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: 'p', progress: 2, message: 'ann-late' },
            }),
          ]);
          fired.open();
        });
        return 'ann';
      })
      .tool('bob', {}, async () => {
        bobInside.open();
        await bobGoOn.opened;
        return 'bob';
      });
    const built = counting(app);
    const served = await listen(httpEntry(app, { authInfo }));
    cleanups.push(() => served.close());
    const raw = (name: string, who: string) =>
      fetch(served.url, {
        method: 'POST',
        headers: modernHeaders(name, { authorization: `Bearer ${who}` }),
        body: modernBody(name, {}, 7, { ...MODERN_META, progressToken: 'p' }),
      });
    expect(await (await raw('ann', 'ann')).text()).toContain('ann');
    await new Promise((r) => setTimeout(r, 10));
    const bob = raw('bob', 'bob');
    await fired.opened;
    bobGoOn.open();
    const body = await (await bob).text();
    expect(body).toContain('bob');
    expect(body).not.toContain('ann-late');
    // Bob's call was on Ann's server; what she left behind failed as on a closed server.
    expect(built.modern).toBe(1);
    expect(late).toMatchObject([
      { status: 'rejected', reason: { code: 'NOT_CONNECTED' } },
      { status: 'rejected', reason: { code: 'NOT_CONNECTED' } },
    ]);
  });

  it('does not reuse a server whose call became a task (the task runs on with its request)', async () => {
    const app = createServer({ name: 'pool', version: '1' })
      .tool('job', { task: 'optional' }, async () => 'done')
      .tool('plain', {}, async () => 'plain');
    const built = counting(app);
    const entry = httpEntry(app, { authInfo });
    cleanups.push(() => entry.close());
    const tasksMeta = {
      ...MODERN_META,
      'io.modelcontextprotocol/clientCapabilities': {
        elicitation: {},
        extensions: { 'io.modelcontextprotocol/tasks': {} },
      },
    };
    const task = await post(entry, 'job', {}, 'ann', { meta: tasksMeta });
    expect(task.result?.resultType).toBe('task');
    expect(textOf(await post(entry, 'plain', {}, 'bob'))).toBe('plain');
    // The task's server was dropped: Bob's call needed a new one, which is then reused.
    expect(built.modern).toBe(2);
    expect(textOf(await post(entry, 'plain', {}, 'ann'))).toBe('plain');
    expect(built.modern).toBe(2);
  });

  it('gives a subclass that builds its own servers (the gateway) a server per request', async () => {
    class Own extends ElicitServer {
      override build(era: Era) {
        return super.build(era);
      }
    }
    const app = new Own({ name: 'own', version: '1' }).tool('t', {}, async () => 'ok');
    const built = counting(app);
    const entry = httpEntry(app, { authInfo });
    cleanups.push(() => entry.close());
    for (const who of ['ann', 'bob', 'ann'])
      expect(textOf(await post(entry, 't', {}, who))).toBe('ok');
    expect(built.modern).toBe(3);
  });

  it('forgets the client identity the SDK seeded from the last request before reuse', async () => {
    let builds = 0;
    const pool = new ServerPool(() => {
      builds += 1;
      const mcp = new McpServer({ name: 'ids', version: '1' });
      mcp.registerTool('client', {}, async () => ({
        content: [
          {
            type: 'text',
            text: `${mcp.server.getClientVersion()?.name ?? 'none'}:${JSON.stringify(mcp.server.getClientCapabilities())}`,
          },
        ],
      }));
      return mcp;
    });
    const handler = createMcpHandler(pool.take, { legacy: 'reject' });
    cleanups.push(() => handler.close());
    const call = async (meta: Record<string, unknown>) =>
      textOf(
        (await readReply(
          await handler.fetch(
            new Request('http://127.0.0.1/mcp', {
              method: 'POST',
              headers: modernHeaders('client'),
              body: modernBody('client', {}, 1, meta),
            }),
          ),
        )) as Reply,
      );
    expect(await call(MODERN_META)).toBe('raw:{"elicitation":{}}');
    const { 'io.modelcontextprotocol/clientInfo': _info, ...noInfo } = MODERN_META;
    const bare = { ...noInfo, 'io.modelcontextprotocol/clientCapabilities': {} };
    // Without clientInfo, the next request on the same server sees none, not the last one's.
    expect(await call(bare)).toBe('none:{}');
    expect(builds).toBe(1);
    expect(pool.idle).toBe(1);
  });

  it('bounds what it keeps: beyond its size, a request gets a server of its own', async () => {
    const gate = latch();
    let inside = 0;
    const pool = new ServerPool(() => {
      const mcp = new McpServer({ name: 'b', version: '1' });
      mcp.registerTool('hold', {}, async () => {
        inside += 1;
        await gate.opened;
        return { content: [] };
      });
      return mcp;
    }, 2);
    const handler = createMcpHandler(pool.take, { legacy: 'reject' });
    cleanups.push(() => handler.close());
    const calls = [1, 2, 3].map((id) =>
      handler.fetch(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: modernHeaders('hold'),
          body: modernBody('hold', {}, id),
        }),
      ),
    );
    while (inside < 3) await new Promise((r) => setTimeout(r, 5));
    gate.open();
    await Promise.all(calls);
    await new Promise((r) => setTimeout(r, 10));
    expect(pool.built).toBe(3);
    expect(pool.idle).toBe(2);
  });
});
