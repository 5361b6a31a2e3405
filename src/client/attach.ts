/**
 * Attaches the pipeline to an SDK v2 `Client`: declares the modes, serves `elicitation/create`
 * (pushed on 2025 sessions, also as a task there (task-receiver.ts), and inside the SDK's input_required
 * auto-fulfilment on 2026-07-28),
 * tracks URL elicitations by id, and turns a -32042 from a tool call into consent, a wait for
 * completion, and a retry.
 */

import type { Client } from '@modelcontextprotocol/client';
import {
  isCallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/client';
import { ElicitError } from '../errors.ts';
import { ELICIT_URL_LOOP, ELICIT_URL_TIMEOUT } from '../kernel/error-codes.ts';
import { guardParams, refuseParamsNotObject } from '../kernel/params-guard.ts';
import { LEGACY_REVISION } from '../kernel/revision.ts';
import { answerInputRequests } from './mrtr.ts';
import {
  createPipeline,
  ElicitationRefused,
  type Pipeline,
  type PipelineOptions,
} from './pipeline.ts';
import { installTaskReceiver, type TaskReceiverLimits } from './task-receiver.ts';
import { createdTask, hookTaskResults, sdkTaskWire } from './task-wire.ts';
import {
  type FollowTaskLimits,
  followTask,
  TASKS_EXTENSION,
  type TaskAnswerer,
  TaskRefused,
  type TaskState,
} from './tasks.ts';
import { callToolAsTask } from './tool-task.ts';
import type { ServerIdentity } from './types.ts';

/** Following tasks (2026-07-28, the `io.modelcontextprotocol/tasks` extension). */
export interface AttachTaskOptions {
  readonly limits?: Partial<FollowTaskLimits>;
  /** Each tasks/get, tasks/update and tasks/cancel request; default 30 s. */
  readonly requestTimeoutMs?: number;
}

/** Per call: the signal cancels the task too (tasks/cancel); `onTask` sees its status. */
export interface TaskCallOptions {
  readonly signal?: AbortSignal;
  readonly onTask?: (state: TaskState) => void;
}

/** Per tool call, beyond the SDK's request options and TaskCallOptions. */
export interface ToolCallOptions extends TaskCallOptions {
  /**
   * On a 2025-11-25 session, call the tool as a task (`tools/call` with `task`, polled, then
   * `tasks/result`): for tools whose `execution.taskSupport` is `"required"` (see `needsTask`)
   * or `"optional"`. Ignored on 2026-07-28, where the server decides.
   */
  readonly asTask?: boolean;
}

export interface AttachOptions extends PipelineOptions {
  /** How long to wait for URL elicitations to complete before retrying a tool call; default 10 minutes. */
  readonly completionTimeoutMs?: number;
  /** Retries of one tool call after URL elicitations; default 3. */
  readonly maxUrlRetries?: number;
  /**
   * Task-augmented elicitation on 2025-11-25 (the server asks for the form as a task, then polls
   * it): declared and served by default, with these bounds; `false` declares nothing.
   */
  readonly receiveTasks?: Partial<TaskReceiverLimits> | false;
  /**
   * Declare the tasks extension and follow the tasks a server answers with (poll, answer their
   * questions, return the result). Default off; elicit's own hosts turn it on.
   */
  readonly tasks?: boolean | AttachTaskOptions;
}

type CallToolParams = Parameters<Client['callTool']>[0];
type CallToolOptions = Parameters<Client['callTool']>[1];

export interface ElicitClient {
  readonly pipeline: Pipeline;
  /**
   * `client.callTool`, plus URL-mode handling on 2025-11-25: a -32042 error is shown to the
   * person (each URL needs its own consent), and the call is retried once every elicitation
   * completes, or when `retryNow()` is called. With `tasks` on, a task is followed to its end
   * and its inlined result returned.
   */
  callTool(
    params: CallToolParams,
    options?: CallToolOptions & ToolCallOptions,
  ): ReturnType<Client['callTool']>;
  /**
   * Runs `send` (any request); when the server answers with a task, follows it and resolves
   * with its inlined result instead.
   */
  followTasks<T>(send: () => Promise<T>, options?: TaskCallOptions): Promise<T>;
  /** Picks up a task again by id (after a reconnect) and follows it to its end. */
  resumeTask(taskId: string, options?: TaskCallOptions): Promise<Record<string, unknown>>;
  /** Ends the current wait for URL completions early and retries now. */
  retryNow(): void;
  /** URL elicitation ids consented to and not completed yet. */
  readonly pending: ReadonlySet<string>;
}

/** Accept any params, untouched (the SDK's typed form strips keywords such as `pattern`). */
const RAW_PARAMS = {
  params: {
    '~standard': {
      version: 1 as const,
      vendor: 'elicit',
      validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
    },
  },
};

export function identityOf(client: Client): ServerIdentity {
  const info = client.getServerVersion();
  return { name: info?.name ?? 'unknown server', title: info?.title, version: info?.version };
}

/** The client side's -32602, one function for every client (kernel/params-guard.ts shares by it). */
const invalidParams = (message: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, message);

const refusing = new WeakSet<Client>();

/** Answers requests whose params is not an object on every transport the client connects. */
function refuseOnConnect(client: Client): void {
  if (refusing.has(client)) return;
  refusing.add(client);
  if (client.transport !== undefined) refuseParamsNotObject(client.transport as never);
  const connect = client.connect.bind(client);
  client.connect = async (...args: Parameters<Client['connect']>) => {
    await connect(...args);
    refuseParamsNotObject(args[0] as never);
  };
}

export function attachElicitation(client: Client, options: AttachOptions): ElicitClient {
  return new AttachedClient(client, options);
}

/** The same page of a URL (origin and path; the query usually carries a fresh state). */
function pageOf(u: string): string {
  try {
    const parsed = new URL(u);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return u;
  }
}

/**
 * One attached client: its state in one object (the URL elicitations it tracks, the waits on
 * their completion), its parts as named methods.
 */
class AttachedClient implements ElicitClient {
  readonly pipeline: Pipeline;
  /** URL elicitation ids consented to and not completed yet. */
  readonly pending = new Set<string>();
  readonly #client: Client;
  readonly #options: AttachOptions;
  readonly #tasks: AttachTaskOptions | undefined;
  // Ids being shown to the person right now: the completion may arrive before they return.
  readonly #inflight = new Set<string>();
  readonly #completed = new Set<string>();
  readonly #waiters = new Set<() => void>();
  readonly #retryHooks = new Set<() => void>();

  constructor(client: Client, options: AttachOptions) {
    this.#client = client;
    this.#options = options;
    const pipeline = createPipeline(options);
    this.pipeline = pipeline;
    const elicitation: Record<string, Record<string, never>> = {};
    if (pipeline.modes.form) elicitation.form = {};
    if (pipeline.modes.url) elicitation.url = {};
    const tasks: AttachTaskOptions | undefined =
      options.tasks === true ? {} : options.tasks === false ? undefined : options.tasks;
    this.#tasks = tasks;
    // On 2026-07-28 the SDK sends these capabilities with every request.
    client.registerCapabilities({
      elicitation,
      ...(tasks === undefined ? {} : { extensions: { [TASKS_EXTENSION]: {} } }),
    });
    // Params of the wrong shape answer -32602 (the SDK says -32603, or drops a request whose
    // params is not an object); see kernel/params-guard.ts.
    guardParams(client, invalidParams);
    refuseOnConnect(client);
    if (options.receiveTasks !== false) installTaskReceiver(client, options.receiveTasks);
    client.setRequestHandler(
      'elicitation/create',
      RAW_PARAMS as never,
      ((params: Record<string, unknown>, ctx: { mcpReq: { signal: AbortSignal } }) =>
        this.#elicitation(params, ctx.mcpReq.signal)) as never,
    );
    client.setNotificationHandler('notifications/elicitation/complete', (notification) =>
      this.#completion((notification.params as { elicitationId?: unknown }).elicitationId),
    );
  }

  #context(signal: AbortSignal) {
    const client = this.#client;
    return {
      server: identityOf(client),
      revision: client.getNegotiatedProtocolVersion() ?? LEGACY_REVISION,
      signal,
    };
  }

  #handle(params: Record<string, unknown>, signal: AbortSignal) {
    return this.pipeline.handle(params, this.#context(signal));
  }

  /** `elicitation/create`: through the pipeline; a URL id is tracked until it completes. */
  async #elicitation(params: Record<string, unknown>, signal: AbortSignal) {
    const id =
      params.mode === 'url' && typeof params.elicitationId === 'string'
        ? params.elicitationId
        : undefined;
    if (id !== undefined) this.#inflight.add(id);
    try {
      const result = await this.#handle(params, signal);
      if (id !== undefined && result.action === 'accept' && !this.#completed.has(id))
        this.pending.add(id);
      return result;
    } catch (error) {
      if (error instanceof ElicitationRefused)
        throw new ProtocolError(error.rpcCode, error.message, { code: error.code });
      throw error;
    } finally {
      if (id !== undefined) this.#inflight.delete(id);
    }
  }

  /** `notifications/elicitation/complete`. */
  #completion(id: unknown): void {
    // Unknown or already finished ids are ignored, as the spec requires.
    if (typeof id !== 'string' || !(this.pending.delete(id) || this.#inflight.delete(id))) return;
    this.#completed.add(id);
    this.#options.renderer.notice?.({ type: 'url_completed', elicitationId: id });
    for (const w of this.#waiters) w();
  }

  async #waitFor(ids: readonly string[], signal: AbortSignal | undefined): Promise<void> {
    const timeoutMs = this.#options.completionTimeoutMs ?? 600_000;
    const waiters = this.#waiters;
    const retryHooks = this.#retryHooks;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        if (ids.every((id) => !this.pending.has(id))) finish();
      };
      const timer = setTimeout(
        () =>
          finish(
            new ElicitError(
              ELICIT_URL_TIMEOUT,
              `The browser steps did not complete within ${Math.round(timeoutMs / 1000)} s.`,
            ),
          ),
        timeoutMs,
      );
      const onAbort = () => finish(signal?.reason ?? new Error('aborted'));
      const finish = (error?: unknown) => {
        clearTimeout(timer);
        waiters.delete(done);
        retryHooks.delete(now);
        signal?.removeEventListener('abort', onAbort);
        if (error === undefined) resolve();
        else reject(error);
      };
      const now = () => finish();
      waiters.add(done);
      retryHooks.add(now);
      signal?.addEventListener('abort', onAbort, { once: true });
      done();
    });
  }

  // A task's questions go through the same pipeline as every elicitation (mrtr.ts answers
  // one key at a time here); a request the pipeline refuses stops the task.
  readonly #answerTask: TaskAnswerer = async (key, request, signal) => {
    try {
      const responses = await answerInputRequests(
        this.pipeline,
        { [key]: request },
        this.#context(signal),
        async (_key, other) => {
          throw new TaskRefused(
            `The server asked for ${JSON.stringify(other.method.slice(0, 60))} inside a task, which this client does not serve; the task was cancelled.`,
          );
        },
      );
      return responses[key];
    } catch (error) {
      if (error instanceof ElicitationRefused)
        throw new TaskRefused(`${error.message} The task was cancelled.`);
      throw error;
    }
  };

  #follow(created: unknown, callOptions?: TaskCallOptions) {
    const tasks = this.#tasks;
    return followTask(
      created,
      sdkTaskWire(this.#client, tasks?.requestTimeoutMs ?? 30_000),
      this.#answerTask,
      { signal: callOptions?.signal, onStatus: callOptions?.onTask, limits: tasks?.limits },
    );
  }

  async followTasks<T>(send: () => Promise<T>, callOptions?: TaskCallOptions): Promise<T> {
    if (this.#tasks === undefined) return send();
    hookTaskResults(this.#client);
    try {
      return await send();
    } catch (error) {
      const created = createdTask(error);
      if (created === undefined) throw error;
      return (await this.#follow(created, callOptions)) as T;
    }
  }

  async resumeTask(
    taskId: string,
    callOptions?: TaskCallOptions,
  ): Promise<Record<string, unknown>> {
    hookTaskResults(this.#client);
    return this.#follow({ taskId }, callOptions);
  }

  retryNow(): void {
    for (const hook of [...this.#retryHooks]) hook();
    this.#retryHooks.clear();
  }

  // A tool call that became a task: its inlined result must be a tool result.
  async #callOnce(params: CallToolParams, callOptions?: CallToolOptions & ToolCallOptions) {
    const client = this.#client;
    const tasks = this.#tasks;
    if (callOptions?.asTask === true && client.getProtocolEra() === 'legacy') {
      const result = await callToolAsTask(client, params, {
        signal: callOptions.signal,
        onTask: callOptions.onTask,
        limits: tasks?.limits,
        requestTimeoutMs: tasks?.requestTimeoutMs,
        ...(callOptions.timeout === undefined ? {} : { resultTimeoutMs: callOptions.timeout }),
      });
      if (!isCallToolResult(result))
        throw new TaskRefused('The task completed with a result that is not a tool result.');
      return result;
    }
    let followed = false;
    const result = await this.followTasks(() => client.callTool(params, callOptions), {
      signal: callOptions?.signal,
      onTask: (state) => {
        followed = true;
        callOptions?.onTask?.(state);
      },
    });
    if (followed && !isCallToolResult(result))
      throw new TaskRefused('The task completed with a result that is not a tool result.');
    return result;
  }

  async callTool(
    params: CallToolParams,
    callOptions?: CallToolOptions & ToolCallOptions,
  ): ReturnType<Client['callTool']> {
    // Pages whose completion was announced: asked for again means the server is looping. A
    // page retried early (retryNow before its completion) is only still pending.
    const finished = new Set<string>();
    const maxRetries = this.#options.maxUrlRetries ?? 3;
    for (let round = 0; ; round++) {
      try {
        return await this.#callOnce(params, callOptions);
      } catch (error) {
        if (!(error instanceof UrlElicitationRequiredError) || round >= maxRetries) throw error;
        await this.#urlRound(error, finished, params, callOptions?.signal);
      }
    }
  }

  /**
   * One round of a -32042: each page shown for consent, then a wait for every completion
   * (`finished` keeps the pages that completed, to tell a looping server).
   */
  async #urlRound(
    error: UrlElicitationRequiredError,
    finished: Set<string>,
    params: CallToolParams,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { elicitations } = error;
    const renderer = this.#options.renderer;
    const server = identityOf(this.#client);
    // The same page asked for again after it completed means the server is looping.
    if (elicitations.length > 0 && elicitations.every((e) => finished.has(pageOf(e.url)))) {
      throw new ElicitError(
        ELICIT_URL_LOOP,
        `${server.name} asked again for the same page(s) after they completed; stopped to avoid a loop.`,
      );
    }
    renderer.notice?.({ type: 'url_required', server, count: elicitations.length });
    const ids: string[] = [];
    for (const e of elicitations) {
      this.#inflight.add(e.elicitationId);
      let result: Awaited<ReturnType<Pipeline['handle']>>;
      try {
        result = await this.#handle({ ...e, mode: 'url' }, signal ?? new AbortController().signal);
      } finally {
        this.#inflight.delete(e.elicitationId);
      }
      if (result.action !== 'accept') throw error;
      if (!this.#completed.has(e.elicitationId)) this.pending.add(e.elicitationId);
      ids.push(e.elicitationId);
    }
    await this.#waitFor(ids, signal);
    for (const e of elicitations)
      if (this.#completed.has(e.elicitationId)) finished.add(pageOf(e.url));
    renderer.notice?.({ type: 'retrying', tool: params.name });
  }
}
