/**
 * Our client as a task receiver on 2025-11-25: a plain SDK v2 server sends a task-augmented
 * `elicitation/create` and drives the task by hand (tasks/get, tasks/result, tasks/list,
 * tasks/cancel); the form runs through the same pipeline (checks, renderer, validation) in the
 * background. Then our server and our client together, over Streamable HTTP.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import {
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  ElicitResultSchema,
  GetTaskPayloadResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from '@modelcontextprotocol/core';
import { McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  attachElicitation,
  type FormRequest,
  type FormResponse,
  type Renderer,
  scriptedRenderer,
} from '../../src/client/index.ts';
import { form, text } from '../../src/schema/index.ts';
import { createServer, httpEntry, listen } from '../../src/server/index.ts';
import { rpcError } from '../support/kit.ts';

const RELATED = 'io.modelcontextprotocol/related-task';
const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 2 } },
  required: ['name'],
};

/** A renderer whose forms wait until the test answers them. */
function heldRenderer() {
  const waiting: {
    request: FormRequest;
    signal: AbortSignal;
    answer: (r: FormResponse) => void;
  }[] = [];
  const arrived: (() => void)[] = [];
  const renderer: Renderer = {
    form: (request, signal) =>
      new Promise<FormResponse>((answer) => {
        waiting.push({ request, signal, answer });
        for (const wake of arrived.splice(0)) wake();
      }),
    url: async () => ({ action: 'decline' }),
  };
  const next = async () => {
    while (waiting.length === 0) await new Promise<void>((r) => arrived.push(r));
    return waiting.shift() as (typeof waiting)[number];
  };
  return { renderer, next };
}

type Send = ServerContext['mcpReq']['send'];

/** A plain SDK server: its `drive` tool hands the test its request context (to send from). */
async function plainServer(client: Client) {
  const mcp = new McpServer({ name: 'plain', version: '1' });
  let hand!: (send: Send) => void;
  const sender = new Promise<Send>((r) => {
    hand = r;
  });
  let finish!: () => void;
  const finished = new Promise<void>((r) => {
    finish = r;
  });
  mcp.registerTool('drive', {}, async (ctx) => {
    hand(ctx.mcpReq.send.bind(ctx.mcpReq));
    await finished;
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await mcp.connect(st);
  await client.connect(ct);
  const call = client.callTool({ name: 'drive', arguments: {} });
  const send = await sender;
  return {
    mcp,
    send: send as (r: unknown, schema: unknown, options?: unknown) => Promise<never>,
    async close() {
      finish();
      await call;
      await client.close();
    },
  };
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function setup(receiveTasks?: Parameters<typeof attachElicitation>[1]['receiveTasks']) {
  const held = heldRenderer();
  const client = new Client({ name: 'elicit', version: '1' });
  attachElicitation(client, { renderer: held.renderer, rateLimit: false, receiveTasks });
  const server = await plainServer(client);
  open.push(() => server.close());
  const { send } = server;
  const elicitAsTask = (ttl = 60_000) =>
    send(
      {
        method: 'elicitation/create',
        params: { mode: 'form', message: 'Your name?', requestedSchema: SCHEMA, task: { ttl } },
      },
      CreateTaskResultSchema,
    ) as Promise<{ task: { taskId: string; status: string; ttl: number | null } }>;
  const get = (taskId: string) =>
    send({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema) as Promise<{
      status: string;
    }>;
  const result = (taskId: string) =>
    send({ method: 'tasks/result', params: { taskId } }, GetTaskPayloadResultSchema) as Promise<
      Record<string, unknown>
    >;
  const list = (cursor?: string) =>
    send(
      { method: 'tasks/list', params: cursor === undefined ? {} : { cursor } },
      ListTasksResultSchema,
    ) as Promise<{ tasks: { taskId: string }[]; nextCursor?: string }>;
  const cancel = (taskId: string) =>
    send({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema) as Promise<{
      status: string;
    }>;
  return { ...held, server, elicitAsTask, get, result, list, cancel };
}

describe('our client answers task-augmented elicitation/create (plain SDK server)', () => {
  it('declares tasks.requests.elicitation.create, answers a CreateTaskResult, serves the task', async () => {
    const t = await setup();
    expect(t.server.mcp.server.getClientCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { elicitation: { create: {} } },
    });
    const { task } = await t.elicitAsTask(120_000);
    expect(task.status).toBe('working');
    expect(task.ttl).toBe(120_000);
    const form = await t.next();
    expect(form.request.message).toBe('Your name?');
    expect((await t.get(task.taskId)).status).toBe('working');
    const pending = t.result(task.taskId);
    // An invalid answer is re-asked by the pipeline, as for any form.
    form.answer({ action: 'accept', content: { name: 'A' } });
    const again = await t.next();
    expect(again.request.issues.length).toBeGreaterThan(0);
    again.answer({ action: 'accept', content: { name: 'Ada' } });
    const out = await pending;
    expect(ElicitResultSchema.parse(out)).toMatchObject({
      action: 'accept',
      content: { name: 'Ada' },
    });
    expect((out._meta as Record<string, unknown>)[RELATED]).toEqual({ taskId: task.taskId });
    expect((await t.get(task.taskId)).status).toBe('completed');
  });

  it('a plain elicitation/create still answers directly', async () => {
    const t = await setup();
    const direct = t.server.send(
      {
        method: 'elicitation/create',
        params: { mode: 'form', message: 'Now?', requestedSchema: SCHEMA },
      },
      ElicitResultSchema,
    );
    (await t.next()).answer({ action: 'decline' });
    expect(await direct).toEqual({ action: 'decline' });
  });

  it('tasks/cancel closes the form and the task is cancelled; again is refused', async () => {
    const t = await setup();
    const { task } = await t.elicitAsTask();
    const form = await t.next();
    expect((await t.cancel(task.taskId)).status).toBe('cancelled');
    expect(form.signal.aborted).toBe(true);
    expect((await t.get(task.taskId)).status).toBe('cancelled');
    expect((await rpcError(t.result(task.taskId))).code).toBe(-32602);
    expect((await rpcError(t.cancel(task.taskId))).message).toMatch(/already cancelled/);
  });

  it('a refused request fails the task with the refusal', async () => {
    const t = await setup();
    const { task } = (await t.server.send(
      {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Bad',
          requestedSchema: { type: 'object', properties: { a: { type: 'object' } } },
          task: {},
        },
      },
      CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    const error = await rpcError(t.result(task.taskId));
    expect(error.code).toBe(-32602);
    expect((await t.get(task.taskId)).status).toBe('failed');
  });

  it('lists its tasks page by page and answers -32602 for unknown ids and cursors', async () => {
    const t = await setup({ listPageSize: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await t.elicitAsTask()).task.taskId);
    const first = await t.list();
    expect(first.tasks.map((x) => x.taskId)).toEqual(ids.slice(0, 2));
    const second = await t.list(first.nextCursor);
    expect(second.tasks.map((x) => x.taskId)).toEqual(ids.slice(2));
    expect(second.nextCursor).toBeUndefined();
    expect((await rpcError(t.list('nope'))).code).toBe(-32602);
    for (const call of [t.get, t.result, t.cancel])
      expect((await rpcError(call('f'.repeat(32)))).code).toBe(-32602);
  });

  it('keeps at most receiveTasks.maxTasks (-32000 with data.code) and clamps the TTL', async () => {
    const t = await setup({ maxTasks: 1, ttlMs: 5000 });
    const { task } = await t.elicitAsTask(10 ** 9);
    expect(task.ttl).toBe(5000);
    const refused = await rpcError(t.elicitAsTask());
    expect(refused.code).toBe(-32000);
    expect(refused.data).toMatchObject({ code: 'ELICIT_CLIENT_TASK_LIMIT', limit: 1 });
  });

  it('with receiveTasks: false declares nothing', async () => {
    const client = new Client({ name: 'elicit', version: '1' });
    attachElicitation(client, { renderer: scriptedRenderer(), receiveTasks: false });
    const server = await plainServer(client);
    open.push(() => server.close());
    expect(server.mcp.server.getClientCapabilities()?.tasks).toBeUndefined();
  });
});

describe('elicit server ↔ elicit client on 2025-11-25', () => {
  it('a task tool asks through the client’s pipeline; the client follows the task by hand', async () => {
    const app = createServer({ name: 'tasks', version: '1' }).tool(
      'greet',
      { task: 'required' },
      async (_args, ask) => {
        const r = await ask.form('who', form({ name: text({ minLength: 2 }) }), {
          message: 'Your name?',
        });
        return r.action === 'accept' ? `hello ${r.content.name}` : `no (${r.action})`;
      },
    );
    const http = await listen(httpEntry(app));
    const held = heldRenderer();
    const client = new Client({ name: 'elicit', version: '1' });
    attachElicitation(client, { renderer: held.renderer, rateLimit: false });
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    await client.connect(new StreamableHTTPClientTransport(http.url));
    open.push(async () => {
      await client.close();
      await http.close();
    });
    const { task } = await client.request(
      { method: 'tools/call', params: { name: 'greet', arguments: {}, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const result = client.request(
      { method: 'tasks/result', params: { taskId: task.taskId } } as never,
      GetTaskPayloadResultSchema,
    );
    const asked = await held.next();
    expect(asked.request.message).toBe('Your name?');
    const parked = await client.request(
      { method: 'tasks/get', params: { taskId: task.taskId } } as never,
      GetTaskResultSchema,
    );
    expect(parked.status).toBe('input_required');
    asked.answer({ action: 'accept', content: { name: 'Grace' } });
    const out = await result;
    expect(out.content).toEqual([{ type: 'text', text: 'hello Grace' }]);
    expect((out._meta as Record<string, unknown>)[RELATED]).toEqual({ taskId: task.taskId });
  });
});
