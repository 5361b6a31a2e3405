/**
 * The wire of the tasks extension on 2026-07-28: `CreateTaskResult` for a tools/call that became
 * a task, and the `tasks/get`, `tasks/update` and `tasks/cancel` handlers. They are registered on
 * the SDK's low-level server with `setRequestHandler(method, { params }, handler)`, the seam the
 * SDK offers for extension methods (its own skills extension does the same), and the extension
 * is advertised with `registerCapabilities`. `tasks/result` and `tasks/list` are not registered,
 * so the SDK answers them -32601 as the extension requires.
 */
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import type { Json, Stored } from '../../kernel/store.ts';
import { declaresTasks, requestCaps, TASKS_EXTENSION, tasksRequired } from '../capabilities.ts';
import type { TaskStart } from '../engines/contract.ts';
import { drive, leaseFor, recover, type TaskHost, unknownTask } from '../engines/task.ts';
import { boundInputResponses } from '../gate.ts';
import { callContext, callStarted, heldByBackground } from '../server-pool.ts';
import { storeFailureOnWire } from '../wire.ts';
import { isLegacyTask } from './legacy-tasks.ts';
import {
  createTask,
  isTerminal,
  readTask,
  type TaskRecord,
  taskHeader,
  updateTask,
  without,
} from './records.ts';

/** What the task methods need from the server. */
export interface TaskMethodsServer {
  readonly tasks: TaskHost;
  principalOf(ctx: ServerContext): string;
}

/** The task fields every task response carries (integer milliseconds, ISO 8601 times). */
function taskFields(r: TaskRecord) {
  return {
    ...taskHeader(r),
    ttlMs: r.ttlMs,
    pollIntervalMs: r.pollIntervalMs,
  };
}

/** The flat `CreateTaskResult` (no `requestState`, no nested `task`). */
export const createTaskResult = (r: TaskRecord) => ({ resultType: 'task', ...taskFields(r) });

/** The input requests still waiting for an answer, under their wire keys. */
export function stillPending(r: TaskRecord): Record<string, Json> {
  const out: Record<string, Json> = {};
  const answered = r.answers ?? {};
  for (const [key, parked] of Object.entries(r.pending ?? {}))
    if (!Object.hasOwn(answered, key)) out[key] = (parked as { request: Json }).request;
  return out;
}

/** `tasks/get`'s DetailedTask: pending requests, or the inlined result or error once terminal. */
export function detailedTask(r: TaskRecord) {
  return {
    resultType: 'complete',
    ...taskFields(r),
    ...(r.status === 'input_required' ? { inputRequests: stillPending(r) } : {}),
    ...(r.status === 'completed' && r.result !== undefined ? { result: r.result } : {}),
    ...(r.status === 'failed' && r.error !== undefined ? { error: r.error } : {}),
  };
}

/**
 * Creates the task for a tools/call and starts its handler in the background; resolves with the
 * `CreateTaskResult` once the record is in the store.
 */
export async function startTask(server: TaskMethodsServer, init: TaskStart, ctx: ServerContext) {
  const host = server.tasks;
  const record = await createTask(
    host.store,
    {
      principal: init.principal,
      method: 'tools/call',
      name: init.name,
      args: init.args,
      journal: init.journal,
      context: init.context as unknown as Json,
      lease: leaseFor(host),
    },
    host.limits,
  );
  void drive(host, record.id, init.principal, ctx);
  return createTaskResult(record);
}

interface TaskIdParams {
  readonly taskId?: unknown;
}

/**
 * The params of the task methods pass through as they are: the extension check comes first
 * (-32021), then the task id (-32602), so they are checked in the handler. The SDK lifts
 * `inputResponses` out of the params into the request context, where tasks/update reads them.
 */
const PARAMS: StandardSchemaV1<unknown, TaskIdParams> = {
  '~standard': {
    version: 1,
    vendor: 'elicit',
    validate: (value: unknown) => ({ value: (value ?? {}) as TaskIdParams }),
  },
};

/** Registers the task methods on a 2026-07-28 McpServer and advertises the extension. */
export function installTaskMethods(mcp: McpServer, server: TaskMethodsServer): void {
  const host = server.tasks;
  const low = mcp.server;
  /**
   * A task method's handler, with a store failure answered as its wire error (-32603 with
   * data.code and a fixed message) rather than the SDK's -32603 with the error's own message.
   */
  const handle =
    <P>(run: (params: P, ctx: ServerContext) => Promise<never>) =>
    async (params: P, ctx: ServerContext): Promise<never> => {
      // On a pooled server it counts as running until it settles (server-pool.ts).
      const ended = callStarted(mcp);
      try {
        return await run(params, ctx);
      } catch (error) {
        throw storeFailureOnWire(error) ?? error;
      } finally {
        ended?.();
      }
    };
  /** The caller's task, after the extension and principal checks; -32602 when unknown. */
  async function own(method: string, params: TaskIdParams, ctx: ServerContext) {
    if (!declaresTasks(requestCaps(ctx))) throw tasksRequired(method);
    const principal = server.principalOf(ctx);
    if (typeof params.taskId !== 'string')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'taskId must be a string');
    const stored = await readTask(host.store, params.taskId, principal);
    // A 2025-11-25 task (legacy-tasks.ts) runs in its session's process: not one of these.
    if (stored === undefined || isLegacyTask(stored.value as TaskRecord)) throw unknownTask();
    return { principal, record: stored.value as TaskRecord, stored };
  }

  low.setRequestHandler(
    'tasks/get',
    { params: PARAMS },
    handle(async (params, ctx) => {
      const { principal, record } = await own('tasks/get', params, ctx);
      // One read, unless this process just took the task over (then it changed: read it again).
      if (!(await recover(host, record))) return detailedTask(record) as never;
      // The task runs on with this request's context: its server is not reused.
      heldByBackground(mcp);
      void drive(host, record.id, principal, ctx);
      const now = await readTask(host.store, record.id, principal);
      return detailedTask((now?.value ?? record) as TaskRecord) as never;
    }),
  );

  low.setRequestHandler(
    'tasks/update',
    { params: PARAMS },
    handle(async (params, ctx) => {
      const { principal, record, stored } = await own('tasks/update', params, ctx);
      const responses = (ctx.mcpReq.inputResponses ?? {}) as Record<string, unknown>;
      boundInputResponses(responses, host.replay.limits);
      const keys = Object.keys(responses);
      // Answers for keys the task is not waiting on (or already has) are ignored; the first
      // answer for a key is the one kept. The last missing answer moves the task to `working`
      // and this process runs it, from the record just written (two store round trips in all:
      // the read above and the compare-and-set). The run starts as soon as the store has
      // committed that write (on SQLite before its flush, so the run's writes of this turn share
      // it); whatever it would do outside the store waits until the answer is durable, and the
      // ack below is sent only then.
      let written: (error?: unknown) => void = () => {};
      const durable = new Promise<void>((resolve, reject) => {
        written = (error) => (error === undefined ? resolve() : reject(error));
      });
      const start = (now: Stored<TaskRecord & Json>) => {
        if (now.value.status !== 'working') return;
        // The run counts as a call running on this server, as a handler whose client hung up
        // does: the server goes back to the pool once the run has ended (most end before the
        // ack), and the run's ways out through it stop working when this exchange closes.
        const ended = callStarted(mcp);
        void drive(host, record.id, principal, callContext(mcp, ctx), now, durable).finally(ended);
      };
      const updated = updateTask(
        host.store,
        record.id,
        principal,
        (r) => {
          if (r.status !== 'input_required') return undefined;
          const pending = r.pending ?? {};
          const answers: Record<string, Json> = { ...r.answers };
          let added = false;
          for (const key of keys) {
            if (!Object.hasOwn(pending, key) || Object.hasOwn(answers, key)) continue;
            answers[key] = responses[key] as Json;
            added = true;
          }
          if (!added) return undefined;
          const complete = Object.keys(pending).every((k) => Object.hasOwn(answers, k));
          if (!complete) return { ...r, answers };
          return { ...r, answers, status: 'working', lease: leaseFor(host) };
        },
        host.limits,
        Date.now,
        stored,
        start,
      );
      updated.then(() => written(), written);
      await updated;
      return { resultType: 'complete' } as never;
    }),
  );

  low.setRequestHandler(
    'tasks/cancel',
    { params: PARAMS },
    handle(async (params, ctx) => {
      const { principal, record } = await own('tasks/cancel', params, ctx);
      await updateTask(
        host.store,
        record.id,
        principal,
        (r) =>
          isTerminal(r.status)
            ? undefined
            : {
                ...without(r, 'answers', 'pending', 'lease', 'journal', 'progress'),
                status: 'cancelled',
                cancelRequested: true,
              },
        host.limits,
      );
      host.running.get(record.id)?.abort();
      return { resultType: 'complete' } as never;
    }),
  );

  low.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } } as never);
}
