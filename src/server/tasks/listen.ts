/**
 * `notifications/tasks` on a 2026-07-28 `subscriptions/listen` stream. A client that lists
 * `taskIds` in the listen filter receives the whole task, as `tasks/get` would return it, each
 * time what `tasks/get` returns changes (status, status message, pending requests, the inlined
 * result or error), until the task is terminal.
 *
 * The SDK serves `subscriptions/listen` itself (createMcpHandler's listen router) with a closed
 * set of event kinds and no way to add one, so the SDK keeps serving the stream and this module
 * wraps its response: the SDK's frames pass through, its acknowledgement gains the honoured
 * `taskIds`, and task notifications are written between them. When the SDK has nothing of its
 * own to send it ends the stream at once with its closing result; that frame is held back until
 * every watched task has ended (or the client goes away). The body is the one httpEntry already
 * parsed (body.ts); the SDK gets the filter without `taskIds` as its parsed body.
 *
 * Changes this process writes are seen at once (records.ts `onTaskChange`); changes another
 * replica writes, at the next read of the store (`tasks.watchEveryMs`). Bounds: `maxWatchedTasks`
 * ids per stream, `maxTaskSubscriptions` streams per principal in this process.
 */

import { SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import type { Json } from '../../kernel/store.ts';
import { rpcErrorResponse } from '../body.ts';
import type { TaskHost } from '../engines/task.ts';
import { storeFailureOnWire } from '../wire.ts';
import { isLegacyTask } from './legacy-tasks.ts';
import { detailedTask } from './methods.ts';
import { isTerminal, onTaskChange, readTask, type TaskRecord } from './records.ts';

const KEEP_ALIVE_MS = 15_000;

/** A listen request whose `taskIds` is not a list of strings: answered -32602. */
export interface InvalidListen {
  readonly invalid: string | number;
}

export interface ListenMessage {
  jsonrpc: '2.0';
  id: string | number;
  method: 'subscriptions/listen';
  params: { notifications: Record<string, unknown> & { taskIds?: unknown } };
}

/** Open task subscriptions per principal, per server (its task host) in this process. */
const openBy = new WeakMap<TaskHost, Map<string, number>>();
function openOf(host: TaskHost): Map<string, number> {
  let open = openBy.get(host);
  if (open === undefined) openBy.set(host, (open = new Map()));
  return open;
}

/**
 * The listen request in `parsed` when it asks for tasks; `invalid` (with the request's id) when
 * its `taskIds` is not a list of strings; undefined for anything else.
 */
export function taskListen(parsed: unknown): ListenMessage | InvalidListen | undefined {
  const m = parsed as Partial<ListenMessage> | null;
  if (m === null || typeof m !== 'object' || m.method !== 'subscriptions/listen') return undefined;
  const params = m.params as Partial<ListenMessage['params']> | null | undefined;
  const filter = params !== null && typeof params === 'object' ? params.notifications : undefined;
  if (
    (typeof m.id !== 'string' && typeof m.id !== 'number') ||
    filter === null ||
    typeof filter !== 'object' ||
    !Object.hasOwn(filter, 'taskIds')
  )
    return undefined;
  const ids = filter.taskIds;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) return { invalid: m.id };
  return m as ListenMessage;
}

function invalidTaskIds(id: string | number): Response {
  return rpcErrorResponse(
    200,
    {
      code: -32602,
      message:
        'Invalid params for subscriptions/listen: notifications.taskIds must be a list of task ids (strings)',
    },
    id,
  );
}

/** The task as a notification carries it: what tasks/get returns, without its resultType. */
function taskParams(record: TaskRecord): Record<string, unknown> {
  const { resultType: _, ...task } = detailedTask(record);
  return task;
}

/**
 * Serves `req`, a `subscriptions/listen` that lists `taskIds` (`taskListen` found `message` in
 * its body), through `serve` (the SDK's handler), adding task notifications when `principal` is
 * known; otherwise it is just `serve(req)`.
 */
export async function serveListen(
  req: Request,
  message: ListenMessage | InvalidListen,
  host: TaskHost,
  principalOf: () => string | undefined,
  serve: (req: Request, parsed: unknown) => Promise<Response>,
): Promise<Response> {
  if ('invalid' in message) return invalidTaskIds(message.invalid);
  const principal = principalOf();
  if (principal === undefined) return serve(req, message);
  const { taskIds, ...sdkFilter } = message.params.notifications;
  const held = openOf(host).get(principal) ?? 0;
  const wanted = (taskIds as unknown[])
    .filter((id): id is string => typeof id === 'string')
    .slice(0, host.limits.maxWatchedTasks);
  const honoured: TaskRecord[] = [];
  try {
    if (held < host.limits.maxTaskSubscriptions)
      for (const id of new Set(wanted)) {
        const stored = await readTask(host.store, id, principal);
        const record = stored?.value as TaskRecord | undefined;
        if (record !== undefined && !isLegacyTask(record)) honoured.push(record);
      }
  } catch (error) {
    // The store is down: this request gets its wire error, as any other request would.
    const wire = storeFailureOnWire(error);
    if (wire === undefined) throw error;
    return rpcErrorResponse(
      200,
      { code: wire.code, message: wire.message, data: wire.data },
      message.id,
    );
  }
  // The SDK sees its own filter fields only (it would reject or drop an unknown one).
  const upstream = await serve(req, {
    ...message,
    params: { ...message.params, notifications: sdkFilter },
  });
  const type = upstream.headers.get('content-type') ?? '';
  if (upstream.body === null || !type.includes('text/event-stream')) return upstream;
  return new Response(
    merge(upstream.body, message.id, honoured, host, principal, req.signal),
    upstream,
  );
}

const LISTEN = 'A listen stream reading its tasks';

function merge(
  sdk: ReadableStream<Uint8Array>,
  subscriptionId: string | number,
  honoured: readonly TaskRecord[],
  host: TaskHost,
  principal: string,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const reader = sdk.getReader();
  const ids = honoured.map((r) => r.id);
  const open = openOf(host);
  // What was last sent per task (as JSON), and the tasks still watched.
  const sent = new Map<string, string>();
  const watched = new Set(ids);
  const stops: (() => void)[] = [];
  let closingFrame: string | undefined;
  let sdkEnded = false;
  let closed = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let timer: NodeJS.Timeout | undefined;
  let keepAlive: NodeJS.Timeout | undefined;
  if (ids.length > 0) open.set(principal, (open.get(principal) ?? 0) + 1);

  const write = (frame: string) => {
    if (!closed) controller.enqueue(encoder.encode(frame));
  };
  const frameOf = (json: unknown) => `event: message\ndata: ${JSON.stringify(json)}\n\n`;

  const teardown = () => {
    if (closed) return;
    closed = true;
    if (timer !== undefined) clearInterval(timer);
    if (keepAlive !== undefined) clearInterval(keepAlive);
    for (const stop of stops) stop();
    if (ids.length > 0) {
      const left = (open.get(principal) ?? 1) - 1;
      if (left === 0) open.delete(principal);
      else open.set(principal, left);
    }
    void reader.cancel().catch(() => {});
  };
  /** Ends the stream the way the SDK would have: its closing result, then the end. */
  const finishIfDone = () => {
    if (closed || watched.size > 0 || !sdkEnded) return;
    if (closingFrame !== undefined) write(closingFrame);
    teardown();
    controller.close();
  };

  const emit = (record: TaskRecord) => {
    const params = taskParams(record);
    const json = JSON.stringify(params);
    if (sent.get(record.id) !== json) {
      sent.set(record.id, json);
      write(
        frameOf({
          jsonrpc: '2.0',
          method: 'notifications/tasks',
          params: { ...params, _meta: { [SUBSCRIPTION_ID_META_KEY]: subscriptionId } },
        }),
      );
    }
    if (isTerminal(record.status)) watched.delete(record.id);
  };
  let checking = false;
  let again = false;
  /** Reads every watched task and sends what changed; one read at a time, coalescing calls. */
  const read = async () => {
    if (checking) {
      again = true;
      return;
    }
    checking = true;
    try {
      do {
        again = false;
        for (const id of [...watched]) {
          if (closed) return;
          const stored = await readTask(host.store, id, principal);
          // Expired (or removed): nothing more will be said about it.
          if (stored === undefined) watched.delete(id);
          else emit(stored.value as TaskRecord);
        }
      } while (again && !closed);
    } finally {
      checking = false;
    }
    finishIfDone();
  };
  // A store that fails now is told once and read again at the next tick.
  const check = () => host.faults.detach(LISTEN, read());

  /** One SSE frame from the SDK: the acknowledgement gains taskIds, its closing result waits. */
  const relay = (frame: string) => {
    const data = frame
      .split('\n')
      .find((line) => line.startsWith('data: '))
      ?.slice(6);
    let json: Record<string, unknown> | undefined;
    try {
      json = data === undefined ? undefined : (JSON.parse(data) as Record<string, unknown>);
    } catch {
      json = undefined;
    }
    if (json?.method === 'notifications/subscriptions/acknowledged') {
      const params = json.params as { notifications?: Record<string, Json> } | undefined;
      write(
        frameOf({
          ...json,
          params: { ...params, notifications: { ...params?.notifications, taskIds: ids } },
        }),
      );
      // The state each task is in now, so a change between tasks/get and this stream is not lost.
      for (const record of honoured) emit(record);
      return;
    }
    if (json !== undefined && 'id' in json && ('result' in json || 'error' in json)) {
      closingFrame = `${frame}\n\n`;
      return;
    }
    write(`${frame}\n\n`);
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      if (signal.aborted) {
        teardown();
        c.close();
        return;
      }
      signal.addEventListener('abort', () => {
        if (closed) return;
        teardown();
        controller.close();
      });
      for (const id of ids) stops.push(onTaskChange(id, check));
      if (ids.length > 0) {
        timer = setInterval(check, host.limits.watchEveryMs);
        timer.unref();
        // The SDK keeps its own stream alive only while it watches something itself.
        keepAlive = setInterval(() => write(': keepalive\n\n'), KEEP_ALIVE_MS);
        keepAlive.unref();
      }
      // Relays the SDK's stream; what fails here ends this stream only.
      host.faults.detach(
        LISTEN,
        (async () => {
          let buffer = '';
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              buffer += decoder.decode(value, { stream: true });
              let end = buffer.indexOf('\n\n');
              while (end !== -1) {
                relay(buffer.slice(0, end));
                buffer = buffer.slice(end + 2);
                end = buffer.indexOf('\n\n');
              }
            }
          } catch {
            // The SDK's stream failed: end ours too.
            watched.clear();
          }
          sdkEnded = true;
          finishIfDone();
        })(),
      );
    },
    cancel() {
      teardown();
    },
  });
}
