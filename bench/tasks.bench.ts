/**
 * Tasks (2026-07-28 extension) beside the plain SDK in the same run. The SDK has no tasks
 * runtime, so the baselines are its nearest equivalents: a person waiting is a pushed
 * elicitation held open on a 2025 session (heap per waiting ask), and a task poll is the same
 * request shape answered by an SDK handler that reads nothing (the floor of a modern request).
 * - heap per parked task (memory and SQLite stores);
 * - tasks/get throughput on SQLite and Redis; tasks/update on memory (no disk), SQLite and Redis;
 * - time from tasks/update to the resumed handler running again;
 * - scaling: create, get and update→resumed with 10 / 1 000 / 5 000 live tasks of the caller,
 *   each level against the 10-live figure of the same driver, measured in interleaved rounds.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { boolean, form } from '../src/schema/index.ts';
import { createServer, httpEntry } from '../src/server/index.ts';
import { createTask, taskKey, taskLimits } from '../src/server/tasks/records.ts';
import {
  memoryStore,
  postgresStore,
  redisStore,
  type Store,
  sqliteStore,
} from '../src/store/index.ts';
import { dropSchema, POSTGRES_URL, uniqueSchema } from '../test/support/postgres.ts';
import { accept, rpc, until, userAuth } from '../test/support/tasks.ts';
import { heapAfterGc, median, type Row, timeAsyncMs, wanted } from './harness.ts';
import { heapPerWaitingAsk } from './server-cases.ts';

const PARKED = Number(process.env.BENCH_PARKED ?? 500);
const KIB = 1024;

let resumedAt = 0;
function app(store: Store) {
  return createServer({
    name: 'bench',
    version: '1',
    tasks: { store, limits: { maxLivePerPrincipal: 100_000 } },
  })
    .tool('job', { task: 'optional' }, async (_args, ask) => {
      const r = await ask.form('go', form({ go: boolean() }));
      resumedAt = performance.now();
      return r.action;
    })
    .tool('quick', { task: 'optional' }, async () => 'done');
}

const LEVELS = (process.env.BENCH_TASK_LEVELS ?? '10,1000,5000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_TASK_ROUNDS ?? 3);

/**
 * Create, get and update→resumed against how many live tasks the caller has: one caller per
 * level, filled through the records module (the records a tools/call makes), then the three
 * operations measured level after level in interleaved rounds so the machine's drift weighs on
 * every level alike. Tasks a sample adds are deleted after it (untimed), so a level stays put.
 */
async function scaling(driver: string, store: Store): Promise<Row[]> {
  const entry = httpEntry(app(store), { authInfo: userAuth });
  const limits = taskLimits({ maxLivePerPrincipal: 100_000, ttlMs: 900_000 });
  const run = `${process.pid}-${Date.now()}`;
  const levels: { live: number; user: string; parked: string }[] = [];
  const park = async (user: string) => {
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'job', arguments: {} }, { user })).result?.taskId,
    );
    const task = await until(entry, id, 'input_required', { user });
    return { id, key: String(Object.keys(task.inputRequests ?? {})[0]) };
  };
  for (const live of LEVELS) {
    const user = `scale-${live}-${run}`;
    const parked = (await park(user)).id;
    const stored = (await store.get(taskKey(parked)))?.value as { principal?: string } | undefined;
    const principal = String(stored?.principal);
    for (let i = 1; i < live; i++)
      await createTask(store, { principal, method: 'tools/call', name: 'quick', args: {} }, limits);
    levels.push({ live, user, parked });
  }
  const samples = new Map<string, number[]>();
  const add = (op: string, live: number, ms: number) => {
    const k = `${op}@${live}`;
    let xs = samples.get(k);
    if (xs === undefined) samples.set(k, (xs = []));
    xs.push(ms);
  };
  // Level after level for every sample (the order turning each time), so drift and other
  // processes' load weigh on every level alike.
  const each = async (n: number, op: (level: (typeof levels)[number]) => Promise<void>) => {
    for (let i = 0; i < n; i++)
      for (let j = 0; j < levels.length; j++)
        await op(levels[(i + j) % levels.length] as (typeof levels)[number]);
  };
  for (let round = 0; round < ROUNDS; round++) {
    await each(30, async ({ live, user }) => {
      const t0 = performance.now();
      const id = (await rpc(entry, 'tools/call', { name: 'quick', arguments: {} }, { user })).result
        ?.taskId;
      add('create', live, performance.now() - t0);
      await until(entry, String(id), 'completed', { user });
      await store.delete(taskKey(String(id)));
    });
    await each(60, async ({ live, user, parked }) => {
      const t0 = performance.now();
      await rpc(entry, 'tasks/get', { taskId: parked }, { user });
      add('get', live, performance.now() - t0);
    });
    await each(8, async ({ live, user }) => {
      const { id, key } = await park(user);
      resumedAt = 0;
      const t0 = performance.now();
      await rpc(
        entry,
        'tasks/update',
        { taskId: id, inputResponses: { [key]: accept({ go: true }) } },
        { user },
      );
      while (resumedAt === 0) await new Promise((r) => setImmediate(r));
      add('update→resumed', live, resumedAt - t0);
      await until(entry, id, 'completed', { user });
      await store.delete(taskKey(id));
    });
  }
  await entry.close();
  const rows: Row[] = [];
  const [base] = LEVELS;
  for (const op of ['create', 'get', 'update→resumed']) {
    const at10 = median(samples.get(`${op}@${base}`) ?? []);
    for (const live of LEVELS) {
      const ms = median(samples.get(`${op}@${live}`) ?? []);
      rows.push({
        group: 'tasks scaling',
        name: `${op} with ${live} live tasks (${driver})`,
        value: ms,
        unit: 'ms',
        ...(live === base
          ? {}
          : {
              baseline: { name: `${base} live`, value: at10 },
              ratio: ms / at10,
              target: '≤ 1.20× the 10-live time',
              met: ms / at10 <= 1.2,
            }),
      });
    }
  }
  return rows;
}

/** Heap per task parked in input_required (records, plus nothing running). */
async function parkedHeap(store: Store): Promise<number> {
  const entry = httpEntry(app(store));
  const first = String(
    (await rpc(entry, 'tools/call', { name: 'job', arguments: {} })).result?.taskId,
  );
  await until(entry, first, 'input_required');
  const before = heapAfterGc();
  const ids: string[] = [];
  for (let i = 0; i < PARKED; i++)
    ids.push(
      String((await rpc(entry, 'tools/call', { name: 'job', arguments: {} })).result?.taskId),
    );
  await until(entry, ids[ids.length - 1] as string, 'input_required');
  const per = (heapAfterGc() - before) / PARKED / KIB;
  await entry.close();
  return per;
}

/** Heap per elicitation the plain SDK holds open for a person on a 2025 session. */
async function sdkWaitingHeap(): Promise<number> {
  const server = new McpServer({ name: 'sdk', version: '1' });
  server.registerTool('wait', {}, async (ctx) => {
    const r = await ctx.mcpReq.elicitInput(
      {
        message: 'Go?',
        requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } } },
      },
      { relatedRequestId: ctx.mcpReq.id, timeout: 600_000 },
    );
    return { content: [{ type: 'text', text: r.action }] };
  });
  return heapPerWaitingAsk(server, 'wait', PARKED);
}

/** ms per tasks/get of a parked task. */
async function getMs(store: Store): Promise<number> {
  const entry = httpEntry(app(store));
  const id = String(
    (await rpc(entry, 'tools/call', { name: 'job', arguments: {} })).result?.taskId,
  );
  await until(entry, id, 'input_required');
  const ms = await timeAsyncMs(() => rpc(entry, 'tasks/get', { taskId: id }));
  await entry.close();
  return ms;
}

/** A request of the same shape answered by a plain SDK handler that reads nothing. */
function sdkFloor(): () => Promise<unknown> {
  const handler = createMcpHandler(
    () => {
      const s = new McpServer({ name: 'sdk', version: '1' });
      const pass = {
        '~standard': { version: 1, vendor: 'b', validate: (v: unknown) => ({ value: v }) },
      };
      s.server.setRequestHandler(
        'tasks/get',
        { params: pass as never },
        async (p: never) =>
          ({
            resultType: 'complete',
            taskId: (p as { taskId: string }).taskId,
            status: 'input_required',
          }) as never,
      );
      return s;
    },
    { legacy: 'reject' },
  );
  const entry = { fetch: (req: Request) => handler.fetch(req) };
  return () => rpc(entry, 'tasks/get', { taskId: 'AAAAAAAAAAAAAAAAAAAAAA' });
}

/** ms per request answered by the plain SDK handler that reads nothing. */
async function sdkFloorMs(): Promise<number> {
  return timeAsyncMs(sdkFloor());
}

/** Answers per slice of the tasks/update row. */
const UPDATES = Number(process.env.BENCH_TASK_UPDATES ?? 25);
const UPDATE_REPEATS = Number(process.env.BENCH_TASK_UPDATE_REPEATS ?? 5);

/**
 * tasks/update beside the plain SDK floor, interleaved: each repeat parks 2 × `UPDATES` tasks
 * on one question (untimed), then answers `UPDATES` of them, runs the floor twice for as long,
 * and answers the other `UPDATES` (ABBA). An answer is acked once it is in the store; its
 * handler then resumes and writes its result, on the same process and store, so that write's
 * cost falls inside the slice too. The ratio is throughput, ours ÷ floor, per repeat.
 */
async function updateAbba(
  store: Store,
): Promise<{ ratios: number[]; ours: number; floor: number }> {
  const entry = httpEntry(app(store));
  const floor = sdkFloor();
  const park = async () => {
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'job', arguments: {} })).result?.taskId,
    );
    const task = await until(entry, id, 'input_required');
    return { id, key: String(Object.keys(task.inputRequests ?? {})[0]) };
  };
  const answer = async (batch: { id: string; key: string }[]) => {
    const start = performance.now();
    for (const { id, key } of batch)
      await rpc(entry, 'tasks/update', {
        taskId: id,
        inputResponses: { [key]: accept({ go: true }) },
      });
    return (performance.now() - start) / batch.length;
  };
  const floorFor = async (ms: number) => {
    (globalThis as { gc?: () => void }).gc?.();
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < ms) {
      await floor();
      n++;
    }
    return (performance.now() - start) / n;
  };
  await floorFor(200);
  const ratios: number[] = [];
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < UPDATE_REPEATS; r++) {
    const parked = [];
    for (let i = 0; i < 2 * UPDATES; i++) parked.push(await park());
    (globalThis as { gc?: () => void }).gc?.();
    const a1 = await answer(parked.slice(0, UPDATES));
    const b1 = await floorFor(a1 * UPDATES);
    const b2 = await floorFor(a1 * UPDATES);
    (globalThis as { gc?: () => void }).gc?.();
    const a2 = await answer(parked.slice(UPDATES));
    ratios.push((b1 + b2) / (a1 + a2));
    a.push(a1, a2);
    b.push(b1, b2);
    await until(entry, (parked.at(-1) as { id: string }).id, 'completed');
  }
  await entry.close();
  ratios.sort((x, y) => x - y);
  return { ratios, ours: 1000 / median(a), floor: 1000 / median(b) };
}

/** ms from sending the last answer to the handler running past its ask again. */
async function resumeMs(store: Store): Promise<number> {
  const entry = httpEntry(app(store));
  const samples: number[] = [];
  for (let i = 0; i < 30; i++) {
    const id = String(
      (await rpc(entry, 'tools/call', { name: 'job', arguments: {} })).result?.taskId,
    );
    const parked = await until(entry, id, 'input_required');
    const [key] = Object.keys(parked.inputRequests ?? {});
    resumedAt = 0;
    const sent = performance.now();
    await rpc(entry, 'tasks/update', {
      taskId: id,
      inputResponses: { [String(key)]: accept({ go: true }) },
    });
    while (resumedAt === 0) await new Promise((r) => setImmediate(r));
    samples.push(resumedAt - sent);
    // Its result written before the next (and before the store closes after the last).
    await until(entry, id, 'completed');
  }
  await entry.close();
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

export default async function run(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'elicit-bench-tasks-'));
  const sqlite = await sqliteStore({ path: join(dir, 't.db') });
  const redis = await redisStore({ prefix: `elicit-bench-tasks-${process.pid}-${Date.now()}:` });
  const schema = uniqueSchema('bench_tasks');
  const postgres = await postgresStore({ url: POSTGRES_URL, schema });
  const rows: Row[] = [];
  try {
    const sdkHeap = wanted('heap per parked task') ? await sdkWaitingHeap() : 0;
    for (const [name, store] of [
      ['memory', memoryStore()],
      ['sqlite', sqlite],
    ] as const) {
      if (!wanted(`heap per parked task (${name} store)`)) continue;
      const ours = await parkedHeap(store);
      rows.push({
        group: 'tasks',
        name: `heap per parked task (${name} store)`,
        value: ours,
        unit: 'KiB',
        baseline: { name: 'plain SDK, waiting push ask', value: sdkHeap },
        ratio: ours / sdkHeap,
      });
    }
    // The plain SDK's floor, measured once, when a row needs it.
    let floorMs: number | undefined;
    const perSecond = async (name: string, ops: number): Promise<Row> => {
      const floor = (floorMs ??= await sdkFloorMs());
      return {
        group: 'tasks',
        name,
        value: ops,
        unit: 'ops/s',
        baseline: { name: 'plain SDK handler, no store', value: 1000 / floor },
        ratio: ops / (1000 / floor),
      };
    };
    // The memory store's row: the same answers with no disk and no network, the engine alone.
    for (const [name, store] of [
      ['memory', memoryStore()],
      ['sqlite', sqlite],
      ['redis', redis],
    ] as const) {
      if (name !== 'memory' && wanted(`tasks/get (${name})`))
        rows.push(await perSecond(`tasks/get (${name})`, 1000 / (await getMs(store))));
      if (!wanted(`tasks/update answering a parked task, then the handler resumed (${name})`))
        continue;
      const u = await updateAbba(store);
      const ratio = median(u.ratios);
      rows.push({
        group: 'tasks',
        name: `tasks/update answering a parked task (${name}; ABBA, ${UPDATE_REPEATS} repeats of ${UPDATES})`,
        value: u.ours,
        unit: 'ops/s',
        baseline: { name: 'plain SDK handler, no store', value: u.floor },
        ratio,
        range: [u.ratios[0] as number, u.ratios.at(-1) as number],
        ...(name === 'sqlite' ? { target: '≥ 0.50× baseline throughput', met: ratio >= 0.5 } : {}),
      });
      rows.push({
        group: 'tasks',
        name: `tasks/update → handler resumed (${name})`,
        value: await resumeMs(store),
        unit: 'ms',
      });
    }
    for (const [name, store] of [
      ['memory', memoryStore()],
      ['sqlite', sqlite],
      ['redis', redis],
      ['postgres', postgres],
    ] as const)
      if (wanted(`tasks scaling (${name})`)) rows.push(...(await scaling(name, store)));
  } finally {
    await sqlite.close();
    await redis.close();
    await postgres.close();
    await dropSchema(schema);
  }
  return rows;
}
