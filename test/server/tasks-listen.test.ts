/**
 * `notifications/tasks` on a `subscriptions/listen` stream: the whole task on every change until
 * it ends, the SDK's own filter fields still served on the same stream, another principal's ids
 * not honoured, a bounded number of streams per principal released when the client goes away,
 * and changes written by another process (one SQLite file) seen through the store.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boolean, form } from '../../src/schema/index.ts';
import { createServer, httpEntry } from '../../src/server/index.ts';
import { memoryStore, type Store, sqliteStore } from '../../src/store/index.ts';
import { freePort, startProcess, stop } from '../support/processes.ts';
import { accept, rpc, TASKS_META, until, userAuth } from '../support/tasks.ts';

const opened: Store[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) await stop(c, 'SIGKILL');
  for (const s of opened) await s.close();
});

type Entry = ReturnType<typeof httpEntry>;
type Message = Record<string, unknown> & {
  method?: string;
  id?: unknown;
  params?: Record<string, unknown> & { status?: string; taskId?: string };
};

/** A listen stream read message by message. */
interface Stream {
  next(): Promise<Message | undefined>;
  /** Messages until `stop` says so (inclusive); fails on the end of the stream. */
  until(stop: (m: Message) => boolean): Promise<Message[]>;
  abort(): void;
}

let ids = 1000;
async function listen(
  entry: Entry,
  notifications: Record<string, unknown>,
  user?: string,
): Promise<Stream> {
  const abort = new AbortController();
  const res = await entry.fetch(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      signal: abort.signal,
      headers: {
        host: '127.0.0.1',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
        ...(user === undefined ? {} : { 'x-user': user }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++ids,
        method: 'subscriptions/listen',
        params: { notifications, _meta: TASKS_META },
      }),
    }),
  );
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async (): Promise<Message | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split('\n').find((l) => l.startsWith('data: '));
        if (data !== undefined) return JSON.parse(data.slice(6)) as Message;
        continue;
      }
      const { done, value } = await reader.read();
      if (done) return undefined;
      buffer += decoder.decode(value, { stream: true });
    }
  };
  return {
    next,
    async until(stop) {
      const seen: Message[] = [];
      for (;;) {
        const m = await next();
        if (m === undefined) throw new Error(`stream ended after ${JSON.stringify(seen)}`);
        seen.push(m);
        if (stop(m)) return seen;
      }
    },
    abort: () => abort.abort(),
  };
}

/** The filter an acknowledgement says is honoured. */
const honouredBy = (ack: Message | undefined) =>
  (ack?.params?.notifications ?? {}) as Record<string, unknown>;
const isAck = (m: Message) => m.method === 'notifications/subscriptions/acknowledged';
const taskNote = (status: string) => (m: Message) =>
  m.method === 'notifications/tasks' && m.params?.status === status;

function build(store: Store, limits: Record<string, number> = {}) {
  const app = createServer({
    name: 'listen',
    version: '1',
    store,
    tasks: { limits: { progressEveryMs: 1, watchEveryMs: 20, ...limits } },
  }).tool('check', { task: 'optional' }, async (_args, ask, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    if (token !== undefined)
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1, total: 2, message: 'checking' },
      });
    const ok = await ask.form('go', form({ go: boolean({ title: 'Go on?' }) }));
    return ok.action === 'accept' && ok.content.go ? 'went on' : 'stopped';
  });
  return httpEntry(app, { authInfo: userAuth });
}

async function start(entry: Entry, user: string): Promise<string> {
  const r = await rpc(entry, 'tools/call', { name: 'check', arguments: {} }, { user });
  return String(r.result?.taskId);
}

describe('notifications/tasks on subscriptions/listen', () => {
  it('sends the whole task on every change until it ends, then closes like the SDK', async () => {
    const entry = build(memoryStore());
    const id = await start(entry, 'al');
    const parked = await until(entry, id, 'input_required', { user: 'al' });
    const stream = await listen(entry, { taskIds: [id] }, 'al');
    const [ack] = await stream.until(isAck);
    expect(honouredBy(ack).taskIds).toEqual([id]);
    // The state it is in now comes first: what tasks/get returns, stamped with the subscription.
    const now = await stream.until(taskNote('input_required'));
    const note = now.at(-1)?.params as Record<string, unknown>;
    expect(note.taskId).toBe(id);
    expect(note.statusMessage).toBe('checking');
    expect(note.inputRequests).toEqual(parked.inputRequests);
    expect((note._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId']).toBe(
      ids,
    );
    const [key] = Object.keys(parked.inputRequests ?? {});
    await rpc(
      entry,
      'tasks/update',
      { taskId: id, inputResponses: { [String(key)]: accept({ go: true }) } },
      { user: 'al' },
    );
    const rest = await stream.until(taskNote('completed'));
    const done = rest.at(-1)?.params as { result?: { content?: { text: string }[] } };
    expect(done.result?.content?.[0]?.text).toBe('went on');
    // No repeats of an unchanged task; after the end, the SDK's closing result, then the end.
    const closing = await stream.next();
    expect(closing?.id).toBe(ids);
    expect(closing).toHaveProperty('result');
    expect(await stream.next()).toBeUndefined();
  });

  it("keeps serving the SDK's own filter fields and honours no one else's task", async () => {
    const entry = build(memoryStore());
    const mine = await start(entry, 'al');
    const theirs = await start(entry, 'bo');
    const stream = await listen(
      entry,
      { taskIds: [mine, theirs, 'not-a-task'], toolsListChanged: true },
      'al',
    );
    const [ack] = await stream.until(isAck);
    const honoured = honouredBy(ack);
    expect(honoured.taskIds).toEqual([mine]);
    expect(honoured.toolsListChanged).toBe(true);
    const seen = await stream.until(taskNote('input_required'));
    expect(seen.every((m) => m.params?.taskId !== theirs)).toBe(true);
    await rpc(entry, 'tasks/cancel', { taskId: mine }, { user: 'al' });
    await stream.until(taskNote('cancelled'));
    stream.abort();
  });

  it('bounds streams per principal and frees a slot when the client goes away', async () => {
    const entry = build(memoryStore(), { maxTaskSubscriptions: 1, maxWatchedTasks: 1 });
    const a = await start(entry, 'al');
    const b = await start(entry, 'al');
    const first = await listen(entry, { taskIds: [a, b] }, 'al');
    const [ack1] = await first.until(isAck);
    expect(honouredBy(ack1).taskIds).toEqual([a]);
    const second = await listen(entry, { taskIds: [b] }, 'al');
    const [ack2] = await second.until(isAck);
    expect(honouredBy(ack2).taskIds).toEqual([]);
    second.abort();
    first.abort();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const third = await listen(entry, { taskIds: [b] }, 'al');
    const [ack3] = await third.until(isAck);
    expect(honouredBy(ack3).taskIds).toEqual([b]);
    third.abort();
  });

  it('sees changes another process writes to the same store', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'elicit-task-listen-')), 't.db');
    const port = await freePort();
    children.push(
      await startProcess('test/fixtures/task-replica.ts', [String(port), `sqlite:${file}`]),
    );
    const other = new URL(`http://127.0.0.1:${port}/mcp`);
    const store = await sqliteStore({ path: file });
    opened.push(store);
    // This process only reads: every change below is written by the other one.
    const here = httpEntry(
      createServer({
        name: 'listen-here',
        version: '1',
        store,
        tasks: { limits: { watchEveryMs: 20 } },
      }),
    );
    const id = String(
      (await rpc(other, 'tools/call', { name: 'job', arguments: {} })).result?.taskId,
    );
    const parked = await until(other, id, 'input_required');
    const stream = await listen(here, { taskIds: [id] });
    await stream.until(isAck);
    await stream.until(taskNote('input_required'));
    const [key] = Object.keys(parked.inputRequests ?? {});
    await rpc(other, 'tasks/update', {
      taskId: id,
      inputResponses: { [String(key)]: accept({ go: true }) },
    });
    const seen = await stream.until(taskNote('completed'));
    const done = seen.at(-1)?.params as { result?: { content?: { text: string }[] } };
    expect(done.result?.content?.[0]?.text).toMatch(/go:yes$/);
    stream.abort();
  });
});
