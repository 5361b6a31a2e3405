/**
 * What a `tasks/update` costs the SQLite store's disk, counted: the answer is acked after one
 * flush of the log (and not before it ends), the handler resumes without another, and answers
 * sent one after another share each flush with the result the previous answer's handler wrote,
 * so a run of answers costs one flush each (and one more for the last result). The real `fsync`
 * runs; it is only counted.
 */
import fs, { mkdtempSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boolean, form } from '../../src/schema/index.ts';
import { createServer, httpEntry } from '../../src/server/index.ts';
import { type Store, sqliteStore } from '../../src/store/index.ts';
import { accept, rpc, until } from '../support/tasks.ts';

const flushes = { started: 0, ended: 0 };
const realFsync = fs.fsync;
beforeAll(() => {
  fs.fsync = ((fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
    flushes.started++;
    realFsync(fd, (error) => {
      flushes.ended++;
      done(error);
    });
  }) as typeof fs.fsync;
  syncBuiltinESMExports();
});
afterAll(() => {
  fs.fsync = realFsync;
  syncBuiltinESMExports();
});

describe('tasks/update on SQLite: flushes of the log', () => {
  let store: Store;
  let resumed: number[] = [];
  const app = () =>
    createServer({ name: 'flush', version: '1', tasks: { store } }).tool(
      'job',
      { task: 'optional' },
      async (_args, ask) => {
        const r = await ask.form('go', form({ go: boolean() }));
        resumed.push(flushes.started);
        return r.action;
      },
    );
  beforeAll(async () => {
    store = await sqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'elicit-flush-')), 't.db') });
  });
  afterAll(() => store.close());

  const park = async (entry: ReturnType<typeof httpEntry>) => {
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'job', arguments: {} })).result?.taskId,
    );
    const task = await until(entry, id, 'input_required');
    return { id, key: String(Object.keys(task.inputRequests ?? {})[0]) };
  };
  const settle = () => new Promise((r) => setTimeout(r, 30));

  it('one answer: acked after one flush has ended, resumed without another', async () => {
    const entry = httpEntry(app());
    const { id, key } = await park(entry);
    await settle();
    resumed = [];
    const before = { ...flushes };
    const ack = await rpc(entry, 'tasks/update', {
      taskId: id,
      inputResponses: { [key]: accept({ go: true }) },
    });
    expect(ack.result?.resultType).toBe('complete');
    expect(flushes.started - before.started).toBe(1);
    expect(flushes.ended - before.ended).toBe(1);
    await until(entry, id, 'completed');
    expect(resumed.map((n) => n - before.started)).toEqual([1]);
    // The result the handler wrote is on disk before tasks/get reports it: its own flush.
    expect(flushes.ended - before.ended).toBe(2);
    await entry.close();
  });

  it('answers one after another: one flush each, the results sharing them', async () => {
    const entry = httpEntry(app());
    const parked = [];
    for (let i = 0; i < 8; i++) parked.push(await park(entry));
    await settle();
    const before = flushes.started;
    for (const { id, key } of parked)
      await rpc(entry, 'tasks/update', {
        taskId: id,
        inputResponses: { [key]: accept({ go: true }) },
      });
    await until(entry, (parked.at(-1) as { id: string }).id, 'completed');
    expect(flushes.started - before).toBe(parked.length + 1);
    await entry.close();
  });
});
