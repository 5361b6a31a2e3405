/**
 * elicit/client follows tasks (2026-07-28, io.modelcontextprotocol/tasks) against a fixture
 * server on the plain SDK v2 Server over HTTP: polling, questions rendered once across polls,
 * partial answers, failed and cancelled tasks, cancel by signal, and bounds on hostile servers.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attachElicitation,
  type ElicitClient,
  TaskCancelled,
  TaskFailed,
  TaskRefused,
  type TaskState,
  TaskTimeout,
} from '../../src/client/index.ts';
import { scriptedRenderer } from '../../src/client/scripted.ts';
import type { FormRequest, Renderer } from '../../src/client/types.ts';
import { MODERN_REVISION } from '../../src/kernel/revision.ts';
import { startTaskServer, type TaskServer } from '../support/task-server.ts';

let server: TaskServer;
beforeAll(async () => {
  server = await startTaskServer();
});
afterAll(async () => {
  await server.close();
});

interface Setup {
  client: Client;
  elicit: ElicitClient;
  asked: string[];
  close(): Promise<void>;
}

async function connect(
  options: { tasks?: boolean | { limits?: Record<string, number> }; renderer?: Renderer } = {},
): Promise<Setup> {
  const asked: string[] = [];
  const base = scriptedRenderer({ policy: 'accept-defaults' });
  const renderer: Renderer = options.renderer ?? {
    ...base,
    form: (request: FormRequest) => {
      asked.push(request.message);
      return Promise.resolve({
        action: 'accept',
        content: Object.fromEntries(request.schema.fields.map((f) => [f.name, true])),
      });
    },
  };
  const client = new Client({ name: 't', version: '1' });
  const elicit = attachElicitation(client, {
    renderer,
    rateLimit: false,
    tasks: options.tasks ?? { limits: { minPollMs: 1, defaultPollMs: 1 } },
  });
  client.setVersionNegotiation({ mode: { pin: MODERN_REVISION } });
  await client.connect(new StreamableHTTPClientTransport(server.url));
  return { client, elicit, asked, close: () => client.close() };
}

const textOf = (result: { content?: unknown }) =>
  (result.content as { text?: string }[]).map((c) => c.text).join('');
const calls = (method: string, taskId?: string) =>
  server.log.filter(
    (e) => e.method === method && (taskId === undefined || e.params.taskId === taskId),
  );

describe('declaring the extension', () => {
  it('sends io.modelcontextprotocol/tasks with every request when tasks are on', async () => {
    const on = await connect();
    expect(textOf(await on.elicit.callTool({ name: 'probe', arguments: {} }))).toBe(
      'tasks declared',
    );
    await on.close();
    const off = await connect({ tasks: false });
    expect(textOf(await off.elicit.callTool({ name: 'probe', arguments: {} }))).toBe('no tasks');
    // Without the extension the server runs task tools synchronously.
    expect(textOf(await off.elicit.callTool({ name: 'slow', arguments: {} }))).toBe(
      'slow ran without a task',
    );
    await off.close();
  });
});

describe('following a task', () => {
  it('polls tasks/get until completed and returns the inlined result, reporting each status', async () => {
    const s = await connect();
    const states: TaskState[] = [];
    const result = await s.elicit.callTool(
      { name: 'slow', arguments: { steps: 3 } },
      { onTask: (state) => states.push(state) },
    );
    expect(textOf(result)).toBe('done after 3 steps');
    const taskId = states[0]?.taskId as string;
    expect(taskId).toMatch(/^task-\d+-slow$/);
    expect(states.map((x) => x.statusMessage).filter(Boolean)).toEqual([
      'step 1 of 3',
      'step 2 of 3',
      'step 3 of 3',
      'step 3 of 3',
    ]);
    expect(states.at(-1)?.status).toBe('completed');
    expect(calls('tasks/get', taskId)).toHaveLength(4);
    await s.close();
  });

  it('shows a question through the pipeline and answers it with tasks/update', async () => {
    const s = await connect();
    let taskId = '';
    const result = await s.elicit.callTool(
      { name: 'confirm', arguments: {} },
      { onTask: (state) => (taskId = state.taskId) },
    );
    expect(s.asked).toEqual(['Delete the file?']);
    expect(textOf(result)).toBe('answer: {"action":"accept","content":{"confirm":true}}');
    expect(calls('tasks/update', taskId).map((e) => e.params.inputResponses)).toEqual([
      { c1: { action: 'accept', content: { confirm: true } } },
    ]);
    await s.close();
  });

  it('answers two questions one at a time (partial updates)', async () => {
    const s = await connect();
    let taskId = '';
    const result = await s.elicit.callTool(
      { name: 'two_questions', arguments: {} },
      { onTask: (state) => (taskId = state.taskId) },
    );
    expect(s.asked).toEqual(['First?', 'Second?']);
    expect(
      calls('tasks/update', taskId).map((e) => Object.keys(e.params.inputResponses as object)),
    ).toEqual([['a'], ['b']]);
    expect(textOf(result)).toContain('"second":true');
    await s.close();
  });

  it('never shows a question twice, even when the server presents it again', async () => {
    const s = await connect();
    let taskId = '';
    const result = await s.elicit.callTool(
      { name: 'represent', arguments: {} },
      { onTask: (state) => (taskId = state.taskId) },
    );
    expect(s.asked).toEqual(['Once?', 'Then this?']);
    expect(calls('tasks/update', taskId)).toHaveLength(2);
    expect(textOf(result)).toContain('r2');
    await s.close();
  });

  it('a tool error completes with isError', async () => {
    const s = await connect();
    const result = await s.elicit.callTool({ name: 'tool_error', arguments: {} });
    expect(result.isError).toBe(true);
    await s.close();
  });

  it('a failed task rejects with TaskFailed carrying the inlined error, made inert', async () => {
    const s = await connect();
    const error = await s.elicit.callTool({ name: 'failing', arguments: {} }).catch((e) => e);
    expect(error).toBeInstanceOf(TaskFailed);
    expect(error.code).toBe('ELICIT_TASK_FAILED');
    expect(error.error.code).toBe(-32603);
    expect(error.error.message).toBe('disk full⟨ESC[31m⟩');
    await s.close();
  });

  it('a task the server cancels rejects with TaskCancelled', async () => {
    const s = await connect();
    const error = await s.elicit
      .callTool({ name: 'server_cancels', arguments: {} })
      .catch((e) => e);
    expect(error).toBeInstanceOf(TaskCancelled);
    await s.close();
  });

  it('aborting the signal sends tasks/cancel', async () => {
    const s = await connect();
    const controller = new AbortController();
    let taskId = '';
    const error = await s.elicit
      .callTool(
        { name: 'endless', arguments: {} },
        {
          signal: controller.signal,
          onTask: (state) => {
            taskId = state.taskId;
            if (state.polls === 3) controller.abort();
          },
        },
      )
      .catch((e) => e);
    expect(error).toBeInstanceOf(TaskCancelled);
    expect(calls('tasks/cancel', taskId)).toHaveLength(1);
    expect(server.tasks.get(taskId)?.status).toBe('cancelled');
    await s.close();
  });

  it('aborting while a question is open cancels the question and the task', async () => {
    const controller = new AbortController();
    const renderer: Renderer = {
      ...scriptedRenderer({}),
      form: (_request, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true });
          controller.abort();
        }),
    };
    const s = await connect({ renderer });
    let taskId = '';
    const error = await s.elicit
      .callTool(
        { name: 'confirm', arguments: {} },
        { signal: controller.signal, onTask: (state) => (taskId = state.taskId) },
      )
      .catch((e) => e);
    expect(error).toBeInstanceOf(TaskCancelled);
    expect(calls('tasks/update', taskId)).toHaveLength(0);
    expect(calls('tasks/cancel', taskId)).toHaveLength(1);
    await s.close();
  });

  it('keeps polling while a question is open, and closes a question the server withdraws', async () => {
    const during: string[] = [];
    let closedByTask = false;
    let polling = false;
    const renderer: Renderer = {
      ...scriptedRenderer({}),
      form: (_request, signal) =>
        new Promise((resolve) => {
          polling = true;
          signal.addEventListener(
            'abort',
            () => {
              closedByTask = true;
              resolve({ action: 'cancel' });
            },
            { once: true },
          );
        }),
    };
    const s = await connect({ renderer });
    let taskId = '';
    const result = await s.elicit.callTool(
      { name: 'withdraw', arguments: {} },
      {
        onTask: (state) => {
          taskId = state.taskId;
          if (polling) during.push(state.status);
        },
      },
    );
    expect(closedByTask).toBe(true);
    expect(during.length).toBeGreaterThan(0);
    expect(textOf(result)).toBe('finished with answers {}');
    expect(calls('tasks/update', taskId)).toHaveLength(0);
    await s.close();
  });

  it('resumeTask picks a task up again by id', async () => {
    const s = await connect();
    // A task this client stopped following (as a dropped connection would): the plain SDK call
    // cannot read the CreateTaskResult, but the server created the task.
    await s.client.callTool({ name: 'slow', arguments: { steps: 2 } }).catch(() => {});
    const slow = [...server.tasks.values()].find((t) => t.tool === 'slow' && t.step === 0);
    expect(slow).toBeDefined();
    const result = await s.elicit.resumeTask(slow?.taskId as string);
    expect(textOf(result)).toBe('done after 2 steps');
    await s.close();
  });
});

describe('bounds on hostile servers', () => {
  it('too many questions at once: refused and cancelled, nothing shown', async () => {
    const s = await connect();
    let taskId = '';
    const error = await s.elicit
      .callTool({ name: 'flood', arguments: {} }, { onTask: (x) => (taskId = x.taskId) })
      .catch((e) => e);
    expect(error).toBeInstanceOf(TaskRefused);
    expect(error.message).toContain('limits.maxInputRequests');
    expect(s.asked).toEqual([]);
    expect(calls('tasks/cancel', taskId)).toHaveLength(1);
    await s.close();
  });

  it('endless work: stopped after limits.maxPolls and cancelled', async () => {
    const s = await connect({ tasks: { limits: { minPollMs: 1, maxPolls: 5 } } });
    let taskId = '';
    const error = await s.elicit
      .callTool({ name: 'endless', arguments: {} }, { onTask: (x) => (taskId = x.taskId) })
      .catch((e) => e);
    expect(error).toBeInstanceOf(TaskTimeout);
    expect(calls('tasks/get', taskId)).toHaveLength(5);
    expect(calls('tasks/cancel', taskId)).toHaveLength(1);
    await s.close();
  });

  it('a huge task id is refused before anything is sent about it', async () => {
    const s = await connect();
    const error = await s.elicit.callTool({ name: 'long_id', arguments: {} }).catch((e) => e);
    expect(error).toBeInstanceOf(TaskRefused);
    expect(error.message).toContain('limits.maxTaskIdLength');
    expect(server.log.filter((e) => String(e.params.taskId ?? '').length > 256)).toEqual([]);
    await s.close();
  });

  it('status messages are made inert and cut to limits.maxStatusChars', async () => {
    const s = await connect();
    const messages: string[] = [];
    await s.elicit.callTool(
      { name: 'noisy', arguments: {} },
      { onTask: (x) => x.statusMessage !== undefined && messages.push(x.statusMessage) },
    );
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) {
      expect(m.startsWith('⟨ESC[2J⟩⟨ESC[H⟩x')).toBe(true);
      expect(m).not.toContain('\u001b');
      expect(m.length).toBeLessThan(260);
      expect(m).toMatch(/more characters hidden\)$/);
    }
    await s.close();
  });

  it('a question for a method this client does not serve stops the task', async () => {
    const s = await connect();
    let taskId = '';
    const error = await s.elicit
      .callTool({ name: 'sampling', arguments: {} }, { onTask: (x) => (taskId = x.taskId) })
      .catch((e) => e);
    expect(error).toBeInstanceOf(TaskRefused);
    expect(error.message).toContain('sampling/createMessage');
    expect(calls('tasks/cancel', taskId)).toHaveLength(1);
    await s.close();
  });
});

describe('elicit host, non-interactive', () => {
  it('follows a task, answers its question from --answers, prints the result', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'elicit-tasks-')), 'answers.json');
    writeFileSync(
      file,
      JSON.stringify({
        answers: [{ match: 'Delete', action: 'accept', content: { confirm: false } }],
      }),
    );
    const run = (name: string) =>
      new Promise<{ code: number; out: string }>((resolve) => {
        execFile(
          process.execPath,
          [
            'src/cli/main.ts',
            'host',
            server.url.href,
            '--era',
            'modern',
            '--call',
            name,
            '--answers',
            file,
          ],
          { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 },
          (error, stdout) =>
            resolve({ code: error === null ? 0 : Number(error.code ?? 1), out: stdout }),
        );
      });
    const ok = await run('confirm');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/Calling confirm: running as task task-\d+-confirm/);
    expect(ok.out).toContain('Delete the file?');
    expect(ok.out).toContain('◀ answer: {"action":"accept","content":{"confirm":false}}');
    const failed = await run('failing');
    expect(failed.code).toBe(1);
    expect(failed.out).toContain('The task failed on the server: disk full');
  });
});
