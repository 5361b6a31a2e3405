/**
 * Long waits on 2025 sessions: while a person takes their time, progress keeps a client whose
 * request timeout resets on progress waiting, with values that only ever rise on the token.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ServerContext } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import {
  createServer,
  httpEntry,
  LimitOptionError,
  type Listening,
  listen,
} from '../../src/server/index.ts';
import { KEEP_ALIVE_MESSAGE, progressKeepAlive } from '../../src/server/keep-alive.ts';

const NAME = form({ name: text() });
const servers: Listening[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const s of servers.splice(0)) await s.close();
});

/** How often the slow app's keep-alive progress goes out. */
const KEEP_ALIVE_MS = 50;

/** `slow` reports its own progress around one ask, as slow_count does in the demo. */
function slowApp() {
  return createServer({
    name: 'slow',
    version: '1',
    limits: { progressEveryMs: KEEP_ALIVE_MS },
  }).tool('slow', {}, async (_args, ask) => {
    const report = (progress: number) =>
      ask.progress(progress, { total: 3, message: `step ${progress}` });
    await report(1);
    const r = await ask.form('name', NAME, { message: 'Name?' });
    // Lower than the keep-alives already sent: lifted above them, never sent out of order.
    await report(1);
    await report(2);
    return r.action === 'accept' ? `hello ${r.content.name}` : r.action;
  });
}

/** A 2025-11-25 SDK client whose person answers after `answerAfterMs`. */
async function patientClient(url: URL, answerAfterMs: number) {
  const client = new Client(
    { name: 'patient', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'legacy' } },
  );
  client.setRequestHandler('elicitation/create', async () => {
    await sleep(answerAfterMs);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  await client.connect(new StreamableHTTPClientTransport(url));
  clients.push(client);
  return client;
}

async function serve(app: ReturnType<typeof slowApp>): Promise<URL> {
  const server = await listen(httpEntry(app));
  servers.push(server);
  return server.url;
}

describe('progress keep-alive on legacy sessions', () => {
  it('keeps a client with a short, progress-reset timeout waiting past that timeout', async () => {
    const url = await serve(slowApp());
    // The timeout is many keep-alive intervals long, so that a loaded machine stalling this
    // process (server and client share it) for most of a second does not let it run out between
    // two keep-alives; the person takes more than twice the timeout.
    const timeout = 1500;
    const client = await patientClient(url, 2 * timeout + 200);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: 'slow', arguments: {} },
      { timeout, resetTimeoutOnProgress: true, onprogress: (p) => void seen.push(p) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    const values = seen.map((p) => p.progress);
    // Strictly rising, the handler's own values included.
    for (let i = 1; i < values.length; i++)
      expect(values[i] as number).toBeGreaterThan(values[i - 1] as number);
    const keepAlives = seen.filter((p) => p.message === KEEP_ALIVE_MESSAGE);
    expect(keepAlives.length).toBeGreaterThanOrEqual(5);
    // A negligible step above the handler's 1, with its total kept.
    for (const k of keepAlives) {
      expect(k.progress).toBeGreaterThan(1);
      expect(k.progress).toBeLessThan(1.001);
      expect(k.total).toBe(3);
    }
    expect(seen[0]).toMatchObject({ progress: 1, message: 'step 1' });
    expect(seen.at(-2)?.message).toBe('step 1');
    expect(seen.at(-1)).toMatchObject({ progress: 2, message: 'step 2' });
  });

  it('without progress keep-alive the same client times out', async () => {
    const app = createServer({
      name: 'quiet',
      version: '1',
      limits: { progressEveryMs: 60_000 },
    }).tool('slow', {}, async (_args, ask) => {
      const r = await ask.form('name', NAME, { message: 'Name?' });
      return r.action;
    });
    const server = await listen(httpEntry(app));
    servers.push(server);
    const client = await patientClient(server.url, 600);
    await expect(
      client.callTool(
        { name: 'slow', arguments: {} },
        { timeout: 200, resetTimeoutOnProgress: true, onprogress: () => {} },
      ),
    ).rejects.toThrow(/timed out/i);
  });

  it('sends nothing when the call carries no progress token', async () => {
    const url = await serve(slowApp());
    const client = await patientClient(url, 200);
    const notified: string[] = [];
    client.fallbackNotificationHandler = async (n) => void notified.push(n.method);
    const result = await client.callTool({ name: 'slow', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect(notified).not.toContain('notifications/progress');
  });

  it('refuses a progressEveryMs that is not a positive whole number', () => {
    for (const progressEveryMs of [0, -1, 1.5, Number.NaN])
      expect(() => createServer({ name: 'x', version: '1', limits: { progressEveryMs } })).toThrow(
        LimitOptionError,
      );
  });
});

describe('progressKeepAlive', () => {
  function fakeCtx(token: string | undefined) {
    const sent: { progress: number; total?: number; message?: string }[] = [];
    const mcpReq = {
      _meta: token === undefined ? undefined : { progressToken: token },
      signal: new AbortController().signal,
      notify: async (n: { method: string; params?: Record<string, unknown> }) => {
        if (n.method === 'notifications/progress') sent.push(n.params as never);
      },
    };
    return { ctx: { mcpReq } as unknown as ServerContext, sent };
  }

  it('beats while any wait holds it, and stops when the last one ends', () => {
    vi.useFakeTimers();
    try {
      const { ctx, sent } = fakeCtx('t');
      const keep = progressKeepAlive(ctx, 100);
      const a = keep.hold();
      const b = keep.hold();
      vi.advanceTimersByTime(250);
      expect(sent.map((s) => s.progress)).toEqual([0, expect.closeTo(1e-6, 9)]);
      a();
      a();
      vi.advanceTimersByTime(100);
      expect(sent).toHaveLength(3);
      b();
      vi.advanceTimersByTime(1000);
      expect(sent).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rises above large values too', async () => {
    vi.useFakeTimers();
    try {
      const { ctx, sent } = fakeCtx('t');
      const keep = progressKeepAlive(ctx, 100);
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken: 't', progress: 2 ** 60 },
      });
      const stop = keep.hold();
      vi.advanceTimersByTime(100);
      stop();
      expect(sent).toHaveLength(2);
      expect(sent[1]?.progress).toBeGreaterThan(2 ** 60);
    } finally {
      vi.useRealTimers();
    }
  });

  it('leaves other tokens and notifications alone, and does nothing without a token', async () => {
    const { ctx, sent } = fakeCtx('t');
    progressKeepAlive(ctx, 100);
    await ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: { progressToken: 'other', progress: 0 },
    });
    await ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: { progressToken: 't', progress: 5 },
    });
    await ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: { progressToken: 'other', progress: 0 },
    });
    expect(sent.map((s) => s.progress)).toEqual([0, 5, 0]);
    const none = fakeCtx(undefined);
    const before = none.ctx.mcpReq.notify;
    vi.useFakeTimers();
    try {
      const stop = progressKeepAlive(none.ctx, 10).hold();
      vi.advanceTimersByTime(100);
      stop();
    } finally {
      vi.useRealTimers();
    }
    expect(none.sent).toHaveLength(0);
    expect(none.ctx.mcpReq.notify).toBe(before);
  });
});

describe('ask.progress', () => {
  const counting = () =>
    createServer({ name: 'count', version: '1' }).tool('count', {}, async (_args, ask) => {
      await ask.progress(1, { total: 2, message: 'one' });
      await ask.progress(2, { total: 2 });
      return `counted on ${ask.revision}`;
    });

  it('reports on the call’s progress token on 2026-07-28', async () => {
    const url = await serve(counting());
    const client = new Client(
      { name: 'modern', version: '1' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(url));
    clients.push(client);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: 'count', arguments: {} },
      { onprogress: (p) => void seen.push(p) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'counted on 2026-07-28' }]);
    expect(seen).toEqual([
      { progress: 1, total: 2, message: 'one' },
      { progress: 2, total: 2 },
    ]);
  });

  it('reports on 2025-11-25, and sends nothing without a token', async () => {
    const url = await serve(counting());
    const client = await patientClient(url, 0);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    await client.callTool(
      { name: 'count', arguments: {} },
      { onprogress: (p) => void seen.push(p) },
    );
    expect(seen.map((p) => p.progress)).toEqual([1, 2]);
    const plain = await client.callTool({ name: 'count', arguments: {} });
    expect(plain.content).toEqual([{ type: 'text', text: 'counted on 2025-11-25' }]);
  });

  it('refuses a progress that is not a finite number', async () => {
    const app = createServer({ name: 'bad', version: '1' }).tool('bad', {}, async (_args, ask) => {
      await ask.progress(Number.NaN);
      return 'unreachable';
    });
    const client = await patientClient(await serve(app), 0);
    const result = await client.callTool({ name: 'bad', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('ask.progress');
  });
});
