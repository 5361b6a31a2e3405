/**
 * Two replicas behind a round-robin proxy share tasks through one store (Redis, and a SQLite
 * file both processes open): 100 tasks created, polled and answered through the proxy, so
 * requests for one task land on both replicas and the answer often on the replica that did not
 * start it; every task completes exactly once, its step run once.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, stop } from '../support/processes.ts';
import { startProxy } from '../support/proxy.ts';
import { accept, resultText, rpc, until } from '../support/tasks.ts';

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) await stop(c, 'SIGKILL');
});

const TASKS = 100;

describe.each([
  ['redis', () => `redis:elicit-task-replicas-${process.pid}-${Date.now()}:`],
  ['sqlite', () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'elicit-task-replicas-')), 't.db')}`],
])('tasks on two replicas (%s)', (_name, storeArg) => {
  it(`${TASKS} tasks complete whichever replica each request lands on`, async () => {
    const store = storeArg();
    const ports = [await freePort(), await freePort()];
    const replicas = await Promise.all(
      ports.map((p) => startProcess('test/fixtures/task-replica.ts', [String(p), store])),
    );
    children.push(...replicas);
    const proxy = await startProxy(ports);
    const url = new URL(`http://127.0.0.1:${proxy.port}/mcp`);
    try {
      const one = async () => {
        const id = String(
          (await rpc(url, 'tools/call', { name: 'job', arguments: {} })).result?.taskId,
        );
        const parked = await until(url, id, 'input_required');
        const [key] = Object.keys(parked.inputRequests ?? {});
        await rpc(url, 'tasks/update', {
          taskId: id,
          inputResponses: { [String(key)]: accept({ go: true }) },
        });
        return resultText(await until(url, id, 'completed'));
      };
      const results: string[] = [];
      // Ten at a time, so both replicas serve interleaved requests for many tasks.
      for (let i = 0; i < TASKS; i += 10)
        results.push(...(await Promise.all(Array.from({ length: 10 }, one))));
      const pids = new Set(replicas.map((r) => String(r.pid)));
      let moved = 0;
      for (const text of results) {
        const m = /^started:(\d+) finished:(\d+) go:yes$/.exec(text);
        expect(m, text).not.toBeNull();
        expect(pids.has(String(m?.[1])) && pids.has(String(m?.[2]))).toBe(true);
        if (m?.[1] !== m?.[2]) moved++;
      }
      expect(results).toHaveLength(TASKS);
      // The answer resumed the task on the other replica for a good share of them.
      expect(moved).toBeGreaterThan(0);
      expect(proxy.hits.every((h) => h > TASKS)).toBe(true);
    } finally {
      await proxy.close();
      for (const r of replicas) await stop(r);
    }
  }, 120_000);
});
