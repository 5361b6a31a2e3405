/**
 * Tasks outlive their process (SQLite file and Redis): a server SIGKILLed while a task waits for
 * a person is started again on the same store and the answer completes the task; a server
 * SIGKILLed while a handler runs loses its lease, and the next tasks/get on the new process
 * takes the task over from its last journaled step (the step is not run again).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, stop } from '../support/processes.ts';
import { accept, resultText, rpc, until } from '../support/tasks.ts';

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) await stop(c, 'SIGKILL');
});

async function start(port: number, store: string): Promise<ChildProcess> {
  const child = await startProcess('test/fixtures/task-replica.ts', [String(port), store]);
  children.push(child);
  return child;
}

describe.each([
  ['sqlite', () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'elicit-task-restart-')), 't.db')}`],
  ['redis', () => `redis:elicit-task-restart-${process.pid}-${Date.now()}:`],
])('tasks across a restart (%s)', (_name, storeArg) => {
  it('a task parked for input completes on the restarted server', async () => {
    const port = await freePort();
    const store = storeArg();
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const first = await start(port, store);
    const created = await rpc(url, 'tools/call', { name: 'job', arguments: {} });
    const id = String(created.result?.taskId);
    const parked = await until(url, id, 'input_required');
    const [key] = Object.keys(parked.inputRequests ?? {});

    await stop(first, 'SIGKILL');
    const second = await start(port, store);
    const again = await until(url, id, 'input_required');
    expect(Object.keys(again.inputRequests ?? {})).toEqual([key]);
    const ack = await rpc(url, 'tasks/update', {
      taskId: id,
      inputResponses: { [String(key)]: accept({ go: true }) },
    });
    expect(ack.result?.resultType).toBe('complete');
    const done = await until(url, id, 'completed');
    expect(resultText(done)).toBe(`started:${first.pid} finished:${second.pid} go:yes`);
    await stop(second);
  }, 60_000);

  it('a task whose process died while running is taken over from its journal', async () => {
    const port = await freePort();
    const store = storeArg();
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const first = await start(port, store);
    const id = String(
      (await rpc(url, 'tools/call', { name: 'spin', arguments: {} })).result?.taskId,
    );
    // Wait until the step is journaled (its progress message shows in tasks/get).
    for (let i = 0; ; i++) {
      const r = await rpc(url, 'tasks/get', { taskId: id });
      if (String(r.result?.statusMessage ?? '').startsWith('stepped')) break;
      if (i > 500) throw new Error('the step was never journaled');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await stop(first, 'SIGKILL');
    const second = await start(port, store);
    const done = await until(url, id, 'completed', { tries: 2000 });
    expect(done.status).toBe('completed');
    expect(resultText(done)).toBe(`started:${first.pid} finished:${second.pid}`);
    await stop(second);
  }, 60_000);
});
