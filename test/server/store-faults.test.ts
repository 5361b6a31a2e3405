/**
 * A real `redis-server` (this file's own, on its own port) is killed with SIGKILL in the middle
 * of every path that uses the store, and started again on the same port: ask.once on
 * 2026-07-28, task creation, tasks/get, tasks/update and a task's journal write, the URL-mode
 * wait and completion on 2025-11-25 and 2026-07-28 (with the connect pages and the Redis
 * completion bus), and the vault. For each: the process lives (an unhandled rejection or
 * uncaught exception fails the file), the request in flight gets a clear error (elicit's code,
 * a fixed message, no driver text) or completes, and the same server, never restarted, works
 * again within a second of Redis accepting connections. Redis here keeps every acknowledged
 * write (append-only file, synced per write), so work in flight can go on after the restart.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { getRequestListener } from '@hono/node-server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  CreateTaskResultSchema,
  GetTaskPayloadResultSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachElicitation, type Renderer, scriptedRenderer } from '../../src/client/index.ts';
import {
  type CompletionBus,
  type CompletionEvent,
  redisBus,
} from '../../src/connect/completion.ts';
import { devLogin } from '../../src/connect/login.ts';
import { createConnectStack } from '../../src/connect/stack.ts';
import { boolean, form, text } from '../../src/schema/index.ts';
import {
  createServer,
  type ElicitWarning,
  generateKeySecret,
  httpEntry,
} from '../../src/server/index.ts';
import { redisStore } from '../../src/store/index.ts';
import { answer } from '../support/mrtr.ts';
import { type OwnRedis, ownRedis } from '../support/redis-server.ts';
import { accept, type Reply, resultText, rpc } from '../support/tasks.ts';

// Anything that would have ended a server process fails the file instead.
const escaped: unknown[] = [];
const onEscape = (error: unknown) => void escaped.push(error);
process.on('unhandledRejection', onEscape);
process.on('uncaughtException', onEscape);

/** Text of a driver's that must never reach a client. */
const DRIVER_TEXT =
  /ECONNREFUSED|ioredis|MaxRetries|max retries|Connection is closed|Stream isn't writeable|Command timed out|redis/i;

const warnings: ElicitWarning[] = [];
/** How long after Redis accepted connections again each path first worked, in ms. */
const recovery: Record<string, number> = {};

let redis: OwnRedis;
let stack: Stack;
let bus: CompletionBus;
let mcpUrl: URL;
const charges: string[] = [];
/** Set by a test: runs inside the task's step, after its side effect. */
let insideStep: (() => Promise<void>) | undefined;

interface Stack {
  readonly mcpUrl: URL;
  readonly bus: CompletionBus;
  close(): Promise<void>;
}

/** One elicit server (MCP and the connect pages on one loopback port) on `redis`. */
async function startStack(redis: OwnRedis): Promise<Stack> {
  const warn = (w: ElicitWarning) => void warnings.push(w);
  const prefix = `faults-${process.pid}:`;
  const store = await redisStore({ url: redis.url, prefix, onWarning: warn });
  const bus = await redisBus({ url: redis.url, channel: `${prefix}complete`, onWarning: warn });
  const http = createHttpServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const connect = createConnectStack({
    baseUrl: base,
    store,
    keyring: { keys: [{ id: 'v', secret: generateKeySecret() }] },
    bus,
    login: devLogin({ fixedPrincipal: 'local' }),
    providers: {},
  });
  const app = createServer({
    name: 'faults',
    version: '1',
    store,
    onWarning: warn,
    connect: { app: connect, waitMs: 30_000 },
    tasks: { limits: { leaseMs: 6000, pollIntervalMs: 50 } },
  })
    .tool('pay', {}, async (_a, ask) => {
      const ok = await ask.form('confirm', form({ ok: text() }));
      if (ok.action !== 'accept') return 'cancelled';
      const receipt = await ask.once('charge', () => {
        charges.push('pay');
        return `R-${charges.length}`;
      });
      return `paid ${receipt}`;
    })
    .tool('order', { task: 'optional' }, async (_a, ask) => {
      const ok = await ask.form('confirm', form({ ok: boolean() }));
      if (ok.action !== 'accept') return 'not ordered';
      const ref = await ask.step('charge', async () => {
        charges.push('order');
        await insideStep?.();
        return `O-${charges.length}`;
      });
      return `ordered ${ref}`;
    })
    .tool('greet', { task: 'optional' }, async (_a, ask) => {
      const r = await ask.form('who', form({ name: text() }), { message: 'Your name?' });
      return r.action === 'accept' ? `hello ${r.content.name}` : `no (${r.action})`;
    })
    .tool('set_key', {}, async (_a, ask) => {
      const r = await ask.secret('api_key', { label: 'API key', fresh: true });
      return r.action === 'accept' ? `saved:${r.value}` : `no:${r.action}`;
    })
    .tool('read_key', {}, async (_a, ask) => {
      const r = await ask.secret('api_key', { label: 'API key' });
      return r.action === 'accept' ? `read:${r.value}` : `no:${r.action}`;
    });
  const entry = httpEntry(app, { allowedHosts: ['127.0.0.1'] });
  const mcp = getRequestListener((req) => entry.fetch(req));
  const pages = getRequestListener((req) => connect.fetch(req));
  http.on('request', (req, res) =>
    (req.url ?? '').startsWith('/mcp') ? mcp(req, res) : pages(req, res),
  );
  return {
    mcpUrl: new URL(`${base}/mcp`),
    bus,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
      await bus.close();
      await store.close();
    },
  };
}

beforeAll(async () => {
  redis = await ownRedis({ persist: true });
  stack = await startStack(redis);
  mcpUrl = stack.mcpUrl;
  bus = stack.bus;
}, 30_000);

afterAll(async () => {
  await stack?.close();
  await redis?.close();
  process.off('unhandledRejection', onEscape);
  process.off('uncaughtException', onEscape);
  // The figures for the record: how fast each path came back.
  console.log(
    `store-faults recovery (ms after redis-server accepted connections): ${JSON.stringify(recovery)}`,
  );
  expect(escaped).toEqual([]);
});

/** Starts Redis again; resolves with when it accepted connections. */
async function restart(): Promise<number> {
  await redis.start();
  return performance.now();
}

/** Retries `attempt` every 10 ms until it is truthy (5 s at most); the ms it took after `since`. */
async function firstSuccess(
  name: string,
  since: number,
  attempt: () => Promise<boolean>,
): Promise<void> {
  for (;;) {
    if (await attempt().catch(() => false)) break;
    if (performance.now() - since > 5000) throw new Error(`${name} did not recover`);
    await sleep(10);
  }
  recovery[name] = Math.round(performance.now() - since);
  // Prompt, not timed: the client retries within a few hundred ms; the bound leaves room for a
  // loaded machine (a path that waited for a restart would hit the 5 s above).
  expect(recovery[name], name).toBeLessThan(3000);
}

/** The wire error of an outage: -32603, the store's code, a fixed message, nothing of the driver. */
function expectStoreError(reply: Reply, code = 'ELICIT_STORE_UNAVAILABLE') {
  expect(reply.result, JSON.stringify(reply)).toBeUndefined();
  expect(reply.error?.code).toBe(-32603);
  expect((reply.error?.data as { code?: string } | undefined)?.code).toBe(code);
  expect(reply.error?.message).not.toMatch(DRIVER_TEXT);
}

describe('a killed redis-server under every store-using path', () => {
  it('ask.once (2026-07-28): refused with its code while Redis is down, runs once after', async () => {
    const first = await rpc(mcpUrl, 'tools/call', { name: 'pay', arguments: {} });
    const state = first.result?.requestState as string;
    expect(state).toBeTypeOf('string');
    const before = charges.length;
    await redis.kill();
    const retry = {
      name: 'pay',
      arguments: {},
      requestState: state,
      inputResponses: answer('confirm', { ok: 'yes' }),
    };
    expectStoreError(await rpc(mcpUrl, 'tools/call', retry), 'ELICIT_ONCE_STORE_UNAVAILABLE');
    expect(charges.length).toBe(before); // refused, not run
    const since = await restart();
    let text = '';
    await firstSuccess('ask.once', since, async () => {
      const r = await rpc(mcpUrl, 'tools/call', retry);
      text = r.result?.content?.[0]?.text ?? '';
      return text.startsWith('paid');
    });
    expect(charges.length).toBe(before + 1);
    // The same state again: the marker holds, the step does not run twice.
    const again = await rpc(mcpUrl, 'tools/call', retry);
    expect(again.result?.content?.[0]?.text ?? JSON.stringify(again)).not.toBe(text);
    expect(charges.length).toBe(before + 1);
  }, 20_000);

  it('tasks: create, get and update answer a clear error during the outage and work after', async () => {
    const created = await rpc(mcpUrl, 'tools/call', { name: 'order', arguments: {} });
    const id = String(created.result?.taskId);
    let parked: Reply['result'];
    for (let i = 0; i < 200 && parked?.status !== 'input_required'; i++) {
      parked = (await rpc(mcpUrl, 'tasks/get', { taskId: id })).result;
      if (parked?.status !== 'input_required') await sleep(10);
    }
    const [key] = Object.keys(parked?.inputRequests ?? {});
    await redis.kill();
    expectStoreError(await rpc(mcpUrl, 'tools/call', { name: 'order', arguments: {} }));
    expectStoreError(await rpc(mcpUrl, 'tasks/get', { taskId: id }));
    const update = { taskId: id, inputResponses: { [String(key)]: accept({ ok: true }) } };
    expectStoreError(await rpc(mcpUrl, 'tasks/update', update));
    expectStoreError(await rpc(mcpUrl, 'tasks/cancel', { taskId: id }));
    const since = await restart();
    await firstSuccess('tasks/get', since, async () => {
      const r = await rpc(mcpUrl, 'tasks/get', { taskId: id });
      return r.result?.status === 'input_required';
    });
    await firstSuccess('tasks/create', since, async () => {
      const r = await rpc(mcpUrl, 'tools/call', { name: 'order', arguments: {} });
      return r.result?.resultType === 'task';
    });
    await firstSuccess('tasks/update', since, async () => {
      const r = await rpc(mcpUrl, 'tasks/update', update);
      return r.result?.resultType === 'complete';
    });
    let done: Reply['result'];
    for (let i = 0; i < 500 && done?.status !== 'completed'; i++) {
      done = (await rpc(mcpUrl, 'tasks/get', { taskId: id })).result;
      if (done?.status !== 'completed') await sleep(10);
    }
    expect(done?.status).toBe('completed');
    expect(resultText(done ?? {})).toMatch(/^ordered O-\d+$/);
  }, 30_000);

  it('a task whose journal write meets the outage: retried within the lease, the step runs once', async () => {
    const created = await rpc(mcpUrl, 'tools/call', { name: 'order', arguments: {} });
    const id = String(created.result?.taskId);
    let parked: Reply['result'];
    for (let i = 0; i < 200 && parked?.status !== 'input_required'; i++) {
      parked = (await rpc(mcpUrl, 'tasks/get', { taskId: id })).result;
      if (parked?.status !== 'input_required') await sleep(10);
    }
    const [key] = Object.keys(parked?.inputRequests ?? {});
    let restarted = 0;
    // Redis dies after the step's side effect and before its result is journaled; it is back
    // 1.5 s later, well within the 6 s lease.
    insideStep = async () => {
      insideStep = undefined;
      await redis.kill();
      setTimeout(() => {
        void restart().then((t) => {
          restarted = t;
        });
      }, 1500);
    };
    const before = charges.length;
    await rpc(mcpUrl, 'tasks/update', {
      taskId: id,
      inputResponses: { [String(key)]: accept({ ok: true }) },
    });
    let done: Reply['result'];
    for (let i = 0; i < 800 && done?.status !== 'completed' && done?.status !== 'failed'; i++) {
      const r = await rpc(mcpUrl, 'tasks/get', { taskId: id });
      done = r.result ?? done;
      if (r.error !== undefined) expect(r.error.message).not.toMatch(DRIVER_TEXT);
      await sleep(10);
    }
    expect(done?.status).toBe('completed');
    expect(resultText(done ?? {})).toBe(`ordered O-${before + 1}`);
    expect(done?.result?.isError).toBeUndefined();
    expect(charges.length).toBe(before + 1); // the step ran once
    expect(restarted).toBeGreaterThan(0);
    // The write went through at the first retry after Redis came back.
    const updated = Date.parse(String(done?.lastUpdatedAt));
    expect(updated).toBeGreaterThan(0);
  }, 30_000);

  it('2025-11-25 tasks: create and get answer a clear error; the end is written once Redis is back', async () => {
    const client = new Client(
      { name: 'c', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    let restarted = 0;
    client.setRequestHandler('elicitation/create', async () => {
      // The person answers while Redis is down: the task's end meets the outage.
      await redis.kill();
      setTimeout(() => {
        void restart().then((t) => {
          restarted = t;
        });
      }, 1500);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    client.setVersionNegotiation({ mode: 'legacy' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl));
    const call = () =>
      client.request(
        {
          method: 'tools/call',
          params: { name: 'greet', arguments: {}, task: { ttl: 60_000 } },
        } as never,
        CreateTaskResultSchema,
      );
    const get = (taskId: string) =>
      client.request({ method: 'tasks/get', params: { taskId } } as never, GetTaskResultSchema);
    const { task } = await call();
    let status = task.status;
    for (let i = 0; i < 800 && status !== 'completed' && status !== 'failed'; i++) {
      await sleep(10);
      status = await get(task.taskId).then(
        (t) => t.status,
        (e: { code?: number; message?: string; data?: { code?: string } }) => {
          // While Redis is down: the store's wire error, nothing of the driver's.
          expect(e.code).toBe(-32603);
          expect(e.data?.code).toBe('ELICIT_STORE_UNAVAILABLE');
          expect(e.message).not.toMatch(DRIVER_TEXT);
          return status;
        },
      );
    }
    expect(status).toBe('completed');
    expect(restarted).toBeGreaterThan(0);
    const payload = await client.request(
      { method: 'tasks/result', params: { taskId: task.taskId } } as never,
      GetTaskPayloadResultSchema,
    );
    expect((payload as { content?: { text: string }[] }).content?.[0]?.text).toBe('hello Ada');
    // Creating a task during an outage: the same clear error.
    await redis.kill();
    const refused = await call().then(
      () => undefined,
      (e: unknown) => e as { code?: number; message?: string; data?: { code?: string } },
    );
    expect(refused?.code).toBe(-32603);
    expect(refused?.data?.code).toBe('ELICIT_STORE_UNAVAILABLE');
    expect(refused?.message).not.toMatch(DRIVER_TEXT);
    const since = await restart();
    await firstSuccess('2025-11-25 task create', since, async () => {
      const { task: again } = await call();
      return again.taskId.length > 0;
    });
    await client.close();
  }, 30_000);

  it('the completion bus subscribes again by itself after Redis comes back', async () => {
    const heard: CompletionEvent[] = [];
    const stop = bus.subscribe((e) => void heard.push(e));
    await redis.kill();
    await expect(bus.publish({ id: 'x', status: 'complete' })).rejects.toMatchObject({
      code: 'ELICIT_STORE_UNAVAILABLE',
    });
    const since = await restart();
    let n = 0;
    await firstSuccess('completion bus', since, async () => {
      const id = `bus-${++n}`;
      await bus.publish({ id, status: 'complete' });
      await sleep(20);
      return heard.some((e) => e.id === id);
    });
    stop();
  }, 20_000);

  for (const era of ['legacy', 'modern'] as const) {
    it(`URL mode on ${era === 'legacy' ? '2025-11-25' : '2026-07-28'}: the wait, the connect page and the vault live through it`, async () => {
      // The person opens the page while Redis is down (a 503 page), then again after.
      let outage: Promise<void> = Promise.resolve();
      const pageDuringOutage: { status?: number; text?: string } = {};
      const renderer: Renderer = {
        ...scriptedRenderer(),
        async url(request) {
          const link = request.analysis.href as string;
          outage = (async () => {
            await sleep(300); // the server is waiting for the record now
            await redis.kill();
            await sleep(2300); // its poll (every 2 s) meets the outage
            const refused = await browse(link, 'never');
            Object.assign(pageDuringOutage, refused);
            const since = await restart();
            await firstSuccess(`connect page (${era})`, since, async () => {
              const r = await browse(link, `value-${era}`);
              return r.status === 200 && r.text.includes('is saved');
            });
          })();
          return { action: 'opened' };
        },
      };
      const client = new Client({ name: 'c', version: '1' });
      const elicit = attachElicitation(client, { renderer, rateLimit: false });
      client.setVersionNegotiation({ mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl));
      const result = await elicit.callTool({ name: 'set_key', arguments: {} }, { timeout: 30_000 });
      await outage;
      expect((result.content as { text: string }[])[0]?.text).toBe(`saved:value-${era}`);
      expect(pageDuringOutage.status).toBe(503);
      expect(pageDuringOutage.text).toMatch(/unavailable/i);
      expect(pageDuringOutage.text).not.toMatch(DRIVER_TEXT);

      // The vault: a read during the outage is a clear error, and works again after.
      await redis.kill();
      const failed = await elicit
        .callTool({ name: 'read_key', arguments: {} }, { timeout: 10_000 })
        .then(
          () => undefined,
          (e: unknown) => e as { code?: number; message?: string; data?: { code?: string } },
        );
      expect(failed?.code).toBe(-32603);
      expect(failed?.data?.code).toBe('ELICIT_STORE_UNAVAILABLE');
      expect(failed?.message).not.toMatch(DRIVER_TEXT);
      const since = await restart();
      await firstSuccess(`vault (${era})`, since, async () => {
        const r = await elicit.callTool({ name: 'read_key', arguments: {} }, { timeout: 5000 });
        return (r.content as { text: string }[])[0]?.text === `read:value-${era}`;
      });
      await client.close();
    }, 40_000);
  }

  it('warned once per outage and part, never per attempt; nothing escaped', () => {
    const codes = new Set(warnings.map((w) => w.code));
    expect([...codes].sort()).toEqual(['ELICIT_BACKGROUND_FAILED', 'ELICIT_STORE_UNAVAILABLE']);
    // Ten outages, three Redis clients: a bounded number of lines, not one per reconnect attempt.
    const lost = warnings.filter((w) => w.code === 'ELICIT_STORE_UNAVAILABLE');
    expect(lost.length).toBeLessThanOrEqual(10 * 3);
    // The work outside requests said what failed while it retried.
    const background = warnings.filter((w) => w.code === 'ELICIT_BACKGROUND_FAILED');
    expect(background.some((w) => w.message.startsWith("A task's record write failed"))).toBe(true);
    expect(
      background.some((w) => w.message.startsWith('A URL-mode wait reading its record failed')),
    ).toBe(true);
    expect(warnings.length).toBeLessThan(60);
    expect(escaped).toEqual([]);
  });
});

describe('a redis-server that comes back empty (no persistence)', () => {
  it('work in flight ends clearly, new work runs, the same server never restarts', async () => {
    const empty = await ownRedis();
    const other = await startStack(empty);
    try {
      // A task parked for input, and a 2025-11-25 call waiting for the browser.
      const created = await rpc(other.mcpUrl, 'tools/call', { name: 'order', arguments: {} });
      const id = String(created.result?.taskId);
      let parked: Reply['result'];
      for (let i = 0; i < 200 && parked?.status !== 'input_required'; i++) {
        parked = (await rpc(other.mcpUrl, 'tasks/get', { taskId: id })).result;
        if (parked?.status !== 'input_required') await sleep(10);
      }
      let opened!: () => void;
      const linkShown = new Promise<void>((r) => {
        opened = r;
      });
      const renderer: Renderer = {
        ...scriptedRenderer(),
        async url() {
          opened();
          return { action: 'opened' };
        },
      };
      const client = new Client({ name: 'c', version: '1' });
      const elicit = attachElicitation(client, { renderer, rateLimit: false });
      client.setVersionNegotiation({ mode: 'legacy' });
      await client.connect(new StreamableHTTPClientTransport(other.mcpUrl));
      const waiting = elicit.callTool({ name: 'set_key', arguments: {} }, { timeout: 20_000 });
      await linkShown;
      await sleep(200);
      await empty.kill();
      await sleep(500);
      const since = await (async () => {
        await empty.start();
        return performance.now();
      })();
      // New work runs on the same server.
      await firstSuccess('new task after an empty restart', since, async () => {
        const r = await rpc(other.mcpUrl, 'tools/call', { name: 'order', arguments: {} });
        return r.result?.resultType === 'task';
      });
      // The record is gone with the data: the wait ends as an expired link (the person is told
      // to start again), not as an error of the driver's and not as a hang.
      const ended = await waiting;
      expect((ended.content as { text: string }[])[0]?.text).toBe('no:cancel');
      // The task is gone too: unknown, the same answer as for any id that is not yours.
      const gone = await rpc(other.mcpUrl, 'tasks/get', { taskId: id });
      expect(gone.error?.code).toBe(-32602);
      expect(gone.error?.message).not.toMatch(DRIVER_TEXT);
      await client.close();
    } finally {
      await other.close();
      await empty.close();
    }
    expect(escaped).toEqual([]);
  }, 30_000);
});

/**
 * A person's browser, without a browser: signs in (development login), opens the link and
 * submits the secret; returns the first response that is not a redirect or the page itself.
 */
async function browse(link: string, value: string): Promise<{ status: number; text: string }> {
  const base = new URL(link).origin;
  let cookie = '';
  const headers = () => ({ cookie, origin: base, 'sec-fetch-site': 'same-origin' });
  const stop = async (res: Response) => ({ status: res.status, text: await res.text() });
  let res = await fetch(link, { headers: headers(), redirect: 'manual' });
  if (res.status === 303) {
    const next =
      new URL(res.headers.get('location') as string, base).searchParams.get('next') ?? '';
    res = await fetch(`${base}/elicit/login`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ next }),
      redirect: 'manual',
    });
    if (res.status !== 303) return stop(res);
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
    res = await fetch(link, { headers: headers(), redirect: 'manual' });
  }
  if (res.status !== 200) return stop(res);
  const html = await res.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return stop(
    await fetch(`${link}/secret`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret: value, csrf }),
      redirect: 'manual',
    }),
  );
}
