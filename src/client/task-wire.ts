/**
 * The tasks extension on the SDK v2 `Client`: the SDK (2.4) knows no `resultType: "task"` and
 * rejects such a result with a bare UnsupportedResultType error that drops the task. A hook on
 * the client's transport (chained in front of the SDK's own `onmessage`, the seam `connect`
 * documents) turns that one kind of response into an error whose data is a `TaskCreated`
 * holding the task, so the caller's promise rejects with it and the task can be followed. The
 * task methods go out through `client.request` with a result schema (the SDK lets
 * `tasks/get`/`tasks/cancel` through on 2026-07-28 when a schema is given, and `tasks/update`
 * is an extension method to it).
 */

import type { Client } from '@modelcontextprotocol/client';
import { beforeMessages, type MessageTransport } from '../kernel/sdk-seams.ts';
import type { TaskWire } from './tasks.ts';

/** A `CreateTaskResult` carried through the SDK's error path; never built from wire data. */
export class TaskCreated {
  readonly result: Readonly<Record<string, unknown>>;
  constructor(result: Readonly<Record<string, unknown>>) {
    this.result = result;
  }
}

// Not a code any peer's error can be mistaken for: a task is recognised by `data instanceof TaskCreated`.
const TASK_CREATED_CODE = -32099;

const hooked = new WeakSet<object>();

/** Installs the hook on the client's current transport (once per transport). */
export function hookTaskResults(client: Client): void {
  const transport = client.transport as (MessageTransport & object) | undefined;
  if (transport === undefined || hooked.has(transport)) return;
  hooked.add(transport);
  // Seam transportMessages (kernel/sdk-seams.ts).
  beforeMessages(transport, (message) => {
    const m = message as { id?: unknown; result?: unknown; error?: unknown } | null;
    const result = m?.result as Record<string, unknown> | null | undefined;
    if (
      m !== null &&
      m.id !== undefined &&
      result !== null &&
      typeof result === 'object' &&
      !Array.isArray(result) &&
      result.resultType === 'task'
    ) {
      delete m.result;
      m.error = {
        code: TASK_CREATED_CODE,
        message: 'The server answered with a task.',
        data: new TaskCreated(result),
      };
    }
    return true;
  });
}

/** The task a request was answered with, or undefined for any other error. */
export function createdTask(error: unknown): Readonly<Record<string, unknown>> | undefined {
  const data = (error as { data?: unknown } | null)?.data;
  return data instanceof TaskCreated ? data.result : undefined;
}

/** Any object, untouched: the follower checks every field itself. */
const ANY_RESULT = {
  '~standard': {
    version: 1 as const,
    vendor: 'elicit',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};

/** The three task methods through the SDK client (envelope, Mcp-Name header and all). */
export function sdkTaskWire(client: Client, timeoutMs: number): TaskWire {
  return {
    async get(taskId, signal) {
      return client.request({ method: 'tasks/get', params: { taskId } } as never, ANY_RESULT, {
        signal,
        timeout: timeoutMs,
      });
    },
    async update(taskId, inputResponses, signal) {
      await client.request(
        { method: 'tasks/update', params: { taskId, inputResponses } } as never,
        ANY_RESULT,
        { signal, timeout: timeoutMs },
      );
    },
    async cancel(taskId) {
      await client.request({ method: 'tasks/cancel', params: { taskId } } as never, ANY_RESULT, {
        timeout: timeoutMs,
      });
    },
  };
}
