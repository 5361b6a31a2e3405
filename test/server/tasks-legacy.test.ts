/**
 * The experimental tasks of 2025-11-25 on our server, driven by hand by the plain SDK v2 client
 * (`client.request` with the SDK's own task schemas): task-augmented tools/call, tasks/get,
 * tasks/result with related-task `_meta`, the elicitation the task sends, status notifications,
 * tasks/list (the caller's only, paginated), tasks/cancel, the tool-level negotiation and every
 * bound; in memory and over Streamable HTTP.
 */
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import {
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskPayloadResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from '@modelcontextprotocol/core';
import { afterEach, describe, expect, it } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import {
  createServer,
  type ElicitServer,
  type ElicitServerOptions,
  httpEntry,
  type Listening,
  listen,
} from '../../src/server/index.ts';
import { rpcError } from '../support/kit.ts';

const RELATED = 'io.modelcontextprotocol/related-task';
const nameForm = form({ name: text() });

type Elicit = { message: string; _meta?: Record<string, unknown> };

function app(options: Partial<ElicitServerOptions> = {}): ElicitServer {
  return createServer({ name: 'tasks', version: '1', onWarning: () => {}, ...options })
    .tool('greet', { task: 'optional' }, async (_args, ask) => {
      const r = await ask.form('who', nameForm, { message: 'Your name?' });
      return r.action === 'accept' ? `hello ${r.content.name}` : `no (${r.action})`;
    })
    .tool('quick', { task: 'required' }, async () => 'done')
    .tool('where', { task: 'optional' }, async (_args, ask) =>
      (await ask.roots('roots')).roots.map((r) => r.uri).join(','),
    )
    .tool('big', { task: 'optional' }, async () => 'x'.repeat(4000))
    .tool('plain', {}, async () => 'plain');
}

interface Peer {
  readonly client: Client;
  readonly elicits: Elicit[];
  readonly statuses: { taskId: string; status: string }[];
  answer: (p: Elicit) => unknown;
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function peer(
  target: ElicitServer | Listening,
  more: Record<string, unknown> = {},
): Promise<Peer> {
  const client = new Client(
    { name: 'c', version: '1' },
    { capabilities: { elicitation: { form: {} }, ...more } },
  );
  const p: Peer = {
    client,
    elicits: [],
    statuses: [],
    answer: () => ({ action: 'accept', content: { name: 'Ada' } }),
  };
  client.setRequestHandler('elicitation/create', async (req) => {
    const params = req.params as unknown as Elicit;
    p.elicits.push(params);
    return p.answer(params) as never;
  });
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/tasks/status')
      p.statuses.push(n.params as unknown as { taskId: string; status: string });
  };
  if ('url' in target) {
    await client.connect(new StreamableHTTPClientTransport(target.url));
  } else {
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await target.build('legacy').connect(st);
    await client.connect(ct);
  }
  open.push(() => client.close());
  return p;
}

const callAsTask = (c: Client, name: string, ttl = 60_000) =>
  c.request(
    { method: 'tools/call', params: { name, arguments: {}, task: { ttl } } } as never,
    CreateTaskResultSchema,
  );
const get = (c: Client, taskId: string) =>
  c.request({ method: 'tasks/get', params: { taskId } } as never, GetTaskResultSchema);
const result = (c: Client, taskId: string) =>
  c.request({ method: 'tasks/result', params: { taskId } } as never, GetTaskPayloadResultSchema);
const list = (c: Client, cursor?: string) =>
  c.request(
    { method: 'tasks/list', params: cursor === undefined ? {} : { cursor } } as never,
    ListTasksResultSchema,
  );
const cancel = (c: Client, taskId: string) =>
  c.request({ method: 'tasks/cancel', params: { taskId } } as never, CancelTaskResultSchema);

async function until(c: Client, taskId: string, status: string) {
  for (;;) {
    const task = await get(c, taskId);
    if (task.status === status) return task;
    expect(['completed', 'failed', 'cancelled']).not.toContain(task.status);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('2025-11-25 tasks: negotiation', () => {
  it('declares the tasks capability and each tool’s taskSupport', async () => {
    const { client } = await peer(app());
    expect(client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(support).toEqual({
      greet: 'optional',
      where: 'optional',
      quick: 'required',
      big: 'optional',
      plain: undefined,
    });
  });

  it('has no tasks capability when no tool runs as a task', async () => {
    const plain = createServer({ name: 'p', version: '1' }).tool('t', {}, async () => 't');
    const { client } = await peer(plain);
    expect(client.getServerCapabilities()?.tasks).toBeUndefined();
  });

  it('answers -32601 for a required tool called plainly and a forbidden one called as a task', async () => {
    const { client } = await peer(app());
    const required = await rpcError(client.callTool({ name: 'quick', arguments: {} }));
    expect(required.code).toBe(-32601);
    expect(required.message).toMatch(/runs only as a task/);
    const forbidden = await rpcError(callAsTask(client, 'plain'));
    expect(forbidden.code).toBe(-32601);
    // An optional tool still runs plainly.
    const plain = await client.callTool({ name: 'greet', arguments: {} });
    expect(plain.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
  });
});

describe('2025-11-25 tasks: a task that asks a person (in memory)', () => {
  it('creates, parks in input_required, marks the elicitation, completes with related-task _meta', async () => {
    const p = await peer(app());
    let release!: () => void;
    const answered = new Promise<void>((r) => {
      release = r;
    });
    p.answer = async () => {
      await answered;
      return { action: 'accept', content: { name: 'Grace' } };
    };
    const created = await callAsTask(p.client, 'greet', 120_000);
    const { task } = created;
    expect(task.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(task.ttl).toBe(120_000);
    expect(task.pollInterval).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(task.createdAt))).toBe(false);
    expect(Number.isNaN(Date.parse(task.lastUpdatedAt))).toBe(false);
    const parked = await until(p.client, task.taskId, 'input_required');
    expect(parked.taskId).toBe(task.taskId);
    expect(p.elicits).toHaveLength(1);
    expect(p.elicits[0]?._meta?.[RELATED]).toEqual({ taskId: task.taskId });
    release();
    const out = await result(p.client, task.taskId);
    expect(out.content).toEqual([{ type: 'text', text: 'hello Grace' }]);
    expect(out._meta?.[RELATED]).toEqual({ taskId: task.taskId });
    const done = await get(p.client, task.taskId);
    expect(done.status).toBe('completed');
    // Status notifications followed every move, in order.
    const moves = p.statuses.filter((s) => s.taskId === task.taskId).map((s) => s.status);
    expect(moves).toEqual(['input_required', 'working', 'completed']);
  });

  it('tasks/result blocks until the task ends', async () => {
    const p = await peer(app());
    const { task } = await callAsTask(p.client, 'greet');
    const out = await result(p.client, task.taskId);
    expect(out.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
  });

  it('a declined ask ends as the handler says; the result of a tool error is completed', async () => {
    const p = await peer(app());
    p.answer = () => ({ action: 'decline' });
    const { task } = await callAsTask(p.client, 'greet');
    const out = await result(p.client, task.taskId);
    expect(out.content).toEqual([{ type: 'text', text: 'no (decline)' }]);
    expect((await get(p.client, task.taskId)).status).toBe('completed');
  });
});

describe('2025-11-25 tasks: over Streamable HTTP', () => {
  it('the elicitation rides the open tasks/result stream of the task', async () => {
    const server = await listen(httpEntry(app()));
    open.push(() => server.close());
    const p = await peer(server);
    const { task } = await callAsTask(p.client, 'greet');
    // The spec's requestor calls tasks/result at once (or on input_required) and waits there.
    const out = await result(p.client, task.taskId);
    expect(out.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect(out._meta?.[RELATED]).toEqual({ taskId: task.taskId });
    expect(p.elicits[0]?._meta?.[RELATED]).toEqual({ taskId: task.taskId });
  });

  it('a roots request from a task rides the tasks/result stream too, marked with the task', async () => {
    const server = await listen(httpEntry(app()));
    open.push(() => server.close());
    const p = await peer(server, { roots: {} });
    const asked: Record<string, unknown>[] = [];
    p.client.setRequestHandler('roots/list', async (req) => {
      asked.push((req.params?._meta ?? {}) as Record<string, unknown>);
      return { roots: [{ uri: 'file:///work' }] };
    });
    const { task } = await callAsTask(p.client, 'where');
    const out = await result(p.client, task.taskId);
    expect(out.content).toEqual([{ type: 'text', text: 'file:///work' }]);
    expect(asked[0]?.[RELATED]).toEqual({ taskId: task.taskId });
  });

  it('without a tasks/result, the elicitation goes to the standalone stream after channelWaitMs', async () => {
    const server = await listen(httpEntry(app({ tasks: { legacy: { channelWaitMs: 1 } } })));
    open.push(() => server.close());
    const p = await peer(server);
    const { task } = await callAsTask(p.client, 'greet');
    const done = await until(p.client, task.taskId, 'completed');
    expect(done.status).toBe('completed');
    expect(p.elicits).toHaveLength(1);
  });

  it('tasks/list shows the caller’s tasks only, page by page; another principal sees none', async () => {
    const server = await listen(
      httpEntry(
        app({
          tasks: { legacy: { listPageSize: 2 } },
          // One principal per session here, so two sessions are two callers.
          principal: (ctx) => ctx.sessionId,
        }),
      ),
    );
    open.push(() => server.close());
    const a = await peer(server);
    const b = await peer(server);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await callAsTask(a.client, 'quick')).task.taskId);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list(a.client, cursor);
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      seen.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual([...ids].sort());
    expect((await list(b.client)).tasks).toEqual([]);
    // Another caller's task is unknown to b, by every method.
    const [first] = ids;
    for (const call of [get, result, cancel]) {
      const error = await rpcError(call(b.client, first as string));
      expect(error.code).toBe(-32602);
    }
  });
});

describe('2025-11-25 tasks: cancel, errors and bounds', () => {
  it('cancels a parked task: cancelled, no result, a second cancel is refused', async () => {
    const p = await peer(app());
    p.answer = () => new Promise(() => {});
    const { task } = await callAsTask(p.client, 'greet');
    await until(p.client, task.taskId, 'input_required');
    const cancelled = await cancel(p.client, task.taskId);
    expect(cancelled.status).toBe('cancelled');
    expect((await get(p.client, task.taskId)).status).toBe('cancelled');
    const noResult = await rpcError(result(p.client, task.taskId));
    expect(noResult.code).toBe(-32602);
    expect(noResult.message).toMatch(/cancelled/);
    const again = await rpcError(cancel(p.client, task.taskId));
    expect(again.code).toBe(-32602);
    expect(again.message).toMatch(/already cancelled/);
  });

  it('answers -32602 for unknown ids and bad cursors', async () => {
    const { client } = await peer(app());
    for (const id of ['nope', 'A'.repeat(22), 'x'.repeat(10_000)]) {
      expect((await rpcError(get(client, id))).code).toBe(-32602);
      expect((await rpcError(result(client, id))).code).toBe(-32602);
      expect((await rpcError(cancel(client, id))).code).toBe(-32602);
    }
    for (const cursor of [
      'garbage',
      'x'.repeat(1000),
      Buffer.from('1.short').toString('base64url'),
    ])
      expect((await rpcError(list(client, cursor))).code).toBe(-32602);
  });

  it('caps the tasks running in one session (-32000 with data.code)', async () => {
    const p = await peer(app({ tasks: { legacy: { maxRunningPerSession: 1 } } }));
    p.answer = () => new Promise(() => {});
    const { task } = await callAsTask(p.client, 'greet');
    const refused = await rpcError(callAsTask(p.client, 'greet'));
    expect(refused.code).toBe(-32000);
    expect(refused.data).toMatchObject({ code: 'ELICIT_TASK_SESSION_LIMIT', limit: 1 });
    await cancel(p.client, task.taskId);
    // Once the first one ended, there is room again.
    await until(p.client, (await callAsTask(p.client, 'quick')).task.taskId, 'completed');
  });

  it('caps live tasks per principal (-32000 with data.code)', async () => {
    const p = await peer(app({ tasks: { limits: { maxLivePerPrincipal: 2 } } }));
    await callAsTask(p.client, 'quick');
    await callAsTask(p.client, 'quick');
    const refused = await rpcError(callAsTask(p.client, 'quick'));
    expect(refused.code).toBe(-32000);
    expect(refused.data).toMatchObject({ code: 'ELICIT_TASK_LIMIT' });
  });

  it('clamps the requested TTL to tasks.ttlMs', async () => {
    const p = await peer(app({ tasks: { limits: { ttlMs: 5000 } } }));
    const { task } = await callAsTask(p.client, 'quick', 10 ** 12);
    expect(task.ttl).toBe(5000);
  });

  it('a result past tasks.maxRecordBytes fails the task with the reason', async () => {
    const p = await peer(app({ tasks: { limits: { maxRecordBytes: 2000 } } }));
    const { task } = await callAsTask(p.client, 'big');
    const error = await rpcError(result(p.client, task.taskId));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/maxRecordBytes/);
    expect((await get(p.client, task.taskId)).status).toBe('failed');
  });
});

describe('2025-11-25 tasks: the process that runs a task dies', () => {
  it('SIGKILL while parked: the next process on the same SQLite file reports it failed', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const file = join(mkdtempSync(join(tmpdir(), 'elicit-legacy-tasks-')), 'tasks.db');
    const start = async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['test/fixtures/legacy-task-server.ts', file],
        stderr: 'ignore',
      });
      const client = new Client(
        { name: 'c', version: '1' },
        { capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler('elicitation/create', () => new Promise<never>(() => {}));
      await client.connect(transport);
      open.push(() => client.close());
      return { client, transport };
    };
    const first = await start();
    const { task } = await callAsTask(first.client, 'wait');
    await until(first.client, task.taskId, 'input_required');
    process.kill(first.transport.pid as number, 'SIGKILL');

    const second = await start();
    let status = (await get(second.client, task.taskId)).status;
    // Its lease lapses within tasks.leaseMs of the kill; until then it still reads as parked.
    while (status === 'input_required') {
      await new Promise((r) => setTimeout(r, 50));
      status = (await get(second.client, task.taskId)).status;
    }
    expect(status).toBe('failed');
    const error = await rpcError(result(second.client, task.taskId));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/process running this task stopped/);
    expect((await list(second.client)).tasks.map((t) => [t.taskId, t.status])).toEqual([
      [task.taskId, 'failed'],
    ]);
  });
});
