/**
 * What a `tasks/update` costs the store, counted.
 * - SQLite, flushes of the log: the handler resumes as soon as the answer is committed, its
 *   result joins the answer's flush, and the answer is acked once that one flush has ended:
 *   one flush per answer, none left under way when the ack goes out (so the next answer never
 *   waits for the previous result's flush), and a step waits until the answer is on disk. The
 *   real `fsync` runs; it is only counted. The server that took an answer goes back to the
 *   pool once the run it resumed has ended, so answers in a row build no server each.
 * - Redis, round trips (MONITOR on a redis-server of the test's own): update→resumed is two
 *   (the read and the compare-and-set script), and the resumed handler's result one more (it
 *   starts from the record just written, so it reads nothing).
 */
import fs, { mkdtempSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boolean, form } from '../../src/schema/index.ts';
import { createServer, httpEntry } from '../../src/server/index.ts';
import { redisStore, type Store, sqliteStore } from '../../src/store/index.ts';
import { ownRedis } from '../support/redis-server.ts';
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

/** A server whose one tool asks one question, calling `resumed` once it has the answer. */
const job = (store: Store, resumed: () => void) =>
  createServer({ name: 'cost', version: '1', tasks: { store } }).tool(
    'job',
    { task: 'optional' },
    async (_args, ask) => {
      const r = await ask.form('go', form({ go: boolean() }));
      resumed();
      return r.action;
    },
  );

const park = async (entry: ReturnType<typeof httpEntry>) => {
  const id = String(
    (await rpc(entry, 'tools/call', { name: 'job', arguments: {} })).result?.taskId,
  );
  const task = await until(entry, id, 'input_required');
  return { id, key: String(Object.keys(task.inputRequests ?? {})[0]) };
};
const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms));

describe('tasks/update on SQLite: flushes of the log', () => {
  let store: Store;
  let resumed: number[] = [];
  const app = () => job(store, () => resumed.push(flushes.started));
  beforeAll(async () => {
    store = await sqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'elicit-flush-')), 't.db') });
  });
  afterAll(() => store.close());

  it('one answer: one flush carries it and the result, and has ended before the ack', async () => {
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
    // Resumed from the committed answer, before the flush began.
    expect(resumed.map((n) => n - before.started)).toEqual([0]);
    // Its result went to disk with the answer: completed at the ack, no flush after it.
    expect((await store.get<{ status: string }>(`task:${id}`))?.value.status).toBe('completed');
    await settle();
    expect(flushes.started - before.started).toBe(1);
    await entry.close();
  });

  it('answers one after another: one flush each, the results in them', async () => {
    const entry = httpEntry(app());
    const parked = [];
    for (let i = 0; i < 8; i++) parked.push(await park(entry));
    await settle();
    const before = flushes.started;
    for (const { id, key } of parked) {
      await rpc(entry, 'tasks/update', {
        taskId: id,
        inputResponses: { [key]: accept({ go: true }) },
      });
      // Nothing still under way when the ack arrives: the next answer flushes at once.
      expect(flushes.ended).toBe(flushes.started);
    }
    await until(entry, (parked.at(-1) as { id: string }).id, 'completed');
    expect(flushes.started - before).toBe(parked.length);
    await entry.close();
  });

  it('answers one after another: the server that took each one is reused', async () => {
    const app = job(store, () => {});
    const build = app.build.bind(app);
    let built = 0;
    app.build = (era) => {
      if (era === 'modern') built++;
      return build(era);
    };
    const entry = httpEntry(app);
    const parked = [];
    for (let i = 0; i < 8; i++) parked.push(await park(entry));
    await settle();
    const before = built;
    for (const { id, key } of parked)
      await rpc(entry, 'tasks/update', {
        taskId: id,
        inputResponses: { [key]: accept({ go: true }) },
      });
    await until(entry, (parked.at(-1) as { id: string }).id, 'completed');
    // A resumed run no longer costs the pool its server (one built per answer before).
    expect(built - before).toBeLessThanOrEqual(1);
    await entry.close();
  });

  it('a step after the answer runs only once the answer is on disk', async () => {
    const seen: number[] = [];
    let before = 0;
    const entry = httpEntry(
      createServer({ name: 'cost', version: '1', tasks: { store } }).tool(
        'job',
        { task: 'optional' },
        async (_args, ask) => {
          const r = await ask.form('go', form({ go: boolean() }));
          await ask.step('effect', async () => seen.push(flushes.ended - before));
          return r.action;
        },
      ),
    );
    const { id, key } = await park(entry);
    await settle();
    before = flushes.ended;
    await rpc(entry, 'tasks/update', {
      taskId: id,
      inputResponses: { [key]: accept({ go: true }) },
    });
    await until(entry, id, 'completed');
    expect(seen).toEqual([1]);
    await entry.close();
  });
});

describe('tasks/update on Redis: round trips', () => {
  it('update→resumed is two round trips, the resumed result one more', async () => {
    const own = await ownRedis();
    const store = await redisStore({ url: own.url, prefix: 'cost:' });
    const { Redis } = await import('ioredis');
    const watcher = new Redis(own.url);
    const monitor = await watcher.monitor();
    // Commands the store's connection sends (those a script runs inside Redis say "lua").
    const sent: string[] = [];
    let counting = false;
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (counting && source !== 'lua') sent.push(String(args[0]).toLowerCase());
    });
    const entry = httpEntry(job(store, () => {}));
    try {
      const { id, key } = await park(entry);
      await settle(100);
      counting = true;
      const ack = await rpc(entry, 'tasks/update', {
        taskId: id,
        inputResponses: { [key]: accept({ go: true }) },
      });
      expect(ack.result?.resultType).toBe('complete');
      // MONITOR reports a little after the fact: wait until it has gone quiet.
      for (let seen = -1; seen !== sent.length; await settle(100)) seen = sent.length;
      counting = false;
      expect(sent).toEqual(['get', 'evalsha', 'evalsha']);
      expect((await store.get<{ status: string }>(`task:${id}`))?.value.status).toBe('completed');
    } finally {
      await entry.close();
      await store.close();
      monitor.disconnect();
      watcher.disconnect();
      await own.close();
    }
  });
});
