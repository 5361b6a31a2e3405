/**
 * A 2025-11-25 task-augmented `tools/call`, for tools that declare `execution.taskSupport:
 * "required"` (a plain call is refused with -32601). The SDK's typed surface leaves the task
 * methods out on this revision, so the requests go through `client.request` with a pass-through
 * result schema: `tools/call` with `task`, then `tasks/get` at the server's interval (clamped)
 * until the task ends or needs input, then `tasks/result` (during which the server's questions
 * arrive as ordinary elicitation requests); `tasks/cancel` when the person cancels.
 */
import type { Client } from '@modelcontextprotocol/client';
import { inert } from '../../client/inert.ts';
import type { TaskState, TaskStatus } from '../../client/tasks.ts';

const ANY_RESULT = {
  '~standard': {
    version: 1 as const,
    vendor: 'elicit',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};

const POLL_MIN_MS = 100;
const POLL_MAX_MS = 5_000;
const TASK_TTL_MS = 10 * 60_000;
const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** True when the tool can only be called as a task. */
export function needsTask(tool: { execution?: { taskSupport?: unknown } } | undefined): boolean {
  return tool?.execution?.taskSupport === 'required';
}

export async function callAsLegacyTask(
  client: Client,
  params: { name: string; arguments?: Record<string, unknown> },
  options: { signal?: AbortSignal; timeout?: number; onTask?: (state: TaskState) => void },
): Promise<Record<string, unknown>> {
  const request = (method: string, p: Record<string, unknown>, signal?: AbortSignal) =>
    client.request({ method, params: p } as never, ANY_RESULT, {
      ...(signal === undefined ? {} : { signal }),
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    }) as Promise<Record<string, unknown>>;
  const created = await request(
    'tools/call',
    { ...params, task: { ttl: TASK_TTL_MS } },
    options.signal,
  );
  const task = created.task as Record<string, unknown> | undefined;
  // A server may answer at once with the result after all.
  if (task === undefined || typeof task.taskId !== 'string') return created;
  const taskId = task.taskId;
  let polls = 0;
  let state: Record<string, unknown> = task;
  const report = () =>
    options.onTask?.({
      taskId: inert(taskId, 200, false),
      status: String(state.status) as TaskStatus,
      statusMessage:
        typeof state.statusMessage === 'string'
          ? inert(state.statusMessage, 200, false)
          : undefined,
      polls,
    });
  const cancel = () => void request('tasks/cancel', { taskId }).catch(() => {});
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    report();
    while (!ENDED.has(String(state.status)) && state.status !== 'input_required') {
      const interval = typeof state.pollInterval === 'number' ? state.pollInterval : 1_000;
      await new Promise((r) =>
        setTimeout(r, Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, interval))),
      );
      options.signal?.throwIfAborted();
      state = await request('tasks/get', { taskId }, options.signal);
      polls++;
      report();
    }
    // Input required: tasks/result carries the server's questions; ended: it carries the result.
    return await request('tasks/result', { taskId }, options.signal);
  } finally {
    options.signal?.removeEventListener('abort', cancel);
  }
}
