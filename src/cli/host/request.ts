/**
 * One request of `elicit host` with everything around it, and tool calls (as a task when the
 * tool requires one).
 */

import type { RequestOptions } from '@modelcontextprotocol/client';
import type { TaskCallOptions, TaskState } from '../../client/index.ts';
import { inert, needsTask } from '../../client/index.ts';
import {
  ELICIT_HOST_CALL,
  ELICIT_HOST_CONNECT,
  ELICIT_HOST_GONE,
  ELICIT_HOST_TIMEOUT,
} from '../../kernel/error-codes.ts';
import {
  Cancelled,
  describeFailure,
  HostError,
  isAbort,
  isDisconnected,
  isSessionGone,
} from './errors.ts';
import { IdleTimer } from './idle.ts';
import { type Host, quitCode, type RunningCall, say } from './state.ts';
import { progressBar } from './status.ts';

// The SDK's own per-request timer is replaced by IdleTimer (which can pause); this keeps it out of the way.
const NO_SDK_TIMEOUT = 2_147_000_000;

/**
 * A tool call; on 2025-11-25 a tool that requires a task is called as one (the SDK's call
 * would be refused with -32601).
 */
export async function callTool(
  h: Host,
  name: string,
  args: Record<string, unknown>,
  options: RequestOptions & TaskCallOptions,
) {
  const tool = h.lists.tools.find((t) => t.name === name);
  return h.link.elicit.callTool({ name, arguments: args }, { ...options, asTask: needsTask(tool) });
}

/** One send of a request: its abort, its idle timer, the call the screens see, and why it ended. */
interface Attempt {
  readonly controller: AbortController;
  /** Aborted when the attempt ends: every screen of the call closes with it. */
  readonly ended: AbortController;
  readonly timer: IdleTimer;
  readonly call: RunningCall;
  cancelled: boolean;
  timedOut: boolean;
}

/** What a request keeps across its attempts. */
interface Following {
  /** The task this call became, if any: kept across reconnects. */
  taskId: string | undefined;
  reconnects: number;
}

/**
 * One request with everything around it: status line, progress bar, the idle timeout, Ctrl-C
 * and `c` to cancel (sent to the server as notifications/cancelled, or tasks/cancel for a
 * task), reconnect and resend once when the server forgot the session. A call the server runs
 * as a task shows the task's status; when the connection drops while it runs, the host
 * reconnects and picks the same task up again by its id instead of calling again.
 */
export async function request<T>(
  h: Host,
  label: string,
  send: (options: RequestOptions & TaskCallOptions) => Promise<T>,
): Promise<T> {
  const { link, status } = h;
  const follow: Following = { taskId: undefined, reconnects: 0 };
  for (let attempt = 0; ; attempt++) {
    if (!link.alive) {
      if (link.isStdio && h.o.interactive)
        throw new HostError(ELICIT_HOST_GONE, 'The server is not running.');
      status.set(link.isStdio ? 'restarting server…' : 'reconnecting…');
      await link.reopen();
    }
    const a = startAttempt(h, label);
    const options = callOptions(h, label, a, follow);
    try {
      if (follow.taskId !== undefined)
        return (await link.elicit.resumeTask(follow.taskId, options)) as T;
      return await send(options);
    } catch (error) {
      // Throws unless the request is to be sent (or its task followed) again.
      await recover(h, error, a, follow, attempt);
    } finally {
      await endAttempt(h, a);
    }
  }
}

/** An attempt begins: it is the active call, on the status line, with the keys that cancel it. */
function startAttempt(h: Host, label: string): Attempt {
  const link = h.link;
  const controller = new AbortController();
  const ended = new AbortController();
  const timer = new IdleTimer(h.limits.callTimeoutMs, () => {
    a.timedOut = true;
    controller.abort();
  });
  const a: Attempt = {
    controller,
    ended,
    timer,
    cancelled: false,
    timedOut: false,
    call: {
      label,
      signal: controller.signal,
      ended: ended.signal,
      screens: new Set(),
      pages: new Map(),
      timer,
      cancel: () => {
        a.cancelled = true;
        controller.abort();
      },
      retryNow: () => link.elicit.retryNow(),
      pendingCount: () => link.elicit.pending.size,
    },
  };
  h.active = a.call;
  h.status.set(`${label}…  (Ctrl-C cancels)`);
  h.keys.on((key) => callKey(h, a, key));
  return a;
}

/** A key while the call runs: Ctrl-C cancels (twice quits), `c` or Esc cancels. */
function callKey(h: Host, a: Attempt, key: string): void {
  if (key === '\u0003') {
    h.interrupts++;
    if (a.cancelled || h.interrupts >= 2) {
      h.interrupts = 2;
      a.controller.abort();
    } else {
      say(h, 'Cancelling… (Ctrl-C again quits)');
      a.call.cancel();
    }
  } else if (key === 'c' || key === '\u001b') a.call.cancel();
}

/** The request's options: its abort, the progress bar, and a task's status as it runs. */
function callOptions(
  h: Host,
  label: string,
  a: Attempt,
  follow: Following,
): RequestOptions & TaskCallOptions {
  const { status } = h;
  const { timer } = a;
  return {
    signal: a.controller.signal,
    timeout: NO_SDK_TIMEOUT,
    onprogress: (progress) => {
      timer.reset();
      const message =
        typeof progress.message === 'string' ? ` ${inert(progress.message, 80, false)}` : '';
      status.set(`${label} ${progressBar(progress.progress, progress.total)}${message}`);
    },
    onTask: (task) => {
      // Each poll is the server answering: the idle timer only watches for silence.
      timer.reset();
      if (follow.taskId === undefined)
        say(h, h.dim(`${label}: running as task ${inert(task.taskId, 80, false)}`));
      follow.taskId = task.taskId;
      status.set(`${label} [task ${describeTask(task)}]  (Ctrl-C cancels)`);
    },
  };
}

/**
 * A failed attempt: cancelled, timed out or failed (thrown, named), or a dropped connection the
 * request survives: a task is followed again after a paced reconnect; a request refused because
 * a restarted server forgot the session is sent again once.
 */
async function recover(
  h: Host,
  error: unknown,
  a: Attempt,
  follow: Following,
  attempt: number,
): Promise<void> {
  const { link, status, limits } = h;
  if (a.cancelled || quitCode(h) !== undefined) throw new Cancelled();
  if (a.timedOut)
    throw new HostError(
      ELICIT_HOST_TIMEOUT,
      `No answer from the server within ${Math.round(limits.callTimeoutMs / 1000)} s (--timeout); the call was cancelled.`,
    );
  if (isAbort(error)) throw new Cancelled();
  const dropped = isSessionGone(error) || isDisconnected(error);
  if (follow.taskId !== undefined && dropped && follow.reconnects < limits.taskReconnects) {
    // The task lives on the server: reconnect (paced) and follow it again by its id.
    say(
      h,
      `The connection to the server dropped; picking task ${inert(follow.taskId, 80, false)} up again…`,
    );
    status.set('reconnecting…');
    follow.reconnects = await reconnectPaced(h, follow.reconnects);
    return;
  }
  if (attempt === 0 && follow.taskId === undefined && !link.isStdio && dropped) {
    // A restarted server no longer knows the session: a new one, and the request again
    // (it was refused before it ran).
    say(h, 'The server lost the session (restarted?); reconnecting…');
    status.set('reconnecting…');
    try {
      await link.reopen();
    } catch (reconnect) {
      throw asHostError(reconnect);
    }
    return;
  }
  throw new HostError(ELICIT_HOST_CALL, describeFailure(error, link.child()), {
    cause: error,
  });
}

/** An attempt ends: its keys and timer stop, its screens close, the status line clears. */
async function endAttempt(h: Host, a: Attempt): Promise<void> {
  h.keys.off();
  a.timer.stop();
  // Every screen of the call closes with it, before anything else is shown.
  a.ended.abort();
  await Promise.allSettled([...a.call.screens]);
  h.status.set('');
  h.active = undefined;
}

/**
 * Reconnects to follow a task again, waiting longer each time (up to limits.taskReconnects
 * attempts in all); returns the attempts made so far.
 */
async function reconnectPaced(h: Host, reconnects: number): Promise<number> {
  const { limits } = h;
  for (;;) {
    const wait = Math.min(limits.retryFirstMs * 2 ** reconnects, limits.retryMaxMs);
    reconnects++;
    await new Promise((r) => setTimeout(r, wait));
    try {
      await h.link.reopen();
      return reconnects;
    } catch (reconnect) {
      if (reconnects >= limits.taskReconnects) throw asHostError(reconnect);
    }
  }
}

/** A reconnect failure as the host names it. */
function asHostError(error: unknown): HostError {
  return error instanceof HostError
    ? error
    : new HostError(ELICIT_HOST_CONNECT, describeFailure(error));
}

/** `working: step 2 of 5`, the status and the server's message (already inert). */
function describeTask(task: TaskState): string {
  const status = task.status.replace('_', ' ');
  return task.statusMessage === undefined || task.statusMessage === ''
    ? status
    : `${status}: ${task.statusMessage}`;
}
