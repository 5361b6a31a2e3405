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
import { isTaskStatus, TASKS_EXTENSION, type TaskStatus } from '../kernel/tasks.ts';
import { inert } from './inert.ts';

// Written once with the server's (kernel/tasks.ts): the extension's identifier, declared under
// `capabilities.extensions`, and a task's statuses.
export { TASKS_EXTENSION, type TaskStatus };

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
export interface FollowTaskLimits {
  /** Poll interval used when the server names none; default 1 s. */
  readonly defaultPollMs: number;
  /** The server's `pollIntervalMs` is clamped into [minPollMs, maxPollMs]; default 200 ms … 30 s. */
  readonly minPollMs: number;
  readonly maxPollMs: number;
  /** `tasks/get` calls for one task (polling goes on while a question is open); default 100 000. */
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

export const DEFAULT_FOLLOW_TASK_LIMITS: FollowTaskLimits = Object.freeze({
  defaultPollMs: 1_000,
  minPollMs: 200,
  maxPollMs: 30_000,
  maxPolls: 100_000,
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
  readonly limits?: Partial<FollowTaskLimits>;
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
export function taskIdOf(created: unknown, limits: Partial<FollowTaskLimits> = {}): string {
  const max = limits.maxTaskIdLength ?? DEFAULT_FOLLOW_TASK_LIMITS.maxTaskIdLength;
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
 * with TaskFailed, TaskCancelled, TaskRefused or TaskTimeout.
 *
 * Polling goes on while a question is open, so the status stays current and a task that ends
 * (or withdraws the question) closes it. Questions are shown one at a time, in the order they
 * came; a key answered or being answered is never shown again, even when the server presents it
 * again, and a queued key the server no longer asks is dropped unshown. Each answer goes to the
 * server alone (`tasks/update`), so a task may resume on partial answers.
 */
export async function followTask(
  created: unknown,
  wire: TaskWire,
  answer: TaskAnswerer,
  options: FollowOptions = {},
): Promise<Record<string, unknown>> {
  const limits: FollowTaskLimits = { ...DEFAULT_FOLLOW_TASK_LIMITS, ...options.limits };
  const taskId = taskIdOf(created, limits);
  const deadline = Date.now() + limits.maxWaitMs;
  const own = new AbortController();
  const outer = options.signal;
  const onAbort = () => own.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  const signal = own.signal;
  let polls = 0;
  let interval = clampInt(
    (created as { pollIntervalMs?: unknown }).pollIntervalMs,
    limits.minPollMs,
    limits.maxPollMs,
    limits.defaultPollMs,
  );

  // The questions: keys shown or queued (never shown twice), the queue, what the last poll asked.
  const seen = new Set<string>();
  const queue: { key: string; request: TaskInputRequest }[] = [];
  let asked = new Set<string>();
  let open: { key: string; controller: AbortController } | undefined;
  let worker: Promise<void> | undefined;
  let failure: { error: unknown } | undefined;
  // Wakes the poll loop's sleep early (a question answered, or the worker failed).
  let wake: (() => void) | undefined;

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

  async function work(): Promise<void> {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { key, request } = next;
      if (!asked.has(key)) {
        seen.delete(key); // withdrawn before it was shown: may be asked again later
        continue;
      }
      open = { key, controller: new AbortController() };
      const question = AbortSignal.any([signal, open.controller.signal]);
      const response = await answer(key, request, question);
      const closed = question.aborted;
      open = undefined;
      if (closed) return;
      const responses: Record<string, unknown> = {};
      setOwn(responses, key, response);
      // A refused update (the task moved on meanwhile) shows in the next poll.
      await wire.update(taskId, responses, signal).catch((error: unknown) => {
        if (!signal.aborted && !isProtocolError(error)) throw error;
      });
      wake?.();
    }
  }

  // Every way out but completion tells the server to stop.
  const stop = async (error: Error): Promise<never> => {
    own.abort();
    await worker?.catch(() => {});
    await wire.cancel(taskId).catch(() => {});
    throw error;
  };
  // A terminal status: close an open question and let the worker end.
  const settle = async () => {
    open?.controller.abort();
    queue.length = 0;
    await worker?.catch(() => {});
  };

  try {
    const first = isObject(created) ? created : {};
    if (isTaskStatus(first.status)) report(first, first.status as TaskStatus);
    for (;;) {
      if (outer?.aborted) return await stop(new TaskCancelled(taskId, true));
      if (failure !== undefined) {
        const error = failure.error;
        if (error instanceof TaskRefused) return await stop(error);
        throw error;
      }
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
        if (outer?.aborted) return await stop(new TaskCancelled(taskId, true));
        own.abort();
        await worker?.catch(() => {});
        throw error;
      }
      if (!isObject(task) || !isTaskStatus(task.status))
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
        await settle();
        if (!isObject(task.result))
          throw new TaskRefused('The server completed the task without an inlined result.');
        return task.result;
      }
      if (status === 'failed') {
        await settle();
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
      if (status === 'cancelled') {
        await settle();
        throw new TaskCancelled(taskId, false);
      }

      const requests =
        status === 'input_required' && isObject(task.inputRequests) ? task.inputRequests : {};
      const keys = Object.keys(requests);
      if (keys.length > limits.maxInputRequests)
        return await stop(
          new TaskRefused(
            `The server asked ${keys.length} questions at once, over the limit of ${limits.maxInputRequests} (limits.maxInputRequests); the task was cancelled.`,
          ),
        );
      asked = new Set(keys);
      // The server no longer asks the open question (withdrawn, or answered elsewhere): close it.
      if (open !== undefined && !asked.has(open.key)) open.controller.abort();
      for (const key of keys) {
        if (seen.has(key)) continue;
        if (key.length > limits.maxKeyLength || seen.size >= limits.maxInputKeys)
          return await stop(
            new TaskRefused(
              key.length > limits.maxKeyLength
                ? `The server's input request key is over ${limits.maxKeyLength} characters (limits.maxKeyLength); the task was cancelled.`
                : `The server asked more than ${limits.maxInputKeys} questions in one task (limits.maxInputKeys); the task was cancelled.`,
            ),
          );
        const request = requests[key];
        if (!isObject(request) || typeof request.method !== 'string')
          return await stop(
            new TaskRefused(
              'The server sent an input request without a method; the task was cancelled.',
            ),
          );
        seen.add(key);
        queue.push({ key, request: request as unknown as TaskInputRequest });
      }
      if (worker === undefined && queue.length > 0)
        worker = work()
          .catch((error: unknown) => {
            failure = { error };
          })
          .finally(() => {
            worker = undefined;
            wake?.();
          });
      await new Promise<void>((resolve) => {
        wake = resolve;
        // An abort rejects the sleep: it wakes the loop like the interval's end, never unhandled.
        sleep(interval, signal).then(resolve, resolve);
      });
      wake = undefined;
    }
  } finally {
    outer?.removeEventListener('abort', onAbort);
    open?.controller.abort();
  }
}

/** A JSON-RPC error answer (as opposed to a broken connection). */
function isProtocolError(error: unknown): boolean {
  return isObject(error) && typeof (error as { code?: unknown }).code === 'number';
}
