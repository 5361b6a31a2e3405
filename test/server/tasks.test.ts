import { setTimeout as sleep } from 'node:timers/promises';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { boolean, form, integer, text } from '../../src/schema/index.ts';
import { createServer, type ElicitWarning, httpEntry } from '../../src/server/index.ts';
import { memoryStore, type Store } from '../../src/store/index.ts';
import { storeDrivers } from '../support/drivers.ts';
import { MODERN_META } from '../support/kit.ts';
import { accept, resultText, rpc, TASKS, until, userAuth } from '../support/tasks.ts';

const drivers = storeDrivers('tasks');

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

describe('tasks: composition, progress, bounds', () => {
  function more(limits: Record<string, number> = {}) {
    const app = createServer({
      name: 'more',
      version: '1',
      store: memoryStore(),
      tasks: { limits: { progressEveryMs: 1, ...limits } },
    })
      .tool('intake', { task: 'optional', taskStart: 'background' }, async (_args, ask) => {
        const r = await ask.form('who', form({ name: text() }));
        await ask.background();
        const n = await ask.once('ticket', () => 7);
        return `ticket ${n} for ${r.action === 'accept' ? r.content.name : r.action}`;
      })
      .tool('report', { task: 'optional' }, async (_args, ask) => {
        await ask.progress(1, { total: 2, message: 'half way' });
        await ask.confirm('more', 'Go on?');
        return 'x';
      })
      .tool('steps', { task: 'optional' }, async (_args, _ask, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        // Faster than progressEveryMs: only the first report is written while it runs.
        for (let i = 1; i <= 3 && token !== undefined; i++)
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: 3, message: `step ${i} of 3` },
          });
        return 'done';
      })
      .tool('huge', { task: 'optional' }, async () => 'x'.repeat(5000))
      .tool('broken', { task: 'optional' }, async () => {
        throw new ProtocolError(ProtocolErrorCode.InternalError, 'gone wrong');
      });
    return httpEntry(app, { authInfo: userAuth });
  }

  it('answers the first asks in rounds, then becomes a task at ask.background()', async () => {
    const entry = more();
    const one = await rpc(entry, 'tools/call', { name: 'intake', arguments: {} }, { user: 'al' });
    expect(one.result?.resultType).toBe('input_required');
    expect(one.result).not.toHaveProperty('taskId');
    const two = await rpc(
      entry,
      'tools/call',
      {
        name: 'intake',
        arguments: {},
        inputResponses: { who: accept({ name: 'Alice' }) },
        requestState: one.result?.requestState,
      },
      { user: 'al' },
    );
    expect(two.result?.resultType).toBe('task');
    expect(two.result).not.toHaveProperty('requestState');
    const done = await until(entry, String(two.result?.taskId), 'completed', { user: 'al' });
    expect(resultText(done)).toBe('ticket 7 for Alice');
    // Without the extension the same handler runs through in rounds.
    const plain = await rpc(
      entry,
      'tools/call',
      { name: 'intake', arguments: {}, inputResponses: { who: accept({ name: 'Bo' }) } },
      { user: 'al', meta: MODERN_META },
    );
    expect(plain.result?.content?.[0]?.text).toBe('ticket 7 for Bo');
  });

  it('shows progress as the status message and never takes an answer for an older key', async () => {
    const entry = more();
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'report', arguments: {} }, { user: 'al' })).result
        ?.taskId,
    );
    let parked = await until(entry, id, 'input_required', { user: 'al' });
    expect(parked.statusMessage).toBe('half way');
    const [old] = Object.keys(parked.inputRequests ?? {});
    await rpc(
      entry,
      'tasks/update',
      { taskId: id, inputResponses: { [String(old)]: accept({ confirmed: 'maybe' }) } },
      { user: 'al' },
    );
    parked = await until(entry, id, 'input_required', { user: 'al' });
    const [fresh] = Object.keys(parked.inputRequests ?? {});
    expect(fresh).not.toBe(old);
    // The old key is no longer asked: its answer is ignored and the task stays parked.
    await rpc(
      entry,
      'tasks/update',
      { taskId: id, inputResponses: { [String(old)]: accept({ confirmed: true }) } },
      { user: 'al' },
    );
    const still = await until(entry, id, 'input_required', { user: 'al' });
    expect(Object.keys(still.inputRequests ?? {})).toEqual([fresh]);
  });

  it('a finished task shows the last message its handler reported, not a throttled older one', async () => {
    const entry = more();
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'steps', arguments: {} }, { user: 'al' })).result
        ?.taskId,
    );
    const done = await until(entry, id, 'completed', { user: 'al' });
    expect(done.statusMessage).toBe('step 3 of 3');
  });

  it('fails on a protocol error, bounds the record and the rounds', async () => {
    const entry = more({ maxRecordBytes: 2048 });
    const call = async (name: string) =>
      String(
        (await rpc(entry, 'tools/call', { name, arguments: {} }, { user: 'al' })).result?.taskId,
      );
    const broken = await until(entry, await call('broken'), 'failed', { user: 'al' });
    expect(broken.status).toBe('failed');
    expect(broken.error).toMatchObject({ code: -32603, message: 'gone wrong' });
    expect(broken).not.toHaveProperty('result');
    const huge = await until(entry, await call('huge'), 'completed', { user: 'al' });
    expect(huge.result?.isError).toBe(true);
    expect(huge.result?._meta).toMatchObject({ 'elicit/error': 'ELICIT_TASK_TOO_LARGE' });

    const app = createServer({
      name: 'rounds',
      version: '1',
      store: memoryStore(),
      limits: { maxRounds: 2 },
    }).tool('chatty', { task: 'optional' }, async (_args, ask) => {
      for (let i = 0; i < 5; i++) await ask.confirm(`q${i}`, `Question ${i}?`);
      return 'done';
    });
    const e2 = httpEntry(app, { authInfo: userAuth });
    const id = String(
      (await rpc(e2, 'tools/call', { name: 'chatty', arguments: {} }, { user: 'al' })).result
        ?.taskId,
    );
    let task = await until(e2, id, 'input_required', { user: 'al' });
    while (task.status === 'input_required') {
      const [key] = Object.keys(task.inputRequests ?? {});
      await rpc(
        e2,
        'tasks/update',
        { taskId: id, inputResponses: { [String(key)]: accept({ confirmed: true }) } },
        { user: 'al' },
      );
      task = await until(e2, id, 'input_required', { user: 'al' });
    }
    expect(task.result?._meta).toMatchObject({ 'elicit/error': 'ELICIT_TOO_MANY_ROUNDS' });
  });

  it('forgets a task once its ttlMs has passed (the store expires it)', async () => {
    const entry = more({ ttlMs: 50 });
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'report', arguments: {} }, { user: 'al' })).result
        ?.taskId,
    );
    let r = await rpc(entry, 'tasks/get', { taskId: id }, { user: 'al' });
    for (let i = 0; i < 500 && r.error === undefined; i++) {
      await sleep(10);
      r = await rpc(entry, 'tasks/get', { taskId: id }, { user: 'al' });
    }
    expect(r.error?.code).toBe(-32602);
  });
});

describe('tasks: what a peer may send', () => {
  it('refuses oversized answers and odd task ids without touching the store', async () => {
    const { entry } = build(memoryStore());
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'pair', arguments: {} }, { user: 'al' })).result
        ?.taskId,
    );
    await until(entry, id, 'input_required', { user: 'al' });
    const big = { action: 'accept', content: { name: 'x'.repeat(1_100_000) } };
    const r = await rpc(
      entry,
      'tasks/update',
      { taskId: id, inputResponses: { a: big } },
      { user: 'al' },
    );
    expect(r.error?.code).toBe(-32602);
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, accept({})]));
    const flood = await rpc(
      entry,
      'tasks/update',
      { taskId: id, inputResponses: many },
      { user: 'al' },
    );
    expect(flood.error?.code).toBe(-32602);
    for (const taskId of ['../task:x', 'x'.repeat(600), 42, '']) {
      const got = await rpc(entry, 'tasks/get', { taskId }, { user: 'al' });
      expect(got.error?.code, String(taskId).slice(0, 20)).toBe(-32602);
    }
    expect((await until(entry, id, 'input_required', { user: 'al' })).status).toBe(
      'input_required',
    );
  });
});
