/**
 * A plain SDK v2 client (`@modelcontextprotocol/client`, pinned to 2026-07-28, declaring the
 * tasks extension) drives a task by hand over HTTP: tasks/get shows the pending request,
 * tasks/update answers it, tasks/get inlines the result. The SDK's Client refuses a
 * CreateTaskResult as the answer to tools/call (UnsupportedResultType: it has no tasks runtime),
 * so the call that creates the task goes through the SDK's own HTTP transport as a raw message.
 */
import {
  Client,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { boolean, form } from '../../src/schema/index.ts';
import { createServer, httpEntry, type Listening, listen } from '../../src/server/index.ts';
import { memoryStore } from '../../src/store/index.ts';
import { TASKS } from '../support/tasks.ts';

/** The SDK's request() takes a result schema; the test reads the raw result. */
const RAW = {
  '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) },
} as const;

type Task = {
  resultType?: string;
  taskId?: string;
  status?: string;
  inputRequests?: Record<string, { method: string; params: { message: string } }>;
  result?: { content: { text: string }[] };
};

let http: Listening;
let client: Client;
beforeAll(async () => {
  const app = createServer({ name: 'interop', version: '1', tasks: { store: memoryStore() } }).tool(
    'deploy',
    { task: 'optional' },
    async (_args, ask) => {
      const r = await ask.form('sure', form({ sure: boolean({ title: 'Deploy now?' }) }));
      return r.action === 'accept' && r.content.sure ? 'deployed' : 'held';
    },
  );
  http = await listen(httpEntry(app));
  client = new Client(
    { name: 'plain', version: '1' },
    {
      capabilities: { elicitation: { form: {} }, extensions: { [TASKS]: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(http.url));
});
afterAll(async () => {
  await client?.close();
  await http?.close();
});

const get = (taskId: string) =>
  client.request({ method: 'tasks/get', params: { taskId } }, RAW) as Promise<Task>;

async function until(taskId: string, status: string): Promise<Task> {
  for (let i = 0; i < 500; i++) {
    const t = await get(taskId);
    if (t.status === status) return t;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never ${status}`);
}

/** tools/call as one raw message on the SDK's transport (the Client would refuse the result). */
async function createTask(): Promise<Task> {
  const transport = new StreamableHTTPClientTransport(http.url);
  const reply = new Promise<JSONRPCMessage>((resolve) => {
    transport.onmessage = resolve;
  });
  await transport.start();
  transport.setProtocolVersion?.('2026-07-28');
  await transport.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'deploy',
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'plain', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {
          elicitation: { form: {} },
          extensions: { [TASKS]: {} },
        },
      },
    },
  });
  const message = (await reply) as { result?: Task };
  await transport.close();
  return message.result ?? {};
}

it("the SDK's Client refuses a CreateTaskResult from tools/call", async () => {
  await expect(
    client.request({ method: 'tools/call', params: { name: 'deploy', arguments: {} } }, RAW),
  ).rejects.toThrow(/Unsupported result type 'task'/);
});

it('a plain SDK client drives a task through tasks/get and tasks/update', async () => {
  const created = await createTask();
  expect(created.resultType).toBe('task');
  const id = String(created.taskId);
  const parked = await until(id, 'input_required');
  const [key, request] = Object.entries(parked.inputRequests ?? {})[0] ?? [];
  expect(request?.method).toBe('elicitation/create');
  const ack = (await client.request(
    {
      method: 'tasks/update',
      params: {
        taskId: id,
        inputResponses: { [String(key)]: { action: 'accept', content: { sure: true } } },
      },
    },
    RAW,
  )) as Task;
  // The Client hands back a complete result without its resultType: an empty ack.
  expect(Object.keys(ack).filter((k) => k !== '_meta')).toEqual([]);
  const done = await until(id, 'completed');
  expect(done.result?.content[0]?.text).toBe('deployed');
  const cancel = (await client.request(
    { method: 'tasks/cancel', params: { taskId: id } },
    RAW,
  )) as Task;
  expect(Object.keys(cancel).filter((k) => k !== '_meta')).toEqual([]);
  expect((await get(id)).status).toBe('completed');
});
