/**
 * The experimental tasks of 2025-11-25 on legacy sessions (the push engine). A task-augmented
 * `tools/call` answers a CreateTaskResult as soon as the record is in the store and runs the call
 * in the background under the task's own abort signal; `tasks/get`, `tasks/result`, `tasks/list`
 * and `tasks/cancel` read and move the record (records.ts) for its principal only; every move
 * sends `notifications/tasks/status`. What the handler sends the client meanwhile carries the
 * related-task `_meta` and rides the stream of an open `tasks/result` for the task (the spec's
 * requestor calls it on `input_required`), or the session's standalone stream.
 *
 * The SDK (2.4) ships the 2025-11-25 task schemas but no runtime, and its Server validates every
 * tools/call result as a CallToolResult, refusing a body that carries `task`
 * (`CallToolResultWireSchema`, run in `Server._wrapHandler`). The task branch therefore sits in
 * front of that validation, in `_wrapHandler` itself: the protected hook through which the SDK's
 * Server wraps every handler it stores. The call still runs through the SDK's wrapped handler
 * (request and result validation, the gate, the runner) when the task runs.
 *
 * A task here lives as long as the process that runs it: the push engine talks to the client
 * through this session, so it cannot be resumed elsewhere. The runner renews a lease on the
 * record; a task whose lease lapsed (its process died) is marked failed when next read.
 */

import {
  type CallToolResult,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type RequestId,
  type ServerContext,
  type Task,
} from '@modelcontextprotocol/server';
import { ElicitError } from '../../errors.ts';
import { ELICIT_TASK_SESSION_LIMIT } from '../../kernel/error-codes.ts';
import { readTaskParam } from '../../kernel/params-guard.ts';
import { untypedRegister, wrapStoredHandlers } from '../../kernel/sdk-seams.ts';
import type { Json, Store } from '../../kernel/store.ts';
import { whileLeased } from '../engines/task.ts';
import { checkLimits } from '../errors.ts';
import type { Faults } from '../faults.ts';
import { TOO_MANY_PENDING_CODE } from '../pending.ts';
import { storeFailureOnWire } from '../wire.ts';
import {
  createTask,
  isTaskId,
  isTerminal,
  leaseLapsed,
  listTaskPage,
  principalTag,
  readTask,
  type TaskChange,
  type TaskError,
  TaskLimitError,
  type TaskLimits,
  type TaskRecord,
  TaskTooLargeError,
  taskHeader,
  updateTask,
  without,
} from './records.ts';

/** How a tool runs as a task on a legacy session; `forbidden`: not at all. */
export type LegacyTaskMode = 'optional' | 'required' | 'forbidden';

/** Bounds of the 2025-11-25 tasks beyond the records' own (`TaskLimits`). */
export interface LegacyTaskLimits {
  /** Tasks running at once in one legacy session; default 16. */
  readonly maxRunningPerSession: number;
  /** Tasks per `tasks/list` page; default 50. */
  readonly listPageSize: number;
  /** `tasks/result` requests waiting at once in one session; default 32. */
  readonly maxResultWaitsPerSession: number;
  /**
   * Over Streamable HTTP, how long a request the task sends waits for an open `tasks/result` to
   * ride before it goes to the session's standalone stream instead; default 5000 ms.
   */
  readonly channelWaitMs: number;
}

export const DEFAULT_LEGACY_TASK_LIMITS: LegacyTaskLimits = Object.freeze({
  maxRunningPerSession: 16,
  listPageSize: 50,
  maxResultWaitsPerSession: 32,
  channelWaitMs: 5000,
});

/** One legacy session runs as many tasks as `tasks.maxRunningPerSession` allows. */
export class TaskSessionLimitError extends ElicitError {
  readonly limit: number;
  constructor(limit: number) {
    super(
      ELICIT_TASK_SESSION_LIMIT,
      `This session already runs ${limit} tasks, the limit (tasks.maxRunningPerSession); wait for one to finish or cancel one with tasks/cancel, then call again.`,
    );
    this.limit = limit;
  }
}

/** What this module needs from the server. */
export interface TaskServer {
  readonly options: { readonly tasks?: { readonly legacy?: Partial<LegacyTaskLimits> } };
  /** The task store and its limits, shared with the 2026-07-28 tasks. */
  readonly tasks: {
    readonly store: Store;
    readonly limits: TaskLimits;
    readonly owner: string;
    readonly faults: Faults;
  };
  principalOf(ctx: ServerContext): string;
}

/** A task running in this process. */
interface Run {
  readonly id: string;
  readonly principal: string;
  /** The session that runs it: what it sends goes through this one. */
  readonly mcp: McpServer;
  readonly abort: AbortController;
  /** Open `tasks/result` requests for the task in its session, latest last. */
  readonly results: RequestId[];
  /** Requests waiting for a `tasks/result` to ride. */
  readonly channelWaiters: Set<(id: RequestId | undefined) => void>;
  /** Resolved once this process has written the task's end (or given up on it). */
  readonly done: Promise<void>;
  /** Gives back the session's slot (once): when the run ends, or at once when it is cancelled. */
  readonly release: () => void;
  waiting: number;
}

/** Per server: the store, the limits, and the 2025-11-25 tasks this process runs. */
interface Host {
  readonly store: Store;
  readonly limits: TaskLimits;
  readonly legacy: LegacyTaskLimits;
  readonly owner: string;
  readonly faults: Faults;
  readonly runs: Map<string, Run>;
}

/** What marks a record as a 2025-11-25 task (the 2026-07-28 engine leaves these alone). */
const ERA = 'legacy';
const hosts = new WeakMap<TaskServer, Host>();

function hostOf(server: TaskServer): Host {
  let host = hosts.get(server);
  if (host === undefined) {
    const legacy = { ...DEFAULT_LEGACY_TASK_LIMITS, ...server.options.tasks?.legacy };
    checkLimits('tasks.legacy', legacy);
    const { store, limits, owner, faults } = server.tasks;
    host = { store, limits, legacy, owner, faults, runs: new Map() };
    hosts.set(server, host);
  }
  return host;
}

/** The record as the 2025-11-25 `Task`. */
export function wireTask(record: TaskRecord): Task {
  return {
    ...taskHeader(record),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
}

/** The request contexts of calls running as 2025-11-25 tasks. */
const taskRuns = new WeakSet<object>();

/**
 * Whether this call runs as a 2025-11-25 task (a handler may then make its own work a task, as
 * the gateway does toward a 2026-07-28 server).
 */
export const runsAsLegacyTask = (ctx: ServerContext): boolean => taskRuns.has(ctx.mcpReq);

/** Whether `record` is a 2025-11-25 task. */
export const isLegacyTask = (record: TaskRecord): boolean =>
  (record.context as { era?: unknown } | undefined)?.era === ERA;

const unknownTask = (id: unknown) =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Unknown task ${JSON.stringify(String(id)).slice(0, 60)}: it does not exist, has expired or is not yours`,
  );

/** What a failed call leaves on its task: the JSON-RPC error it would have answered. */
function taskError(error: unknown): TaskError {
  const store = storeFailureOnWire(error);
  if (store !== undefined)
    return { code: store.code, message: store.message, data: store.data as Json };
  if (error instanceof ProtocolError)
    return {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data as Json }),
    };
  return { code: ProtocolErrorCode.InternalError, message: 'Internal error' };
}

function refusal(error: TaskSessionLimitError | TaskLimitError): ProtocolError {
  return new ProtocolError(TOO_MANY_PENDING_CODE, error.message, {
    code: error.code,
    limit: error.limit,
  });
}

interface TaskParams {
  readonly taskId?: unknown;
  readonly cursor?: unknown;
}

type Handler = (request: never, ctx: ServerContext) => Promise<unknown>;

interface CallRequest {
  method: string;
  params?: { name?: unknown; arguments?: unknown; task?: unknown; [key: string]: unknown };
}

/**
 * Installs the tasks of 2025-11-25 on one legacy session's McpServer: the `tasks` capability,
 * the task branch of `tools/call`, and the four `tasks/*` handlers. Call before tools are
 * registered (McpServer installs `tools/call` with the first one). `support` holds every tool's
 * task support (`forbidden` for tools that are not tasks).
 */
/** One session's 2025-11-25 tasks: the state their parts below share, in one object. */
interface Session {
  readonly host: Host;
  readonly server: TaskServer;
  /** The session's McpServer: what its tasks send goes through it. */
  readonly mcp: McpServer;
  readonly support: ReadonlyMap<string, LegacyTaskMode>;
  /** Tasks this session runs now (tasks.legacy.maxRunningPerSession). */
  running: number;
  /** `tasks/result` requests this session waits on (tasks.legacy.maxResultWaitsPerSession). */
  resultWaits: number;
}

/** A `tasks/*` request as the handlers read it. */
interface TaskRequest {
  readonly params?: TaskParams;
}

export function installLegacyTasks(
  mcp: McpServer,
  server: TaskServer,
  support: ReadonlyMap<string, LegacyTaskMode>,
): void {
  const s: Session = { host: hostOf(server), server, mcp, support, running: 0, resultWaits: 0 };
  const low = mcp.server;
  low.registerCapabilities({
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  } as never);
  // Seam wrapHandler (kernel/sdk-seams.ts): the task branch in front of the SDK's validation.
  wrapStoredHandlers(low, (method, wrapped) =>
    method === 'tools/call'
      ? (((request: CallRequest, ctx: ServerContext) =>
          taskAugmentedCall(s, request, ctx, wrapped as Handler)) as Handler)
      : wrapped,
  );
  // Seam setRequestHandler: the SDK's handler types list no tasks/* methods (its 2025-11-25
  // registry does, and validates these requests against its task schemas before they reach the
  // handler). A store failure is answered as its wire error (-32603, data.code, a fixed message).
  const register =
    untypedRegister<(request: TaskRequest, ctx: ServerContext) => Promise<unknown>>(low);
  for (const [method, handle] of Object.entries(TASK_METHODS))
    register(method, async (request, ctx) => {
      try {
        return await handle(s, request, ctx);
      } catch (error) {
        throw storeFailureOnWire(error) ?? error;
      }
    });
}

/** Tells the session running a task that its status changed. */
function notify(run: Run | undefined, record: TaskRecord): void {
  if (run === undefined) return;
  void run.mcp.server
    .notification(
      { method: 'notifications/tasks/status', params: wireTask(record) as never },
      { relatedRequestId: run.results.at(-1) },
    )
    .catch(() => {});
}

/** Moves task `id` of `principal`; tells its session when its status changed. */
async function move(
  s: Session,
  id: string,
  principal: string,
  change: TaskChange,
): Promise<TaskRecord | undefined> {
  let before: TaskRecord['status'] | undefined;
  const updated = await updateTask(
    s.host.store,
    id,
    principal,
    (r) => {
      before = r.status;
      return change(r);
    },
    s.host.limits,
  );
  // Lease renewals change the record, not its status: only status moves are announced.
  if (updated?.changed === true && updated.record.status !== before)
    notify(s.host.runs.get(id), updated.record);
  return updated?.record;
}

/** The legacy task `id` of `principal`, marked failed first when the process running it died. */
async function read(s: Session, id: unknown, principal: string): Promise<TaskRecord> {
  if (!isTaskId(id)) throw unknownTask(id);
  const stored = await readTask(s.host.store, id, principal);
  const record = stored?.value as TaskRecord | undefined;
  if (record === undefined || !isLegacyTask(record)) throw unknownTask(id);
  if (isTerminal(record.status) || s.host.runs.has(id) || !leaseLapsed(record, Date.now()))
    return record;
  const failed = await move(s, id, principal, (r) =>
    isTerminal(r.status) || !leaseLapsed(r, Date.now())
      ? undefined
      : {
          ...without(r, 'lease'),
          status: 'failed',
          statusMessage: 'The process running this task stopped.',
          error: {
            code: ProtocolErrorCode.InternalError,
            message: 'The process running this task stopped before it finished.',
          },
        },
  );
  return failed ?? record;
}

/** The session to send on: an open `tasks/result` of the task, else the standalone stream. */
function channel(s: Session, run: Run): Promise<RequestId | undefined> {
  const open = run.results.at(-1);
  if (open !== undefined || !s.mcp.server.transport?.sessionId !== undefined)
    return Promise.resolve(open);
  return new Promise((resolve) => {
    const done = (id: RequestId | undefined) => {
      clearTimeout(timer);
      run.channelWaiters.delete(done);
      run.abort.signal.removeEventListener('abort', onAbort);
      resolve(id);
    };
    const onAbort = () => done(undefined);
    const timer = setTimeout(() => done(undefined), s.host.legacy.channelWaitMs);
    timer.unref?.();
    run.channelWaiters.add(done);
    run.abort.signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Runs one request to the client as part of the task: `input_required` while it waits. */
async function hold<T>(
  s: Session,
  run: Run,
  send: (relatedRequestId: RequestId | undefined) => Promise<T>,
) {
  if (run.waiting++ === 0)
    await move(s, run.id, run.principal, (r) =>
      r.status === 'working' ? { ...r, status: 'input_required' } : undefined,
    );
  try {
    return await send(await channel(s, run));
  } finally {
    if (--run.waiting === 0)
      await move(s, run.id, run.principal, (r) =>
        r.status === 'input_required' ? { ...r, status: 'working' } : undefined,
      ).catch(() => {});
  }
}

/**
 * The call's context, made the task's: its own abort signal, and everything it sends to the
 * client marked with the task and routed by `channel` (the call's own stream is closed once
 * the CreateTaskResult is sent).
 */
function taskContext(s: Session, ctx: ServerContext, run: Run): ServerContext {
  const req = ctx.mcpReq;
  const related = { [RELATED_TASK_META_KEY]: { taskId: run.id } };
  const marked = <P>(params: P): P => {
    const p = (params ?? {}) as { _meta?: Record<string, unknown> };
    return { ...p, _meta: { ...p._meta, ...related } } as P;
  };
  const routed = <O>(options: O, relatedRequestId: RequestId | undefined): O => ({
    ...options,
    relatedRequestId,
    signal: run.abort.signal,
  });
  const mcpReq = {
    ...req,
    signal: run.abort.signal,
    elicitInput: ((params, options) =>
      hold(s, run, (to) =>
        req.elicitInput(marked(params), routed(options, to)),
      )) as typeof req.elicitInput,
    requestSampling: ((params, options) =>
      hold(s, run, (to) =>
        req.requestSampling(marked(params), routed(options, to)),
      )) as typeof req.requestSampling,
    send: ((
      request: { method: string; params?: unknown },
      schemaOrOptions?: unknown,
      maybe?: unknown,
    ) =>
      hold(s, run, (to) => {
        const r = { ...request, params: marked(request.params) };
        // The session's request, not the call's `send`: that one always relates to the call's
        // own id, whose stream is closed once the CreateTaskResult went out.
        const request$ = run.mcp.server.request.bind(run.mcp.server) as (
          ...a: unknown[]
        ) => Promise<unknown>;
        return typeof (schemaOrOptions as { '~standard'?: unknown } | undefined)?.['~standard'] ===
          'object'
          ? request$(r, schemaOrOptions, routed(maybe ?? {}, to))
          : request$(r, routed(schemaOrOptions ?? {}, to));
      })) as typeof req.send,
    notify: ((notification: { method: string; params?: unknown }, options?: object) =>
      run.mcp.server.notification(
        { ...notification, params: marked(notification.params) } as never,
        { ...options, relatedRequestId: run.results.at(-1) },
      )) as typeof req.notify,
    log: ((level, data, logger) =>
      run.mcp.server
        .notification(
          { method: 'notifications/message', params: marked({ level, data, logger }) } as never,
          { relatedRequestId: run.results.at(-1) },
        )
        .catch(() => {})) as typeof req.log,
  };
  // The id a handler relates its own sends to: the open tasks/result, if any.
  Object.defineProperty(mcpReq, 'id', { get: () => run.results.at(-1), enumerable: true });
  taskRuns.add(mcpReq);
  return { ...ctx, mcpReq } as ServerContext;
}

/** The task branch of a task-augmented tools/call: create, start, answer at once. */
async function startTask(
  s: Session,
  request: CallRequest,
  ctx: ServerContext,
  wrapped: Handler,
): Promise<{ task: Task }> {
  const params = request.params ?? {};
  const task = readTaskParam(params.task);
  if (!task.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, task.problem);
  const args = params.arguments;
  // Checked before the task exists: a call the SDK would refuse must not become a failed task.
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args)))
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'params.arguments must be an object');
  const principal = s.server.principalOf(ctx);
  if (s.running >= s.host.legacy.maxRunningPerSession)
    throw refusal(new TaskSessionLimitError(s.host.legacy.maxRunningPerSession));
  let record: TaskRecord;
  try {
    record = await createTask(
      s.host.store,
      {
        principal,
        method: 'tools/call',
        name: String(params.name),
        args: (params.arguments ?? {}) as Json,
        context: { era: ERA },
        tags: [listTag(principal)],
        lease: { owner: s.host.owner, until: Date.now() + s.host.limits.leaseMs },
        ...(task.ttl === undefined ? {} : { ttlMs: task.ttl }),
      },
      s.host.limits,
    );
  } catch (error) {
    if (error instanceof TaskLimitError) throw refusal(error);
    if (error instanceof TaskTooLargeError)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, {
        code: error.code,
        limit: error.limit,
      });
    throw error;
  }
  let finish = () => {};
  let released = false;
  const run: Run = {
    id: record.id,
    principal,
    mcp: s.mcp,
    abort: new AbortController(),
    results: [],
    channelWaiters: new Set(),
    done: new Promise<void>((resolve) => {
      finish = resolve;
    }),
    release: () => {
      if (!released) s.running--;
      released = true;
    },
    waiting: 0,
  };
  s.host.runs.set(run.id, run);
  s.running++;
  const { task: _task, ...rest } = params;
  const call = { ...request, params: rest };
  s.host.faults.detach(
    'A task run',
    execute(s, run, call, taskContext(s, ctx, run), wrapped, record.ttlMs).finally(() => {
      s.host.runs.delete(run.id);
      run.release();
      finish();
    }),
  );
  return { task: wireTask(record) };
}

async function execute(
  s: Session,
  run: Run,
  request: CallRequest,
  ctx: ServerContext,
  wrapped: Handler,
  ttlMs: number,
): Promise<void> {
  const { id, principal } = run;
  let leaseUntil = Date.now() + s.host.limits.leaseMs;
  const renew = setInterval(
    () => {
      const until = Date.now() + s.host.limits.leaseMs;
      s.host.faults.detach(
        "A task's lease renewal",
        move(s, id, principal, (r) =>
          isTerminal(r.status) ? undefined : { ...r, lease: { owner: s.host.owner, until } },
        ).then(() => {
          leaseUntil = until;
        }),
      );
    },
    Math.max(1, Math.floor(s.host.limits.leaseMs / 3)),
  );
  renew.unref?.();
  // A task never outlives its record: past its TTL the run is abandoned.
  const expiry = setTimeout(() => run.abort.abort(new Error('task expired')), ttlMs);
  expiry.unref?.();
  let end: TaskChange;
  try {
    const result = (await wrapped(request as never, ctx)) as CallToolResult;
    end = (r) =>
      isTerminal(r.status)
        ? undefined
        : { ...without(r, 'lease'), status: 'completed', result: result as unknown as Json };
  } catch (error) {
    const failure = taskError(error);
    end = (r) =>
      isTerminal(r.status)
        ? undefined
        : { ...without(r, 'lease'), status: 'failed', error: failure };
  } finally {
    clearInterval(renew);
    clearTimeout(expiry);
  }
  try {
    // The end is written through a store outage for as long as the lease holds.
    await whileLeased(
      s.host.faults,
      () => leaseUntil,
      () => move(s, id, principal, end),
    );
  } catch (error) {
    // A result past tasks.maxRecordBytes cannot be kept: the task fails with the reason.
    const failure = taskError(
      error instanceof TaskTooLargeError
        ? new ProtocolError(ProtocolErrorCode.InternalError, error.message, { code: error.code })
        : error,
    );
    await move(s, id, principal, (r) =>
      isTerminal(r.status)
        ? undefined
        : { ...without(r, 'lease'), status: 'failed', error: failure },
    ).catch(() => {});
  }
}

/** Waits until task `id` is terminal, the request is cancelled, or the task is gone. */
async function untilTerminal(
  s: Session,
  id: string,
  principal: string,
  signal: AbortSignal,
): Promise<void> {
  for (;;) {
    const run = s.host.runs.get(id);
    const record = await read(s, id, principal);
    if (isTerminal(record.status) || signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      // Run here: wait for its end. Run elsewhere: look again after a poll interval.
      const timer = run === undefined ? setTimeout(done, record.pollIntervalMs) : undefined;
      void run?.done.then(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * `tools/call` in front of the SDK's own handler (`wrapped`): a task-augmented call becomes a
 * task, a call without `params.task` runs as usual, and a tool's task support is enforced.
 */
async function taskAugmentedCall(
  s: Session,
  request: CallRequest,
  ctx: ServerContext,
  wrapped: Handler,
): Promise<unknown> {
  const name = request.params?.name;
  const mode = typeof name === 'string' ? s.support.get(name) : undefined;
  if (request.params?.task === undefined) {
    if (mode === 'required')
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `Tool ${name} runs only as a task (execution.taskSupport "required"): call it with params.task`,
      );
    return wrapped(request as never, ctx);
  }
  if (mode === 'forbidden')
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `Tool ${name} does not run as a task (execution.taskSupport "forbidden"): call it without params.task`,
    );
  // An unknown tool: the SDK answers as for any call.
  if (mode === undefined) return wrapped(request as never, ctx);
  return startTask(s, request, ctx, wrapped).catch((error: unknown) => {
    throw storeFailureOnWire(error) ?? error;
  });
}

/** `tasks/get`. */
async function tasksGet(s: Session, request: TaskRequest, ctx: ServerContext): Promise<unknown> {
  const record = await read(s, request.params?.taskId, s.server.principalOf(ctx));
  return wireTask(record) as never;
}

/** `tasks/result`. */
async function tasksResult(s: Session, request: TaskRequest, ctx: ServerContext): Promise<unknown> {
  const principal = s.server.principalOf(ctx);
  const id = request.params?.taskId;
  let record = await read(s, id, principal);
  if (!isTerminal(record.status)) {
    if (s.resultWaits >= s.host.legacy.maxResultWaitsPerSession)
      throw new ProtocolError(
        TOO_MANY_PENDING_CODE,
        `This session already waits on ${s.host.legacy.maxResultWaitsPerSession} tasks/result requests (tasks.maxResultWaitsPerSession); wait for one to end.`,
        { limit: s.host.legacy.maxResultWaitsPerSession },
      );
    s.resultWaits++;
    const run = s.host.runs.get(record.id);
    const mine = run?.mcp === s.mcp ? run : undefined;
    mine?.results.push(ctx.mcpReq.id);
    for (const waiter of [...(mine?.channelWaiters ?? [])]) waiter(ctx.mcpReq.id);
    try {
      await untilTerminal(s, record.id, principal, ctx.mcpReq.signal);
    } finally {
      s.resultWaits--;
      const at = mine?.results.indexOf(ctx.mcpReq.id) ?? -1;
      if (at >= 0) mine?.results.splice(at, 1);
    }
    record = await read(s, id, principal);
  }
  if (record.status === 'completed') {
    const result = (record.result ?? {}) as { _meta?: Record<string, unknown> };
    return {
      ...result,
      _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId: record.id } },
    } as never;
  }
  if (record.status === 'failed' && record.error !== undefined)
    throw new ProtocolError(record.error.code, record.error.message, record.error.data);
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Task ${record.id} was ${record.status === 'cancelled' ? 'cancelled' : 'not completed'}: it has no result`,
  );
}

/** `tasks/list`. */
async function tasksList(s: Session, request: TaskRequest, ctx: ServerContext): Promise<unknown> {
  const principal = s.server.principalOf(ctx);
  // SDK v1's listTasks() sends no params at all: the first page.
  const cursor = request.params?.cursor;
  const after = cursor === undefined ? undefined : parseCursor(cursor);
  if (cursor !== undefined && after === undefined)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor for tasks/list');
  // One page read from the store in id order: the cost of a page, not of all the tasks.
  const { records, more } = await listTaskPage(
    s.host.store,
    listTag(principal),
    principal,
    after,
    s.host.legacy.listPageSize,
  );
  const page = records.filter(isLegacyTask);
  const last = page.at(-1);
  return {
    tasks: page.map(wireTask),
    ...(more && last !== undefined ? { nextCursor: makeCursor(last) } : {}),
  } as never;
}

/** `tasks/cancel`. */
async function tasksCancel(s: Session, request: TaskRequest, ctx: ServerContext): Promise<unknown> {
  const principal = s.server.principalOf(ctx);
  const id = request.params?.taskId;
  const record = await read(s, id, principal);
  if (isTerminal(record.status))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Cannot cancel task ${record.id}: it is already ${record.status}`,
    );
  const cancelled = await move(s, record.id, principal, (r) =>
    isTerminal(r.status)
      ? undefined
      : {
          ...without(r, 'lease'),
          status: 'cancelled',
          cancelRequested: true,
          statusMessage: 'Cancelled by the requestor.',
        },
  );
  // A cancelled run ends on its own (its asks see the abort); its slot is free at once.
  const run = s.host.runs.get(record.id);
  run?.abort.abort(new Error('task cancelled'));
  run?.release();
  if (cancelled === undefined) throw unknownTask(id);
  if (cancelled.status !== 'cancelled')
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Cannot cancel task ${record.id}: it is already ${cancelled.status}`,
    );
  return wireTask(cancelled) as never;
}

type TaskMethod = (s: Session, request: TaskRequest, ctx: ServerContext) => Promise<unknown>;

/** The four `tasks/*` methods of 2025-11-25. */
const TASK_METHODS: Readonly<Record<string, TaskMethod>> = {
  'tasks/get': tasksGet,
  'tasks/result': tasksResult,
  'tasks/list': tasksList,
  'tasks/cancel': tasksCancel,
};

/** The tag listing one principal's 2025-11-25 tasks (its 2026-07-28 tasks are not listed). */
const listTag = (principal: string): string => `2025-${principalTag(principal)}`;

/** `tasks/list` cursors: the id the last page ended at, base64url. */
function makeCursor(record: TaskRecord): string {
  return Buffer.from(record.id).toString('base64url');
}

function parseCursor(cursor: unknown): string | undefined {
  if (typeof cursor !== 'string' || cursor.length > 64) return undefined;
  const id = Buffer.from(cursor, 'base64url').toString();
  return isTaskId(id) ? id : undefined;
}
