/**
 * A task's step ran, and its result cannot be journaled because the store is full (a SQLite
 * database at its maxBytes): the task ends `failed` with -32603, data.code ELICIT_STORE_FULL and
 * the step's key, whatever the handler makes of the error, never `completed` with a tool error
 * a requester would retry. The step ran once; the store's own text stays out of the answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boolean, form } from '../../src/schema/index.ts';
import { createServer, httpEntry } from '../../src/server/index.ts';
import { sqliteStore } from '../../src/store/index.ts';
import { accept, rpc, until } from '../support/tasks.ts';

const dir = mkdtempSync(join(tmpdir(), 'elicit-task-full-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a task whose journal write finds the store full', () => {
  it('fails with ELICIT_STORE_FULL and the step, though the handler swallowed the error', async () => {
    const store = await sqliteStore({ path: join(dir, 'full.db'), maxBytes: 192 * 1024 });
    const runs: string[] = [];
    let handlerSaw: unknown;
    const app = createServer({ name: 'full', version: '1', store, onWarning: () => {} }).tool(
      'export',
      { task: 'optional' },
      async (_a, ask) => {
        const ok = await ask.form('confirm', form({ ok: boolean() }));
        if (ok.action !== 'accept') return 'no';
        try {
          // The side effect happens; its result is too big for what is left of the database.
          await ask.step('upload', () => {
            runs.push('upload');
            return 'x'.repeat(400_000);
          });
        } catch (error) {
          handlerSaw = error;
          return 'looks fine';
        }
        return 'uploaded';
      },
    );
    const entry = httpEntry(app);
    const created = await rpc(entry, 'tools/call', { name: 'export', arguments: {} });
    const id = String(created.result?.taskId);
    const parked = await until(entry, id, 'input_required');
    const [key] = Object.keys(parked.inputRequests ?? {});
    await rpc(entry, 'tasks/update', {
      taskId: id,
      inputResponses: { [String(key)]: accept({ ok: true }) },
    });
    const done = await until(entry, id, 'failed');
    expect(done.status).toBe('failed');
    expect(done.result).toBeUndefined();
    expect(done.error?.code).toBe(-32603);
    expect((done.error as { data?: unknown }).data).toEqual({
      code: 'ELICIT_STORE_FULL',
      step: 'upload',
    });
    expect(done.error?.message).toMatch(/ran.*may have taken effect/);
    expect(done.error?.message).not.toMatch(/SQLITE|disk|database or disk is full/i);
    expect(runs).toEqual(['upload']);
    expect((handlerSaw as { code?: string }).code).toBe('ELICIT_STORE_FULL');
    // Asked again, the task stays failed and the step does not run again.
    await new Promise((r) => setTimeout(r, 50));
    expect((await until(entry, id, 'failed')).status).toBe('failed');
    expect(runs).toEqual(['upload']);
    await store.close();
  });
});
