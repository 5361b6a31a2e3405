/**
 * Following a 2026-07-28 task (the `io.modelcontextprotocol/tasks` extension) to its end: poll
 * `tasks/get` at the server's interval (clamped), show each new input request once through the
 * host's answerer and deliver the answer with `tasks/update`, then return the inlined result or
 * throw a named error. Everything the server sends is bounded. No SDK imports: attach.ts
 * supplies the wire (`TaskWire`) through the SDK client.
 */

import { ElicitError } from '../errors.ts';
import {
  ELICIT_TASK_CANCELLED,
  ELICIT_TASK_FAILED,
  ELICIT_TASK_REFUSED,
  ELICIT_TASK_TIMEOUT,
} from '../kernel/error-codes.ts';
import { setOwn } from '../kernel/own.ts';
import { inert } from './inert.ts';

/** The extension's identifier, declared under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
const STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/** What a host shows while a task runs. Text is already inert. */
export interface TaskState {
  readonly taskId: string;
  readonly status: TaskStatus;
  /** The server's status message, inert and cut to `maxStatusChars`. */
  readonly statusMessage: string | undefined;
  /** `tasks/get` calls so far. */
  readonly polls: number;
}

/** Every bound on what a server can make a followed task cost. */
export interface TaskLimits {
  /** Poll interval used when the server names none; default 1 s. */
  readonly defaultPollMs: number;
  /** The server's `pollIntervalMs` is clamped into [minPollMs, maxPollMs]; default 200 ms … 30 s. */
  readonly minPollMs: number;
  readonly maxPollMs: number;
  /** `tasks/get` calls for one task; default 20 000. */
  readonly maxPolls: number;
  /** Time from creation to a terminal status, answering included; default 24 h. */
  readonly maxWaitMs: number;
  /** Characters of a task id; default 256. */
  readonly maxTaskIdLength: number;
  /** Input requests in one `tasks/get`; default 16. */
  readonly maxInputRequests: number;
  /** Distinct input request keys over the task's life; default 1000. */
  readonly maxInputKeys: number;
  /** Characters of one input request key; default 256. */
  readonly maxKeyLength: number;
  /** Characters of a status message shown; default 200. */
  readonly maxStatusChars: number;
  /** Characters of a failed task's error message shown; default 500. */
  readonly maxErrorChars: number;
}

export const DEFAULT_TASK_LIMITS: TaskLimits = Object.freeze({
  defaultPollMs: 1_000,
  minPollMs: 200,
  maxPollMs: 30_000,
  maxPolls: 20_000,
  maxWaitMs: 24 * 60 * 60 * 1000,
  maxTaskIdLength: 256,
  maxInputRequests: 16,
  maxInputKeys: 1_000,
  maxKeyLength: 256,
  maxStatusChars: 200,
  maxErrorChars: 500,
});

/** The three task methods, sent by the host's SDK client. */
export interface TaskWire {
  get(taskId: string, signal: AbortSignal): Promise<unknown>;
  update(
    taskId: string,
    inputResponses: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<void>;
  cancel(taskId: string): Promise<void>;
}

/** One input request of a task, as the server sent it. */
export interface TaskInputRequest {
  readonly method: string;
  readonly params?: unknown;
}

/**
 * Answers one input request (the pipeline for `elicitation/create`). Returns the response to
 * send; throws `TaskRefused` for requests this client does not serve.
 */
export type TaskAnswerer = (
  key: string,
  request: TaskInputRequest,
  signal: AbortSignal,
) => Promise<unknown>;

export interface FollowOptions {
  /** Aborting sends `tasks/cancel` and rejects with TaskCancelled. */
  readonly signal?: AbortSignal;
  /** Called on creation and after every poll. */
  readonly onStatus?: (state: TaskState) => void;
  readonly limits?: Partial<TaskLimits>;
}

/** The task ended in `failed`: `error` is the inlined JSON-RPC error (message inert). */
export class TaskFailed extends ElicitError {
  readonly taskId: string;
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
  constructor(
    taskId: string,
    error: { readonly code: number; readonly message: string; readonly data?: unknown },
  ) {
    super(ELICIT_TASK_FAILED, `The task failed on the server: ${error.message} (${error.code}).`);
    this.taskId = taskId;
    this.error = error;
  }
}

/** The task ended in `cancelled`, or this client cancelled it (the signal aborted). */
export class TaskCancelled extends ElicitError {
  readonly taskId: string;
  constructor(taskId: string, byClient: boolean) {
    super(
      ELICIT_TASK_CANCELLED,
      byClient
        ? 'The task was cancelled; the server was told to stop (tasks/cancel).'
        : 'The server cancelled the task.',
    );
    this.taskId = taskId;
  }
}

/** The server sent something outside this client's bounds; the task was cancelled. */
export class TaskRefused extends ElicitError {
  constructor(message: string) {
    super(ELICIT_TASK_REFUSED, message);
  }
}

/** The task did not end within `maxPolls` / `maxWaitMs`; it was cancelled. */
export class TaskTimeout extends ElicitError {
  readonly taskId: string;
  constructor(taskId: string, message: string) {
    super(ELICIT_TASK_TIMEOUT, message);
    this.taskId = taskId;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

// Printable ASCII only: the id travels in the Mcp-Name header and is shown to people.
const TASK_ID = /^[\x21-\x7e]+$/;

/** The task id of a `CreateTaskResult`, checked against the limits (TaskRefused otherwise). */
export function taskIdOf(created: unknown, limits: Partial<TaskLimits> = {}): string {
  const max = limits.maxTaskIdLength ?? DEFAULT_TASK_LIMITS.maxTaskIdLength;
  const id = isObject(created) ? created.taskId : undefined;
  if (typeof id !== 'string' || id.length === 0)
    throw new TaskRefused('The server answered with a task but no taskId; nothing to follow.');
  if (id.length > max)
    throw new TaskRefused(
      `The server's task id is ${id.length} characters long, over the limit of ${max} (limits.maxTaskIdLength).`,
    );
  if (!TASK_ID.test(id))
    throw new TaskRefused(
      'The server sent a task id with spaces, control or non-ASCII characters; it is not followed.',
    );
  return id;
}

const clampInt = (v: unknown, min: number, max: number, fallback: number) =>
  typeof v === 'number' && Number.isFinite(v) && v > 0
    ? Math.min(max, Math.max(min, Math.round(v)))
    : fallback;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Follows a task from its `CreateTaskResult` (or, to pick a task up again after a reconnect,
 * from `{ taskId }`) to its end: resolves with the inlined result of a `completed` task; rejects
 * with TaskFailed, TaskCancelled, TaskRefused or TaskTimeout. Each input request key is shown
 * once (answered or being answered keys are never shown again, even if the server presents
 * them again); each answer goes to the server alone, so a task may resume on partial answers.
 */
export async function followTask(
  created: unknown,
  wire: TaskWire,
  answer: TaskAnswerer,
  options: FollowOptions = {},
): Promise<Record<string, unknown>> {
  const limits: TaskLimits = { ...DEFAULT_TASK_LIMITS, ...options.limits };
  const taskId = taskIdOf(created, limits);
  const startedAt = Date.now();
  const deadline = startedAt + limits.maxWaitMs;
  const own = new AbortController();
  const outer = options.signal;
  const onAbort = () => own.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  const signal = own.signal;
  const seen = new Set<string>();
  let polls = 0;
  let interval = clampInt(
    (created as { pollIntervalMs?: unknown }).pollIntervalMs,
    limits.minPollMs,
    limits.maxPollMs,
    limits.defaultPollMs,
  );

  const report = (task: Record<string, unknown>, status: TaskStatus) => {
    const message = task.statusMessage;
    options.onStatus?.({
      taskId,
      status,
      statusMessage:
        typeof message === 'string' ? inert(message, limits.maxStatusChars, false) : undefined,
      polls,
    });
  };

  // Stops the task on the server, then throws: every way out but completion tells it to stop.
  const stop = async (error: Error): Promise<never> => {
    await wire.cancel(taskId).catch(() => {});
    throw error;
  };

  try {
    const first = isObject(created) ? created : {};
    const firstStatus = typeof first.status === 'string' && STATUSES.has(first.status);
    if (firstStatus) report(first, first.status as TaskStatus);
    for (;;) {
      if (signal.aborted) return await stop(new TaskCancelled(taskId, true));
      if (polls >= limits.maxPolls)
        return await stop(
          new TaskTimeout(
            taskId,
            `The task did not finish within ${limits.maxPolls} polls (limits.maxPolls); it was cancelled.`,
          ),
        );
      if (Date.now() >= deadline)
        return await stop(
          new TaskTimeout(
            taskId,
            `The task did not finish within ${Math.round(limits.maxWaitMs / 1000)} s (limits.maxWaitMs); it was cancelled.`,
          ),
        );
      polls++;
      let task: unknown;
      try {
        task = await wire.get(taskId, signal);
      } catch (error) {
        if (signal.aborted) return await stop(new TaskCancelled(taskId, true));
        throw error;
      }
      if (!isObject(task) || typeof task.status !== 'string' || !STATUSES.has(task.status))
        return await stop(
          new TaskRefused(
            `The server's tasks/get answer has no known status (${inert(JSON.stringify(isObject(task) ? task.status : typeof task) ?? '', 40, false)}); the task was cancelled.`,
          ),
        );
      if (task.taskId !== undefined && task.taskId !== taskId)
        return await stop(
          new TaskRefused('The server answered tasks/get about another task; it was cancelled.'),
        );
      const status = task.status as TaskStatus;
      interval = clampInt(task.pollIntervalMs, limits.minPollMs, limits.maxPollMs, interval);
      report(task, status);

      if (status === 'completed') {
        if (!isObject(task.result))
          throw new TaskRefused('The server completed the task without an inlined result.');
        return task.result;
      }
      if (status === 'failed') {
        const e = isObject(task.error) ? task.error : {};
        throw new TaskFailed(taskId, {
          code: typeof e.code === 'number' && Number.isInteger(e.code) ? e.code : -32603,
          message: inert(
            typeof e.message === 'string' ? e.message : 'no message',
            limits.maxErrorChars,
            false,
          ),
          ...(e.data === undefined ? {} : { data: e.data }),
        });
      }
      if (status === 'cancelled') throw new TaskCancelled(taskId, false);

      if (status === 'input_required' && isObject(task.inputRequests)) {
        const keys = Object.keys(task.inputRequests);
        if (keys.length > limits.maxInputRequests)
          return await stop(
            new TaskRefused(
              `The server asked ${keys.length} questions at once, over the limit of ${limits.maxInputRequests} (limits.maxInputRequests); the task was cancelled.`,
            ),
          );
        for (const key of keys) {
          if (seen.has(key)) continue; // answered or being answered: never shown twice
          if (key.length > limits.maxKeyLength || seen.size >= limits.maxInputKeys)
            return await stop(
              new TaskRefused(
                key.length > limits.maxKeyLength
                  ? `The server's input request key is over ${limits.maxKeyLength} characters (limits.maxKeyLength); the task was cancelled.`
                  : `The server asked more than ${limits.maxInputKeys} questions in one task (limits.maxInputKeys); the task was cancelled.`,
              ),
            );
          seen.add(key);
          const request = task.inputRequests[key];
          if (!isObject(request) || typeof request.method !== 'string')
            return await stop(
              new TaskRefused(
                'The server sent an input request without a method; the task was cancelled.',
              ),
            );
          let response: unknown;
          try {
            response = await answer(key, request as unknown as TaskInputRequest, signal);
          } catch (error) {
            if (signal.aborted) return await stop(new TaskCancelled(taskId, true));
            if (error instanceof TaskRefused) return await stop(error);
            throw error;
          }
          if (signal.aborted) return await stop(new TaskCancelled(taskId, true));
          const responses: Record<string, unknown> = {};
          setOwn(responses, key, response);
          // A refused update (the task moved on meanwhile) shows in the next poll.
          await wire.update(taskId, responses, signal).catch((error: unknown) => {
            if (signal.aborted) return;
            if (!isProtocolError(error)) throw error;
          });
        }
      }
      await sleep(interval, signal);
    }
  } finally {
    outer?.removeEventListener('abort', onAbort);
  }
}

/** A JSON-RPC error answer (as opposed to a broken connection). */
function isProtocolError(error: unknown): boolean {
  return isObject(error) && typeof (error as { code?: unknown }).code === 'number';
}
