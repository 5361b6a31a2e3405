/**
 * The client as a task receiver (2025-11-25): a server may send `elicitation/create` as a task
 * (`params.task`, once the client declared `tasks.requests.elicitation.create`). The client
 * answers a CreateTaskResult at once, runs the request through the same handler (and so the same
 * pipeline) in the background, and serves `tasks/get`, `tasks/result` (blocking until the person
 * is done), `tasks/list` and `tasks/cancel` for it. Tasks live in this client only, bounded in
 * number and in time.
 *
 * The SDK's Client (2.4) validates every `elicitation/create` result as an ElicitResult (in
 * `Client._wrapHandler`), so a CreateTaskResult cannot come out of a registered handler; the
 * task branch sits in front of that validation, in `_wrapHandler` itself, the protected hook the
 * Client wraps each stored handler with. The background run still goes through the SDK's
 * wrapped handler, so the request and the person's answer are validated as for any request.
 */

import type { Client } from '@modelcontextprotocol/client';
import {
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/client';
import { ElicitError } from '../errors.ts';
import { ELICIT_CLIENT_TASK_LIMIT } from '../kernel/error-codes.ts';
import { readTaskParam } from '../kernel/params-guard.ts';
import { pooledRandom } from '../kernel/random.ts';
import { untypedRegister, wrapStoredHandlers } from '../kernel/sdk-seams.ts';
import { LimitOptionError } from '../schema/index.ts';

export interface TaskReceiverLimits {
  /** Tasks kept at once, running or finished (until their TTL); default 16. */
  readonly maxTasks: number;
  /** The longest TTL granted; a shorter one asked for is kept. Default 10 minutes. */
  readonly ttlMs: number;
  /** The poll interval suggested to the server; default 1000 ms. */
  readonly pollIntervalMs: number;
  /** Tasks per `tasks/list` page; default 20. */
  readonly listPageSize: number;
}

export const DEFAULT_TASK_RECEIVER_LIMITS: TaskReceiverLimits = Object.freeze({
  maxTasks: 16,
  ttlMs: 600_000,
  pollIntervalMs: 1000,
  listPageSize: 20,
});

/** A server asked for more task-augmented elicitations than this client keeps at once. */
export class TaskReceiverLimitError extends ElicitError {
  readonly limit: number;
  constructor(limit: number) {
    super(
      ELICIT_CLIENT_TASK_LIMIT,
      `This client already keeps ${limit} tasks (receiveTasks.maxTasks); wait for some to finish and expire, or cancel some with tasks/cancel.`,
    );
    this.limit = limit;
  }
}

type Status = 'working' | 'completed' | 'failed' | 'cancelled';

interface Entry {
  readonly taskId: string;
  status: Status;
  statusMessage?: string;
  readonly createdAt: string;
  lastUpdatedAt: string;
  readonly ttl: number;
  readonly abort: AbortController;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  readonly done: Promise<void>;
  readonly settle: () => void;
  readonly expiry: ReturnType<typeof setTimeout>;
}

type Handler = (request: never, ctx: { mcpReq: { signal: AbortSignal } }) => Promise<unknown>;

function checkTaskLimits(limits: TaskReceiverLimits): void {
  for (const [name, value] of Object.entries(limits))
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
      throw new LimitOptionError(`receiveTasks.${name}`, value);
}

const hex = (bytes: Uint8Array) =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

const unknownTask = () =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    'Unknown task: it does not exist here or has expired',
  );

/**
 * Makes `client` a receiver of task-augmented `elicitation/create`: declares the capability and
 * serves the `tasks/*` requests. Call before the `elicitation/create` handler is registered.
 */
export function installTaskReceiver(client: Client, partial?: Partial<TaskReceiverLimits>): void {
  const limits = { ...DEFAULT_TASK_RECEIVER_LIMITS, ...partial };
  checkTaskLimits(limits);
  client.registerCapabilities({
    tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } },
  } as never);
  const tasks = new Map<string, Entry>();

  const view = (e: Entry) => ({
    taskId: e.taskId,
    status: e.status,
    ...(e.statusMessage === undefined ? {} : { statusMessage: e.statusMessage }),
    createdAt: e.createdAt,
    lastUpdatedAt: e.lastUpdatedAt,
    ttl: e.ttl,
    pollInterval: limits.pollIntervalMs,
  });

  /** Ends a task once (a terminal task never moves again) and tells the server. */
  const end = (e: Entry, status: Status, patch: Partial<Entry> = {}) => {
    if (e.status !== 'working') return;
    Object.assign(e, patch, { status, lastUpdatedAt: new Date().toISOString() });
    e.settle();
    void client
      .notification({ method: 'notifications/tasks/status', params: view(e) } as never)
      .catch(() => {});
  };

  function start(
    request: { params: Record<string, unknown> },
    ctx: { mcpReq: { signal: AbortSignal } },
    wrapped: Handler,
  ) {
    const task = readTaskParam(request.params.task);
    if (!task.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, task.problem);
    if (tasks.size >= limits.maxTasks) {
      const error = new TaskReceiverLimitError(limits.maxTasks);
      throw new ProtocolError(-32000, error.message, { code: error.code, limit: error.limit });
    }
    const ttl = task.ttl === undefined ? limits.ttlMs : Math.min(task.ttl, limits.ttlMs);
    const taskId = hex(pooledRandom(16));
    const now = new Date().toISOString();
    let settle = () => {};
    const abort = new AbortController();
    const expiry = setTimeout(() => {
      tasks.delete(taskId);
      abort.abort(new Error('task expired'));
      settle();
    }, ttl);
    (expiry as { unref?: () => void }).unref?.();
    const entry: Entry = {
      taskId,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      abort,
      done: new Promise<void>((resolve) => {
        settle = resolve;
      }),
      settle: () => settle(),
      expiry,
    };
    tasks.set(taskId, entry);
    const { task: _task, ...rest } = request.params;
    // The server's own request may end (or be cancelled) now: the task has its own signal.
    const taskCtx = { ...ctx, mcpReq: { ...ctx.mcpReq, signal: abort.signal } };
    void wrapped({ ...request, params: rest } as never, taskCtx).then(
      (result) => end(entry, 'completed', { result: result as Record<string, unknown> }),
      (error: unknown) =>
        end(entry, 'failed', {
          error:
            error instanceof ProtocolError
              ? { code: error.code, message: error.message, data: error.data }
              : { code: ProtocolErrorCode.InternalError, message: 'Internal error' },
        }),
    );
    return { task: view(entry) };
  }

  // Seam wrapHandler (kernel/sdk-seams.ts): the task branch in front of the SDK's validation.
  wrapStoredHandlers(client, (method, sdkWrapped) => {
    const wrapped = sdkWrapped as Handler;
    if (method !== 'elicitation/create') return wrapped;
    return (async (request: { params?: Record<string, unknown> }, ctx: Parameters<Handler>[1]) =>
      request.params?.task === undefined
        ? wrapped(request as never, ctx)
        : start(request as { params: Record<string, unknown> }, ctx, wrapped)) as Handler;
  });

  const find = (params: { taskId?: unknown } | undefined) => {
    const e = typeof params?.taskId === 'string' ? tasks.get(params.taskId) : undefined;
    if (e === undefined) throw unknownTask();
    return e;
  };
  // The SDK's handler types list no tasks/* methods (its 2025-11-25 registry does, and validates
  // these requests against its task schemas before they reach the handler).
  const on =
    untypedRegister<
      (
        request: { params?: { taskId?: unknown; cursor?: unknown } },
        ctx: { mcpReq: { signal: AbortSignal } },
      ) => Promise<unknown>
    >(client);

  on('tasks/get', async (request) => view(find(request.params)));

  on('tasks/result', async (request, ctx) => {
    const e = find(request.params);
    if (e.status === 'working') {
      const signal = ctx.mcpReq.signal;
      await new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve(), { once: true });
        void e.done.then(resolve);
      });
    }
    if (e.status === 'completed')
      return {
        ...e.result,
        _meta: {
          ...(e.result?._meta as Record<string, unknown> | undefined),
          [RELATED_TASK_META_KEY]: { taskId: e.taskId },
        },
      };
    if (e.status === 'failed' && e.error !== undefined)
      throw new ProtocolError(e.error.code, e.error.message, e.error.data);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Task ${e.taskId} was ${e.status === 'cancelled' ? 'cancelled' : 'not completed'}: it has no result`,
    );
  });

  on('tasks/list', async (request) => {
    const all = [...tasks.values()];
    // SDK v1's listTasks() sends no params at all: the first page.
    const cursor = request.params?.cursor;
    let start = 0;
    if (cursor !== undefined) {
      const at = typeof cursor === 'string' ? all.findIndex((e) => e.taskId === cursor) : -1;
      if (at < 0)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor for tasks/list');
      start = at + 1;
    }
    const page = all.slice(start, start + limits.listPageSize);
    const last = page.at(-1);
    return {
      tasks: page.map(view),
      ...(start + page.length < all.length && last !== undefined
        ? { nextCursor: last.taskId }
        : {}),
    };
  });

  on('tasks/cancel', async (request) => {
    const e = find(request.params);
    if (e.status !== 'working')
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Cannot cancel task ${e.taskId}: it is already ${e.status}`,
      );
    end(e, 'cancelled', { statusMessage: 'Cancelled by the requestor.' });
    e.abort.abort(new Error('task cancelled'));
    return view(e);
  });
}
