/**
 * A held call ends toward the server as soon as nobody can come back for it, not when it has
 * been idle for `held.idleMs` (an hour here): its task is cancelled or expires, or the 2025 host
 * whose session holds it cancels, hangs up or ends its session. The server, a plain SDK v1
 * server (2025 only) in this process, sees `notifications/cancelled` saying why, and the call's
 * slot in the held-call bounds is free at once. A call offered as a task lives as long as the
 * task, however long its question waits. (The bounds on how soon leave room for a busy machine;
 * the cancellations come within milliseconds, or one store read, of their cause.)
 */

import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attachElicitation, type Renderer, type TaskState } from '../../src/client/index.ts';
import { sdkTaskWire } from '../../src/client/internal.ts';
import { createGateway, type GatewayLimits } from '../../src/gateway/index.ts';
import type { Listening } from '../../src/server/index.ts';
import { taskKey } from '../../src/server/tasks/records.ts';
import { type Json, redisStore, type Store } from '../../src/store/index.ts';
import { type V1Upstream, v1Upstream } from '../support/v1-upstream.ts';

const HOUR = 3_600_000;
let server: V1Upstream;
const closing: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  server = await v1Upstream();
}, 30_000);
afterEach(async () => {
  for (const c of closing.splice(0).reverse()) await c.close().catch(() => {});
});
afterAll(async () => {
  await server?.close();
});

/** A gateway in front of the server (held calls idle for an hour unless said otherwise). */
async function gatewayWith(
  limits: GatewayLimits = {},
  taskTtlMs?: number,
  tasks: { store?: Store; watchEveryMs?: number } = {},
) {
  const gateway = await createGateway({
    transport: () => new StreamableHTTPClientTransport(server.url),
    era: 'legacy',
    limits: { held: { idleMs: HOUR }, ...limits },
    server: {
      tasks: {
        ...(tasks.store === undefined ? {} : { store: tasks.store }),
        limits: {
          pollIntervalMs: 100,
          ...(taskTtlMs ? { ttlMs: taskTtlMs } : {}),
          ...(tasks.watchEveryMs ? { watchEveryMs: tasks.watchEveryMs } : {}),
        },
      },
    },
  });
  closing.push(gateway);
  const front: Listening = await gateway.listen();
  closing.push(front);
  return { gateway, front };
}

/** A person who answers after `afterMs`, or never: an unanswered question waits for its abort. */
const person = (afterMs?: number): Renderer => ({
  form: (_request, signal) =>
    new Promise((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      if (afterMs !== undefined)
        setTimeout(() => resolve({ action: 'accept', content: { name: 'Ada' } }), afterMs);
    }),
  url: async () => ({ action: 'decline' }),
});

/** A 2026-07-28 host with the tasks extension; resolves once the call's task waits for input. */
async function taskHost(front: Listening, renderer = person()) {
  const client = new Client({ name: 'host', version: '1' });
  closing.push(client);
  const elicit = attachElicitation(client, {
    renderer,
    tasks: { limits: { minPollMs: 100, defaultPollMs: 100 } },
  });
  client.setVersionNegotiation({ mode: { pin: '2026-07-28' } });
  await client.connect(new StreamableHTTPClientTransport(front.url));
  const stop = new AbortController();
  let waiting!: (state: TaskState) => void;
  const parked = new Promise<TaskState>((resolve) => {
    waiting = resolve;
  });
  const call = elicit.callTool(
    { name: 'ask', arguments: {} },
    {
      signal: stop.signal,
      onTask: (state) => {
        if (state.status === 'input_required') waiting(state);
      },
    },
  );
  call.catch(() => {});
  return { client, stop, call, task: await parked };
}

/** A 2025-11-25 host (plain SDK v1) that never answers; resolves once the question reached it. */
async function legacyHost(front: Listening) {
  const client = new V1Client(
    { name: 'v1-host', version: '1' },
    { capabilities: { elicitation: { form: {} } } },
  );
  let asked!: () => void;
  const reached = new Promise<void>((resolve) => {
    asked = resolve;
  });
  client.setRequestHandler(ElicitRequestSchema, (_req, extra) => {
    asked();
    return new Promise((_resolve, reject) =>
      extra.signal.addEventListener('abort', () => reject(extra.signal.reason)),
    );
  });
  const transport = new V1Http(front.url);
  await client.connect(transport);
  const stop = new AbortController();
  const call = client.callTool({ name: 'ask', arguments: {} }, undefined, {
    signal: stop.signal,
    timeout: HOUR,
  });
  call.catch(() => {});
  await reached;
  return { client, transport, stop };
}

/** The server's next cancellation, and how long after `from` it came. */
async function cancelledAfter(seen: Promise<{ at: number; reason: string }>, from: number) {
  const c = await seen;
  return { ms: c.at - from, reason: c.reason };
}

describe('a held call offered as a task', () => {
  it('is cancelled toward the server at once when its task is cancelled', async () => {
    const { gateway, front } = await gatewayWith();
    const { client, stop, call, task } = await taskHost(front);
    expect(gateway.heldCalls).toBe(1);
    const seen = server.nextCancel();
    const from = Date.now();
    stop.abort();
    await expect(call).rejects.toMatchObject({ code: 'ELICIT_TASK_CANCELLED' });
    const cancel = await cancelledAfter(seen, from);
    expect(cancel.ms).toBeLessThan(2000);
    expect(cancel.reason).toMatch(/held call was cancelled with its task \(tasks\/cancel\)/);
    expect(gateway.heldCalls).toBe(0);
    const read = await sdkTaskWire(client, 5000).get(task.taskId, new AbortController().signal);
    expect(read).toMatchObject({ status: 'cancelled' });
  });

  it('is cancelled toward the server when its task expires', async () => {
    const { gateway, front } = await gatewayWith({}, 1500);
    const seen = server.nextCancel();
    const from = Date.now();
    const { call } = await taskHost(front);
    const cancel = await cancelledAfter(seen, from);
    expect(cancel.ms).toBeGreaterThanOrEqual(1400);
    expect(cancel.ms).toBeLessThan(6000);
    expect(cancel.reason).toMatch(/ended when its task expired/);
    expect(gateway.heldCalls).toBe(0);
    await expect(call).rejects.toThrow(/Unknown task/);
  });

  it('is cancelled toward the server when another replica cancels its task', async () => {
    // Tasks in Redis (a prefix of this run's own). The other replica is another process: its
    // write reaches this one only through the store, read every tasks.watchEveryMs.
    const prefix = `elicit-test-${randomUUID()}:`;
    const store = await redisStore({ url: 'redis://127.0.0.1:6379', prefix });
    const elsewhere = await redisStore({ url: 'redis://127.0.0.1:6379', prefix });
    closing.push(store, elsewhere, {
      // This run's keys go with it.
      async close() {
        const redis = new Redis('redis://127.0.0.1:6379');
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        await redis.quit();
      },
    });
    const { gateway, front } = await gatewayWith({}, undefined, { store, watchEveryMs: 200 });
    const { call, task } = await taskHost(front);
    const seen = server.nextCancel();
    const from = Date.now();
    const stored = await elsewhere.get(taskKey(task.taskId));
    if (stored === undefined) throw new Error('the task is not in the store');
    const cancelled = {
      ...(stored.value as Record<string, Json>),
      status: 'cancelled',
      cancelRequested: true,
    };
    expect(await elsewhere.update(taskKey(task.taskId), stored.version, cancelled)).toBe(true);
    const cancel = await cancelledAfter(seen, from);
    expect(cancel.ms).toBeLessThan(3000);
    expect(cancel.reason).toMatch(/cancelled with its task/);
    expect(gateway.heldCalls).toBe(0);
    await expect(call).rejects.toMatchObject({ code: 'ELICIT_TASK_CANCELLED' });
  });

  it('lives as long as its task: a question answered after held.idleMs still completes', async () => {
    const { gateway, front } = await gatewayWith({ held: { idleMs: 200 } });
    const { call } = await taskHost(front, person(800));
    const r = (await call) as { content: { text: string }[] };
    expect(r.content[0]?.text).toBe('accept: Ada');
    expect(gateway.heldCalls).toBe(0);
  });
});

describe('a held call of a 2025 host', () => {
  it('is cancelled toward the server when the host cancels it', async () => {
    const { gateway, front } = await gatewayWith();
    const seen = server.nextCancel();
    const { stop } = await legacyHost(front);
    const from = Date.now();
    stop.abort();
    const cancel = await cancelledAfter(seen, from);
    expect(cancel.ms).toBeLessThan(2000);
    expect(cancel.reason).toMatch(/cancelled by the host/);
    expect(gateway.heldCalls).toBe(0);
  });

  it('is cancelled toward the server when the host hangs up', async () => {
    const { gateway, front } = await gatewayWith();
    const seen = server.nextCancel();
    const { transport } = await legacyHost(front);
    const from = Date.now();
    await transport.close();
    const cancel = await cancelledAfter(seen, from);
    expect(cancel.ms).toBeLessThan(2000);
    expect(cancel.reason).toMatch(/cancelled by the host/);
    expect(gateway.heldCalls).toBe(0);
  });

  it('is cancelled toward the server when the host ends its session', async () => {
    const { gateway, front } = await gatewayWith();
    const seen = server.nextCancel();
    const { transport } = await legacyHost(front);
    const from = Date.now();
    await transport.terminateSession();
    const cancel = await cancelledAfter(seen, from);
    expect(cancel.ms).toBeLessThan(2000);
    expect(cancel.reason).toMatch(/cancelled by the host/);
    expect(gateway.heldCalls).toBe(0);
  });
});
