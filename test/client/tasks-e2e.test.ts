/**
 * elicit/client following tasks served by elicit's own server (the conformance server's task
 * tools, over HTTP on 2026-07-28): questions asked once and answered through tasks/update,
 * several at once, tool and protocol errors, rounds of the call before the task, and cancel.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { app } from '../../examples/conformance-server/server.ts';
import {
  attachElicitation,
  type ElicitClient,
  TaskCancelled,
  TaskFailed,
  type TaskState,
} from '../../src/client/index.ts';
import { scriptedRenderer } from '../../src/client/scripted.ts';
import type { FormRequest, Renderer } from '../../src/client/types.ts';
import { MODERN_REVISION } from '../../src/kernel/revision.ts';
import { httpEntry, type Listening, listen } from '../../src/server/index.ts';

let http: Listening;
beforeAll(async () => {
  http = await listen(httpEntry(app));
});
afterAll(async () => {
  await http.close();
});

async function connect(answer: (request: FormRequest) => Record<string, unknown>) {
  const asked: string[] = [];
  const renderer: Renderer = {
    ...scriptedRenderer({}),
    form: async (request) => {
      asked.push(request.message);
      return { action: 'accept', content: answer(request) };
    },
  };
  const client = new Client({ name: 'e2e', version: '1' });
  const elicit: ElicitClient = attachElicitation(client, {
    renderer,
    rateLimit: false,
    tasks: { limits: { minPollMs: 20 } },
  });
  client.setVersionNegotiation({ mode: { pin: MODERN_REVISION } });
  await client.connect(new StreamableHTTPClientTransport(http.url));
  return { client, elicit, asked };
}

const textOf = (r: { content?: unknown }) =>
  (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

describe("following tasks on elicit's own server", () => {
  it('a sync tool stays sync; a task tool is followed to its inlined result', async () => {
    const { client, elicit } = await connect(() => ({}));
    const states: TaskState[] = [];
    expect(textOf(await elicit.callTool({ name: 'greet', arguments: { name: 'Ada' } }))).toBe(
      'Hello, Ada!',
    );
    const r = await elicit.callTool(
      { name: 'slow_compute', arguments: { seconds: 0.2, label: 'sum' } },
      { onTask: (s) => states.push(s) },
    );
    expect(textOf(r)).toBe('Computed sum after 0.2s');
    expect(states[0]?.taskId).toBeTruthy();
    expect(states.at(-1)?.status).toBe('completed');
    await client.close();
  });

  it("asks the task's question once and the handler goes on with the answer", async () => {
    const { client, elicit, asked } = await connect(() => ({ confirm: true }));
    const r = await elicit.callTool({ name: 'confirm_delete', arguments: { filename: 'a.txt' } });
    expect(textOf(r)).toBe('Deleted a.txt');
    expect(asked).toEqual(['Delete a.txt?']);
    await client.close();
  });

  it('two questions at once, each asked once and answered on its own', async () => {
    const { client, elicit, asked } = await connect(() => ({ name: 'n', confirm: true }));
    const r = await elicit.callTool({ name: 'multi_input', arguments: {} });
    expect(textOf(r)).toBe('first=accept, second=accept');
    expect([...asked].sort()).toEqual(['First?', 'Second?']);
    await client.close();
  });

  it('a tool error completes with isError; a protocol error fails the task', async () => {
    const { client, elicit } = await connect(() => ({}));
    const r = await elicit.callTool({ name: 'failing_job', arguments: {} });
    expect(r.isError).toBe(true);
    const error = await elicit
      .callTool({ name: 'protocol_error_job', arguments: {} })
      .catch((e) => e);
    expect(error).toBeInstanceOf(TaskFailed);
    expect(error.error.message).toContain('The job broke down');
    await client.close();
  });

  it('rounds of the call before the task, then the task', async () => {
    const { client, elicit, asked } = await connect(() => ({ name: 'Grace' }));
    const r = await elicit.callTool({ name: 'test_tool_with_task', arguments: {} });
    expect(textOf(r)).toBe('Hello, Grace!');
    expect(asked).toEqual(['What is your name?']);
    await client.close();
  });

  it('aborting sends tasks/cancel: the task settles to cancelled on the server', async () => {
    const { client, elicit } = await connect(() => ({}));
    const controller = new AbortController();
    let taskId = '';
    const error = await elicit
      .callTool(
        { name: 'slow_compute', arguments: { seconds: 30 } },
        {
          signal: controller.signal,
          onTask: (s) => {
            taskId = s.taskId;
            controller.abort();
          },
        },
      )
      .catch((e) => e);
    expect(error).toBeInstanceOf(TaskCancelled);
    // Followed again by id, the task is cancelled.
    const again = await elicit.resumeTask(taskId).catch((e) => e);
    expect(again).toBeInstanceOf(TaskCancelled);
    expect(again.message).toBe('The server cancelled the task.');
    await client.close();
  });
});
