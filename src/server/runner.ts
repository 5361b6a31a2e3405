/**
 * The runner: one call of a registered handler on one era, with the `ask` of that era's engine.
 * On 2026-07-28 a suspended run becomes `input_required` with a newly sealed journal; whatever a
 * handler throws goes through the one table of wire.ts.
 */

import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { inputRequired } from '@modelcontextprotocol/server';
import { ElicitError, InternalError } from '../errors.ts';
import type { Json } from '../kernel/store.ts';
import { declaresTasks, requestCaps, requestRevision, tasksRequired } from './capabilities.ts';
import { ESCALATE, SUSPEND, type TaskStart } from './engines/contract.ts';
import { type PushedCall, type PushServer, pushCall } from './engines/push.ts';
import {
  type InboxRun,
  type Journal,
  packJournal,
  type ReplayHost,
  replayAsk,
} from './engines/replay.ts';
import { RoundsExceededError } from './errors.ts';
import type { Era, Gate } from './gate.ts';
import { waitingText } from './inbox.ts';
import { type Runnable, type ToolOutput, toToolResult } from './runnable.ts';
import { RequestBinding, type Sealer } from './seal.ts';
import { callContext, heldByBackground } from './server-pool.ts';
import { escapeToWire, type Kind, toolErrorResult, wireError } from './wire.ts';

export type { Runnable, TaskSupport, ToolOutput } from './runnable.ts';

/** What the runner needs from the server. */
export interface RunnerServer extends PushServer {
  readonly sealer: Sealer;
  /** What every replayed run on this server shares. */
  readonly replay: ReplayHost;
  principalOf(ctx: ServerContext): string;
  /**
   * Makes a task of a call (the tasks extension): the runner hands back what the task is made
   * of and answers with what this gives (a CreateTaskResult).
   */
  becomeTask(start: TaskStart, ctx: ServerContext): Promise<unknown>;
}

/** What the handler threw, on the wire: see wire.ts for the one table every era and kind follows. */
export function failed(error: unknown, kind: Kind, era: Era): unknown {
  const wire = wireError(error, kind, era);
  if (wire !== undefined) throw kind === 'tool' ? escapeToWire(wire) : wire;
  if (kind === 'tool' && error instanceof ElicitError) return toolErrorResult(error);
  throw error;
}

export function invoke(
  server: RunnerServer,
  entry: Runnable,
  era: Era,
  mcp: McpServer,
  gates: WeakMap<object, Gate> | undefined,
  args: unknown,
  ctx: ServerContext,
): Promise<unknown> {
  if (era === 'legacy') return invokePush(server, entry, mcp, args, ctx);
  const gate = gates?.get(ctx.mcpReq);
  if (gate === undefined)
    return Promise.reject(
      new InternalError('a request reached a handler without passing the gate'),
    );
  return invokeReplay(server, entry, gate, args, callContext(mcp, ctx), mcp);
}

/**
 * How a 2025 call ends, bound to the call (`this`) and its kind: two bound functions are all a
 * call waiting on a person keeps here, no closures over a scope of their own.
 */
function legacyDone(this: PushedCall, kind: Kind, value: unknown): unknown {
  this.end();
  return kind === 'tool' ? toToolResult(value as ToolOutput) : value;
}

function legacyFailed(this: PushedCall, kind: Kind, error: unknown): unknown {
  this.end();
  return failed(error, kind, 'legacy');
}

/**
 * A call on a 2025 session: the handler runs once, its asks pushed to the client. It has no state
 * to open, so it takes no gate: its principal is resolved here, and a request without one is
 * refused on the wire as at the gate. A promise chain, not an async function: a call waiting on
 * a person keeps no suspended frame here.
 */
function invokePush(
  server: RunnerServer,
  entry: Runnable,
  mcp: McpServer,
  args: unknown,
  ctx: ServerContext,
): Promise<unknown> {
  const { kind } = entry;
  let out: unknown;
  let call: PushedCall | undefined;
  try {
    call = pushCall(ctx, mcp, server, server.principalOf(ctx), entry.name ?? '');
    out = entry.handler(args, call.ask(), ctx);
  } catch (error) {
    const ended = call;
    return new Promise((resolve) =>
      resolve(
        ended === undefined ? failed(error, kind, 'legacy') : legacyFailed.call(ended, kind, error),
      ),
    );
  }
  // However the handler ends, what it still has on the person's screen is withdrawn.
  return Promise.resolve(out).then(legacyDone.bind(call, kind), legacyFailed.bind(call, kind));
}

/** A call on 2026-07-28: the handler is replayed each round over the opened journal. */
async function invokeReplay(
  server: RunnerServer,
  entry: Runnable,
  gate: Gate,
  args: unknown,
  ctx: ServerContext,
  mcp: McpServer,
): Promise<unknown> {
  const era = 'modern';
  const kind = entry.kind;
  const caps = requestCaps(ctx);
  const revision = requestRevision(ctx);
  // A tool that runs as a task: with the extension declared it becomes one (at once, or at
  // ask.background()); without it, a `required` one is refused and an `optional` one runs here.
  const task = kind === 'tool' ? entry.task : undefined;
  const asTask = task !== undefined && declaresTasks(caps);
  if (task?.support === 'required' && !asTask)
    return failed(tasksRequired(`This tool runs as a task and`), kind, era);
  const clientId = ctx.http?.authInfo?.clientId;
  const becomeTask = (journal: Journal) => {
    // The task runs on with this request's context: its server is not reused.
    heldByBackground(mcp);
    return server
      .becomeTask(
        {
          principal: gate.binding.principal,
          name: gate.binding.name,
          args: (args ?? {}) as Json,
          journal: { ...journal, p: [] } as unknown as Json,
          context: { revision, caps, clientId, rounds: gate.round },
        },
        ctx,
      )
      .catch((error: unknown) => failed(error, kind, era));
  };
  const { journal } = gate;
  if (asTask && task.start === 'call') return becomeTask(journal);
  const run = {
    host: server.replay,
    journal,
    fresh: gate.fresh,
    responses: (ctx.mcpReq.inputResponses ?? undefined) as Record<string, unknown> | undefined,
    caps,
    pending: new Map(),
    revision,
    principal: gate.binding.principal,
    clientId,
    signal: ctx.mcpReq.signal,
    escalate: asTask,
    inbox: inboxRun(server, kind, gate),
  };
  let out: unknown;
  try {
    out = await entry.handler(args, replayAsk(run, ctx), ctx);
  } catch (error) {
    // ask.background() with asks still pending (inside ask.all, say) waits for their round.
    if (error === ESCALATE) {
      if (run.pending.size === 0) return becomeTask(run.journal);
    } else if (error !== SUSPEND) return failed(error, kind, era);
  }
  // Questions waiting on the inbox page end the call with their link (the retry takes the answer).
  if (run.inbox !== undefined && run.inbox.waiting.length > 0) return inboxResult(run.inbox);
  // Pending asks win even if the handler caught the suspension and returned something.
  if (run.pending.size > 0) {
    const round = gate.round + 1;
    if (round > server.limits.maxRounds)
      return failed(new RoundsExceededError(server.limits.maxRounds), kind, era);
    run.journal.p = [...run.pending.keys()];
    const requestState = server.sealer.seal(packJournal(run.journal), gate.binding, round);
    return inputRequired({ inputRequests: Object.fromEntries(run.pending), requestState });
  }
  // The answers the inbox gave this call are used: gone, so they count for this call only.
  if (run.inbox !== undefined) await forgetAnswers(run.inbox);
  return entry.kind === 'tool' ? toToolResult(out as ToolOutput) : out;
}

/** The inbox of a tool call on 2026-07-28 (prompts and resources keep today's refusal). */
function inboxRun(server: RunnerServer, kind: Kind, gate: Gate): InboxRun | undefined {
  if (server.inbox === undefined || kind !== 'tool') return undefined;
  const { binding } = gate;
  const identity =
    binding instanceof RequestBinding
      ? binding.identity()
      : JSON.stringify([binding.principal, binding.method, binding.name, binding.args ?? null]);
  return { inbox: server.inbox, name: binding.name, identity, waiting: [], used: [] };
}

/**
 * The call's result while questions wait on the inbox page: not an error (nothing failed); the
 * text says where to answer and to call again, `_meta["elicit/inbox"]` names the questions.
 */
function inboxResult(ib: InboxRun): CallToolResult {
  const url = ib.inbox.port.url;
  return {
    content: [{ type: 'text', text: waitingText(url) }],
    _meta: { 'elicit/inbox': { url, ids: [...new Set(ib.waiting)] } },
  };
}

async function forgetAnswers(ib: InboxRun): Promise<void> {
  await Promise.all(ib.used.map((id) => ib.inbox.port.remove(id).catch(() => {})));
}
