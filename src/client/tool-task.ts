/**
 * A 2025-11-25 task-augmented `tools/call`, for tools that declare `execution.taskSupport`
 * (`"required"`: a plain call is refused with -32601). The SDK's typed surface leaves the task
 * methods out on this revision, so the requests go through `client.request` with a
 * pass-through result schema: `tools/call` with `task`, then `tasks/get` at the server's
 * `pollInterval` (clamped) until the task ends or needs input, then `tasks/result` (while it
 * waits, the server's questions arrive as ordinary `elicitation/create` requests tied to the
 * task, which the elicitation handler serves); `tasks/cancel` when the call is aborted or runs
 * past its limits.
 */
import type { Client } from '@modelcontextprotocol/client';
import { isTaskStatus } from '../kernel/tasks.ts';
import { inert } from './inert.ts';
import {
  DEFAULT_FOLLOW_TASK_LIMITS,
  type FollowTaskLimits,
  TaskCancelled,
  TaskRefused,
  type TaskState,
  type TaskStatus,
  TaskTimeout,
  taskIdOf,
} from './tasks.ts';

/** Any object, untouched: every field is checked here. */
const ANY_RESULT = {
  '~standard': {
    version: 1 as const,
    vendor: 'elicit',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};

/** True when a tool (as `tools/list` describes it) can only be called as a task. */
export function needsTask(tool: { execution?: { taskSupport?: unknown } } | undefined): boolean {
  return tool?.execution?.taskSupport === 'required';
}

export interface ToolTaskOptions {
  /** Aborting sends `tasks/cancel` and rejects with TaskCancelled. */
  readonly signal?: AbortSignal;
  /** Called on creation and after every poll. */
  readonly onTask?: (state: TaskState) => void;
  readonly limits?: Partial<FollowTaskLimits>;
  /** The task's requested time to live; default 10 minutes. */
  readonly ttlMs?: number;
  /** Each `tools/call`, `tasks/get` and `tasks/cancel`; default 30 s. */
  readonly requestTimeoutMs?: number;
  /** `tasks/result`, which waits for the task's end (questions included); default limits.maxWaitMs. */
  readonly resultTimeoutMs?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Calls a tool as a 2025-11-25 task and resolves with its result (`tasks/result`): a tool
 * result, or the JSON-RPC error the server gives for a failed task. A server that answers with
 * the result at once (no `task`) is answered with that. Rejects with TaskCancelled,
 * TaskRefused or TaskTimeout, each after `tasks/cancel`.
 */
export async function callToolAsTask(
  client: Client,
  params: { readonly name: string; readonly arguments?: Record<string, unknown> },
  options: ToolTaskOptions = {},
): Promise<Record<string, unknown>> {
  const limits: FollowTaskLimits = { ...DEFAULT_FOLLOW_TASK_LIMITS, ...options.limits };
  const timeout = options.requestTimeoutMs ?? 30_000;
  const outer = options.signal;
  const request = (method: string, p: Record<string, unknown>, long = false) =>
    client.request({ method, params: p } as never, ANY_RESULT, {
      ...(outer === undefined ? {} : { signal: outer }),
      timeout: long ? (options.resultTimeoutMs ?? limits.maxWaitMs) : timeout,
    }) as Promise<Record<string, unknown>>;

  const created = await request('tools/call', {
    ...params,
    task: { ttl: options.ttlMs ?? 10 * 60_000 },
  });
  // A server may answer at once with the result after all.
  if (!isObject(created.task)) return created;
  const taskId = taskIdOf(created.task, limits);
  const deadline = Date.now() + limits.maxWaitMs;
  let polls = 0;
  let task: Record<string, unknown> = created.task;

  const stop = async (error: Error): Promise<never> => {
    // Without the call's signal: the abort must not stop the cancel itself.
    await client
      .request({ method: 'tasks/cancel', params: { taskId } } as never, ANY_RESULT, { timeout })
      .catch(() => {});
    throw error;
  };
  const status = (): TaskStatus => {
    if (!isTaskStatus(task.status))
      throw new TaskRefused(
        `The server's task has no known status (${inert(JSON.stringify(task.status) ?? '', 40, false)}); it was cancelled.`,
      );
    return task.status;
  };
  const report = (s: TaskStatus) =>
    options.onTask?.({
      taskId,
      status: s,
      statusMessage:
        typeof task.statusMessage === 'string'
          ? inert(task.statusMessage, limits.maxStatusChars, false)
          : undefined,
      polls,
    });

  try {
    let s = status();
    report(s);
    while (s === 'working') {
      const interval =
        typeof task.pollInterval === 'number' && Number.isFinite(task.pollInterval)
          ? Math.min(limits.maxPollMs, Math.max(limits.minPollMs, task.pollInterval))
          : limits.defaultPollMs;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          outer?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, interval);
        outer?.addEventListener('abort', done, { once: true });
      });
      if (outer?.aborted) return await stop(new TaskCancelled(taskId, true));
      if (polls >= limits.maxPolls || Date.now() >= deadline)
        return await stop(
          new TaskTimeout(
            taskId,
            polls >= limits.maxPolls
              ? `The task did not finish within ${limits.maxPolls} polls (limits.maxPolls); it was cancelled.`
              : `The task did not finish within ${Math.round(limits.maxWaitMs / 1000)} s (limits.maxWaitMs); it was cancelled.`,
          ),
        );
      const next = await request('tasks/get', { taskId });
      polls++;
      if (next.taskId !== undefined && next.taskId !== taskId)
        return await stop(
          new TaskRefused('The server answered tasks/get about another task; it was cancelled.'),
        );
      task = next;
      s = status();
      report(s);
    }
    if (s === 'cancelled') throw new TaskCancelled(taskId, false);
    // Input required: tasks/result carries the questions until the end; ended: the result.
    return await request('tasks/result', { taskId }, true);
  } catch (error) {
    if (error instanceof TaskRefused) return await stop(error);
    if (outer?.aborted && !(error instanceof TaskCancelled))
      return await stop(new TaskCancelled(taskId, true));
    throw error;
  }
}
