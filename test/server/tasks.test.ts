/**
 * Tools run as tasks (the tasks extension on 2026-07-28) on every store driver: the lifecycle
 * through tasks/get and tasks/update, partial and invalid answers, cancel, steps never run again,
 * another principal's tasks unknown, the caps, and the refusals without the extension.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { boolean, form, integer, text } from '../../src/schema/index.ts';
import { createServer, type ElicitWarning, httpEntry } from '../../src/server/index.ts';
import { memoryStore, redisStore, type Store, sqliteStore } from '../../src/store/index.ts';
import { MODERN_META } from '../support/kit.ts';
import { accept, resultText, rpc, TASKS, until, userAuth } from '../support/tasks.ts';

const dir = mkdtempSync(join(tmpdir(), 'elicit-tasks-'));
const prefix = `elicit-test-tasks-${process.pid}-${Date.now()}:`;
const opened: Store[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

const drivers: [string, () => Promise<Store>][] = [
  ['memory', async () => memoryStore()],
  ['sqlite', () => sqliteStore({ path: join(dir, 'tasks.db') })],
  ['redis', () => redisStore({ url: 'redis://127.0.0.1:6379', prefix })],
];

function build(store: Store, limits: Record<string, number> = {}) {
  const calls = { charge: 0, aborted: 0 };
  const app = createServer({
    name: 'tasks',
    version: '1',
    store,
    tasks: { limits: { progressEveryMs: 1, ...limits } },
  })
    .tool('order', { task: 'optional' }, async (_args, ask) => {
      const ok = await ask.form('confirm', form({ ok: boolean({ title: 'Order?' }) }));
      if (ok.action !== 'accept' || !ok.content.ok) return 'not ordered';
      const ref = await ask.step('charge', () => `R-${++calls.charge}`);
      const size = await ask.form('size', form({ n: integer({ min: 1, max: 9 }) }));
      return `ordered ${ref} x${size.action === 'accept' ? size.content.n : 0}`;
    })
    .tool('pair', { task: 'optional' }, async (_args, ask) => {
      const who = form({ name: text() });
      const r = await ask.all({ a: { form: who }, b: { form: who } });
      const name = (x: typeof r.a) => (x.action === 'accept' ? x.content.name : x.action);
      return `${name(r.a)}+${name(r.b)}`;
    })
    .tool('wait', { task: 'optional' }, async (_args, _ask, ctx) => {
      try {
        await sleep(60_000, undefined, { signal: ctx.mcpReq.signal });
      } catch {
        calls.aborted++;
        throw new Error('stopped');
      }
      return 'waited';
    })
    .tool('must', { task: 'required' }, async () => 'done')
    .tool('plain', {}, async () => 'plain');
  const entry = httpEntry(app, { authInfo: userAuth });
  return { entry, calls };
}

describe.each(drivers)('tasks on %s', (_name, make) => {
  const open = async () => {
    const s = await make();
    opened.push(s);
    return s;
  };

  it('creates the task at once, parks it for each ask under fresh keys and completes it', async () => {
    const { entry, calls } = build(await open());
    const created = await rpc(
      entry,
      'tools/call',
      { name: 'order', arguments: {} },
      { user: 'al' },
    );
    const task = created.result ?? {};
    expect(task.resultType).toBe('task');
    expect(Buffer.from(String(task.taskId), 'base64url')).toHaveLength(16);
    expect(Number.isInteger(task.ttlMs) && Number.isInteger(task.pollIntervalMs)).toBe(true);
    expect(task).not.toHaveProperty('requestState');
    expect(task).not.toHaveProperty('task');
    const id = String(task.taskId);

    const first = await until(entry, id, 'input_required', { user: 'al' });
    const [k1] = Object.keys(first.inputRequests ?? {});
    expect(k1).toMatch(/^confirm~/);
    const ack = await rpc(
      entry,
      'tasks/update',
      { taskId: id, inputResponses: { [String(k1)]: accept({ ok: true }) } },
      { user: 'al' },
    );
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.anything() });

    const second = await until(entry, id, 'input_required', { user: 'al' });
    const keys = Object.keys(second.inputRequests ?? {});
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^size~/);
    await rpc(
      entry,
      'tasks/update',
      { taskId: id, inputResponses: { [String(keys[0])]: accept({ n: 2 }) } },
      { user: 'al' },
    );
    const done = await until(entry, id, 'completed', { user: 'al' });
    expect(done.status).toBe('completed');
    expect(resultText(done)).toBe('ordered R-1 x2');
    // The step ran once, though the handler was replayed three times.
    expect(calls.charge).toBe(1);
    expect(done).not.toHaveProperty('inputRequests');
    expect(done).not.toHaveProperty('requestState');
  });

  it('keeps a partly answered task parked with only the unanswered request', async () => {
    const { entry } = build(await open());
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'pair', arguments: {} }, { user: 'al' })).result
        ?.taskId,
    );
    const parked = await until(entry, id, 'input_required', { user: 'al' });
    const [ka, kb] = Object.keys(parked.inputRequests ?? {}).sort();
    await rpc(
      entry,
      'tasks/update',
      { taskId: id, inputResponses: { [String(ka)]: accept({ name: 'Ann' }) } },
      { user: 'al' },
    );
    const half = await until(entry, id, 'input_required', { user: 'al' });
    expect(Object.keys(half.inputRequests ?? {})).toEqual([kb]);
    // A second answer for an answered key, and one for a key never asked, change nothing.
    await rpc(
      entry,
      'tasks/update',
      {
        taskId: id,
        inputResponses: { [String(ka)]: accept({ name: 'Eve' }), 'x~y': accept({ name: 'Z' }) },
      },
      { user: 'al' },
    );
    await rpc(
      entry,
      'tasks/update',
      { taskId: id, inputResponses: { [String(kb)]: accept({ name: 'Bob' }) } },
      { user: 'al' },
    );
    expect(resultText(await until(entry, id, 'completed', { user: 'al' }))).toBe('Ann+Bob');
  });

  it('re-asks an invalid answer under a new key, and gives up after the attempts allowed', async () => {
    const { entry } = build(await open());
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'order', arguments: {} }, { user: 'al' })).result
        ?.taskId,
    );
    let parked = await until(entry, id, 'input_required', { user: 'al' });
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const [key] = Object.keys(parked.inputRequests ?? {});
      expect(seen.has(String(key))).toBe(false);
      seen.add(String(key));
      await rpc(
        entry,
        'tasks/update',
        { taskId: id, inputResponses: { [String(key)]: accept({ ok: 'yes' }) } },
        { user: 'al' },
      );
      parked = await until(entry, id, 'input_required', { user: 'al' });
      if (parked.status !== 'input_required') break;
      expect(
        parked.inputRequests?.[String(Object.keys(parked.inputRequests)[0])]?.params.message,
      ).toMatch(/yes or no/);
    }
    expect(parked.status).toBe('completed');
    expect(parked.result?.isError).toBe(true);
    expect(parked.result?._meta).toMatchObject({ 'elicit/error': 'ELICIT_ANSWER_INVALID' });
  });

  it('cancels a running task: empty ack, the handler aborted, idempotent', async () => {
    const { entry, calls } = build(await open());
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'wait', arguments: {} }, { user: 'al' })).result
        ?.taskId,
    );
    const ack = await rpc(entry, 'tasks/cancel', { taskId: id }, { user: 'al' });
    expect(Object.keys(ack.result ?? {}).sort()).toEqual(['_meta', 'resultType']);
    expect(ack.result?.resultType).toBe('complete');
    const after = await until(entry, id, 'cancelled', { user: 'al' });
    expect(after.status).toBe('cancelled');
    expect(after).not.toHaveProperty('result');
    const again = await rpc(entry, 'tasks/cancel', { taskId: id }, { user: 'al' });
    expect(again.result?.resultType).toBe('complete');
    for (let i = 0; i < 200 && calls.aborted === 0; i++) await sleep(5);
    expect(calls.aborted).toBe(1);
    expect((await until(entry, id, 'cancelled', { user: 'al' })).status).toBe('cancelled');
  });
});

describe('tasks: who may see them, caps, refusals', () => {
  it("treats another principal's task as unknown (-32602) on every method", async () => {
    const { entry } = build(memoryStore());
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'order', arguments: {} }, { user: 'al' })).result
        ?.taskId,
    );
    await until(entry, id, 'input_required', { user: 'al' });
    for (const [method, params] of [
      ['tasks/get', { taskId: id }],
      ['tasks/update', { taskId: id, inputResponses: {} }],
      ['tasks/cancel', { taskId: id }],
    ] as const) {
      const r = await rpc(entry, method, params, { user: 'bo' });
      expect(r.error?.code, method).toBe(-32602);
    }
    expect((await until(entry, id, 'input_required', { user: 'al' })).status).toBe(
      'input_required',
    );
    const made = await rpc(
      entry,
      'tasks/get',
      { taskId: 'AAAAAAAAAAAAAAAAAAAAAA' },
      { user: 'al' },
    );
    expect(made.error?.code).toBe(-32602);
  });

  it('caps live tasks per principal with a named error', async () => {
    const { entry } = build(memoryStore(), { maxLivePerPrincipal: 2 });
    for (let i = 0; i < 2; i++) {
      const r = await rpc(entry, 'tools/call', { name: 'order', arguments: {} }, { user: 'al' });
      expect(r.result?.resultType).toBe('task');
    }
    const third = await rpc(entry, 'tools/call', { name: 'order', arguments: {} }, { user: 'al' });
    expect(third.result?.isError).toBe(true);
    expect(third.result?._meta).toMatchObject({ 'elicit/error': 'ELICIT_TASK_LIMIT' });
    // Another principal is not affected.
    const bob = await rpc(entry, 'tools/call', { name: 'order', arguments: {} }, { user: 'bo' });
    expect(bob.result?.resultType).toBe('task');
  });

  it('without the extension: task methods -32021, required tools -32021, optional ones run here', async () => {
    const { entry } = build(memoryStore());
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const r = await rpc(
        entry,
        method,
        { taskId: 'x', inputResponses: {} },
        {
          user: 'al',
          meta: MODERN_META,
        },
      );
      expect(r.error?.code, method).toBe(-32021);
    }
    const must = await rpc(
      entry,
      'tools/call',
      { name: 'must', arguments: {} },
      {
        user: 'al',
        meta: MODERN_META,
      },
    );
    expect(must.error?.code).toBe(-32021);
    expect(must.error?.data).toMatchObject({
      requiredCapabilities: { extensions: { [TASKS]: {} } },
    });
    const opt = await rpc(
      entry,
      'tools/call',
      { name: 'order', arguments: {} },
      {
        user: 'al',
        meta: MODERN_META,
      },
    );
    expect(opt.result?.resultType).toBe('input_required');
    const plain = await rpc(entry, 'tools/call', { name: 'plain', arguments: {} }, { user: 'al' });
    expect(plain.result?.resultType).toBe('complete');
    for (const method of ['tasks/result', 'tasks/list']) {
      const r = await rpc(entry, method, { taskId: 'x' }, { user: 'al' });
      expect(r.error?.code, method).toBe(-32601);
    }
  });

  it('warns once when tasks would live in this process only', () => {
    const warnings: ElicitWarning[] = [];
    const app = createServer({
      name: 'w',
      version: '1',
      onWarning: (w) => warnings.push(w),
    }).tool('t', { task: 'optional' }, async () => 'x');
    app.build('modern');
    app.build('modern');
    expect(warnings.map((w) => w.code)).toEqual(['ELICIT_TASK_STORE_PROCESS_LOCAL']);
  });
});
