/**
 * The task engine (2026-07-28, `io.modelcontextprotocol/tasks`): the replay engine with its
 * journal in the task record instead of a sealed requestState. Each run replays the handler from
 * the journal; an ask without an answer parks the task in `input_required` under a fresh wire key
 * (the ask's key and a random suffix, never reused), and the run that follows the last answer
 * replays with the answers taken from the record. Step results are written to the record as they
 * are made, so a run that dies is resumed from its last journaled point, never recomputing them.
 *
 * A running handler holds a lease (this process and an expiry, renewed while it runs). A task
 * whose lease ran out while `working` lost its process: the next `tasks/get` on any replica takes
 * it over and replays it (at most `tasks.maxResumes` times, then it is marked failed). Replaying
 * is safe because the journal holds every answer and step result, and `ask.once` steps refuse a
 * second run through their markers; the bound stops a handler that kills its process every time.
 */
import {
  type CallToolResult,
  type InputRequest,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ElicitError } from '../../errors.ts';
import { ELICIT_STORE_UNAVAILABLE } from '../../kernel/error-codes.ts';
import { pooledRandom } from '../../kernel/random.ts';
import { type Json, type Store, type Stored, StoreError } from '../../kernel/store.ts';
import { createAsk } from '../asks.ts';
import { AskAbandonedError, RoundsExceededError } from '../errors.ts';
import type { Faults } from '../faults.ts';
import {
  createQuestion,
  InboxExpiredError,
  type InboxRequest,
  inboxCall,
  type ResolvedInbox,
  responseOf,
  waitForAnswer,
  waitingText,
} from '../inbox.ts';
import { type Runnable, type ToolOutput, toToolResult } from '../runnable.ts';
import { RequestBinding } from '../seal.ts';
import {
  isTerminal,
  leaseLapsed,
  readTask,
  type TaskError,
  type TaskLimits,
  type TaskRecord,
  updateTask,
  without,
} from '../tasks/records.ts';
import type { CompletionPort } from '../url-port.ts';
import { toolErrorResult, wireError } from '../wire.ts';
import {
  type Engine,
  type Receiver,
  SUSPEND,
  type TaskContext,
  type UrlStepResult,
} from './contract.ts';
import { type Journal, ReplayEngine, type ReplayHost, type Run } from './replay.ts';

/** A pending request as the record keeps it: the ask's own key and what went to the client. */
interface Parked {
  readonly ask: string;
  readonly request: InputRequest;
}

/** What the task engine needs from the server. */
export interface TaskHost {
  readonly store: Store;
  readonly limits: TaskLimits;
  /** What every run on this server shares (a task's runs are replay runs). */
  readonly replay: ReplayHost;
  /** Where failures of the work a task does outside any request are told. */
  readonly faults: Faults;
  /** This process, as lease owner. */
  readonly owner: string;
  /** Handlers running in this process, by task id. */
  readonly running: Map<string, AbortController>;
  /** The registration a task runs (tools are looked up by name on every replica). */
  entry(name: string): Runnable | undefined;
}

/** What a handler's failure makes of the task: a tool's own error completes it, a protocol error fails it. */
export function settleFailure(error: unknown): { result: CallToolResult } | { error: TaskError } {
  const wire = wireError(error, 'tool', 'modern');
  if (wire !== undefined)
    return {
      error: {
        code: wire.code,
        message: wire.message,
        ...(wire.data === undefined ? {} : { data: wire.data as Json }),
      },
    };
  if (error instanceof ElicitError) return { result: toolErrorResult(error) };
  // McpServer answers any other throw of a tool with an isError result; a task does the same.
  const message = error instanceof Error ? error.message : String(error);
  return { result: { content: [{ type: 'text', text: message }], isError: true } };
}

const wireKey = (ask: string) => `${ask}~${Buffer.from(pooledRandom(9)).toString('base64url')}`;

export const leaseFor = (host: TaskHost) => ({
  owner: host.owner,
  until: Date.now() + host.limits.leaseMs,
});

/**
 * A handler's view of the call inside a task: its signal is the task's (cancel aborts it), and
 * progress it reports (with the task id as progress token) becomes the task's status message,
 * written at most every `tasks.progressEveryMs`.
 */
function taskContext(
  base: ServerContext,
  id: string,
  principal: string,
  signal: AbortSignal,
  onProgress: (p: { progress: number; total?: number; message?: string }) => void,
): ServerContext {
  const mcpReq = base.mcpReq;
  const ctx = {
    ...base,
    mcpReq: {
      ...mcpReq,
      signal,
      _meta: { ...mcpReq._meta, progressToken: id },
      notify: async (n: { method: string; params?: Record<string, unknown> }) => {
        if (n.method !== 'notifications/progress' || n.params === undefined) return;
        const { progress, total, message } = n.params;
        if (typeof progress !== 'number' || !Number.isFinite(progress)) return;
        onProgress({
          progress,
          ...(typeof total === 'number' && Number.isFinite(total) ? { total } : {}),
          ...(typeof message === 'string' ? { message: message.slice(0, 1000) } : {}),
        });
      },
    },
  } as unknown as ServerContext;
  inTask.set(ctx, { id, principal });
  return ctx;
}

/** The task each handler's context runs in (weakly: a context lives as long as its run). */
const inTask = new WeakMap<ServerContext, { readonly id: string; readonly principal: string }>();

/**
 * The task a handler runs in, when `ctx` is a task run's (2026-07-28 tasks extension): what a
 * handler holding something outside the task (a gateway's held call) needs to watch its end.
 */
export const taskOf = (ctx: ServerContext) => inTask.get(ctx);

/**
 * Runs (or replays) the handler of task `id` once, in the background of whichever request
 * brought it here; the caller has taken the lease. Settles the record: completed, failed,
 * cancelled, or parked in `input_required` with fresh keys. `known`: the record as the caller
 * just wrote it (with this process's lease) and its version, which saves a read. `durable`:
 * settles once `known` is durable, when the caller starts the run as soon as it is committed;
 * a step, an inbox question or a connect link (what the run does outside its record) waits
 * for it, and a rejection fails them with the store's error.
 */
export function drive(
  host: TaskHost,
  id: string,
  principal: string,
  base: ServerContext,
  known?: Stored<TaskRecord & Json>,
  durable?: Promise<void>,
): Promise<void> {
  // Runs detached from any request: a store that fails past every retry leaves the lease to
  // lapse, and the next tasks/get takes the task over (or fails it once it was taken over too
  // often). The failure is told to the server's onWarning, never left unhandled.
  durable?.catch(() => {});
  return runOnce(host, id, principal, base, known, durable).catch((error: unknown) =>
    host.faults.failed(RUN, error),
  );
}

/**
 * A task write that must happen for the task to go on (a step's result, the parking, the end):
 * while the store is unavailable it is tried again, every 100 ms growing to 500 ms, for as long
 * as the lease (`until()`) holds; then the store's error is thrown and the lease lapses (see
 * docs/server.md, "When the store fails").
 */
export async function whileLeased<T>(
  faults: Faults,
  until: () => number,
  write: () => Promise<T>,
): Promise<T> {
  for (let wait = 100; ; wait = Math.min(wait * 2, 500)) {
    try {
      const out = await write();
      faults.recovered(JOURNAL);
      return out;
    } catch (error) {
      if (!transient(error) || Date.now() + wait >= until()) throw error;
      faults.failed(JOURNAL, error);
      await new Promise((r) => setTimeout(r, wait).unref());
    }
  }
}

const RUN = 'A task run';
const RENEW = "A task's lease renewal";
const PROGRESS = "A task's progress write";
const JOURNAL = "A task's record write";

/** A store outage a task's writes wait out (anything else fails at once). */
const transient = (error: unknown): boolean =>
  error instanceof StoreError && error.code === ELICIT_STORE_UNAVAILABLE;

async function runOnce(
  host: TaskHost,
  id: string,
  principal: string,
  base: ServerContext,
  known: Stored<TaskRecord & Json> | undefined,
  durable: Promise<void> | undefined,
): Promise<void> {
  // The record as last written by this run: each write starts from it instead of a read.
  let last = known ?? (await readTask(host.store, id, principal));
  const record = last?.value as TaskRecord | undefined;
  if (record === undefined) return;
  if (isTerminal(record.status) || record.lease?.owner !== host.owner) return;
  const entry = host.entry(record.name);
  const context = record.context as unknown as TaskContext;
  const abort = new AbortController();
  host.running.set(id, abort);
  const write = async (change: (r: TaskRecord) => TaskRecord | undefined) => {
    const u = await updateTask(host.store, id, principal, change, host.limits, Date.now, last);
    last = u?.written;
    return u;
  };
  // Until when this process holds the task: the lease as last written.
  let leaseUntil = record.lease?.until ?? Date.now();
  const update = (change: (r: TaskRecord) => TaskRecord | undefined) =>
    whileLeased(
      host.faults,
      () => leaseUntil,
      () => write(change),
    );
  // The lease is renewed while the handler runs; a cancel seen there aborts it.
  const renew = setInterval(
    () => {
      const next = leaseFor(host);
      host.faults.detach(
        RENEW,
        write((r) =>
          r.lease?.owner === host.owner && !isTerminal(r.status)
            ? { ...r, lease: next }
            : undefined,
        ).then((u) => {
          if (u === undefined || isTerminal(u.record.status)) abort.abort();
          else if (u.changed) leaseUntil = next.until;
        }),
      );
    },
    Math.max(1, Math.floor(host.limits.leaseMs / 3)),
  );
  renew.unref();
  let progressTimer: NodeJS.Timeout | undefined;
  let latest: Progress | undefined;
  let lastWrite = 0;
  const flush = () => {
    progressTimer = undefined;
    const p = latest;
    if (p === undefined) return;
    latest = undefined;
    lastWrite = Date.now();
    // Progress is best effort: a write lost to an outage is replaced by the next report.
    host.faults.detach(
      PROGRESS,
      write((r) => (r.status === 'working' ? { ...r, ...progressFields(p) } : undefined)),
    );
  };
  // The last progress a handler reported, not written yet: it goes with the parking or terminal
  // write, so a task does not show a message from before its last throttled report.
  const unwritten = (): Progress | undefined => {
    if (progressTimer !== undefined) clearTimeout(progressTimer);
    progressTimer = undefined;
    const p = latest;
    latest = undefined;
    return p;
  };
  const onProgress = (p: Progress) => {
    latest = p;
    if (progressTimer !== undefined) return;
    const wait = Math.max(0, lastWrite + host.limits.progressEveryMs - Date.now());
    progressTimer = setTimeout(flush, wait);
    progressTimer.unref();
  };
  try {
    if (entry === undefined) {
      await settle(update, {
        error: {
          code: ProtocolErrorCode.MethodNotFound,
          message: `The tool ${JSON.stringify(record.name)} is not registered on this server.`,
        },
      });
      return;
    }
    const journal = structuredClone(record.journal) as unknown as Journal;
    // A record written before journals carried `c` has none: no kept answer is taken as checked.
    journal.c ??= {};
    const parked = (record.pending ?? {}) as unknown as Record<string, Parked>;
    const responses: Record<string, unknown> = {};
    for (const [wk, answer] of Object.entries(record.answers ?? {})) {
      const p = parked[wk];
      if (p !== undefined) responses[p.ask] = answer;
    }
    journal.p = Object.values(parked).map((p) => p.ask);
    const run: Run = {
      host: host.replay,
      journal,
      fresh: false,
      responses,
      caps: context.caps,
      pending: new Map(),
      onceTtlMs: Math.max(host.replay.onceTtlMs, record.ttlMs),
      revision: context.revision,
      principal,
      clientId: context.clientId,
      signal: abort.signal,
    };
    const engine = new TaskEngine(run, update, durable, {
      // Hashed only when the run asks through the inbox, not on every run.
      get identity() {
        return taskIdentity(principal, record.name, record.args);
      },
      name: record.name,
      say: (message) => onProgress({ progress: 0, message }),
    });
    const ctx = taskContext(base, id, principal, abort.signal, onProgress);
    const ask = createAsk(engine, principal, host.replay.connect, ctx);
    let out: unknown;
    let thrown: { error: unknown } | undefined;
    try {
      out = await entry.handler(record.args, ask, ctx);
    } catch (error) {
      if (error !== SUSPEND) thrown = { error };
    }
    if (abort.signal.aborted) {
      await settle(update, { cancelled: true });
      return;
    }
    if (engine.lost !== undefined) {
      await settle(update, { error: engine.lost }, unwritten()?.message);
      return;
    }
    if (thrown !== undefined) {
      await settle(update, settleFailure(thrown.error), unwritten()?.message);
      return;
    }
    if (run.pending.size > 0) {
      const rounds = context.rounds + 1;
      const { maxRounds } = host.replay.limits;
      if (rounds > maxRounds) {
        await settle(update, settleFailure(new RoundsExceededError(maxRounds)));
        return;
      }
      const pending: Record<string, Json> = {};
      for (const [ask, request] of run.pending)
        pending[wireKey(ask)] = { ask, request } as unknown as Json;
      journal.p = [];
      // Progress not yet written goes with the parking write: the status message stays visible.
      const p = unwritten();
      await update((r) =>
        isTerminal(r.status)
          ? undefined
          : {
              ...without(r, 'answers', 'lease'),
              ...(p === undefined ? {} : progressFields(p)),
              status: 'input_required',
              journal: journal as unknown as Json,
              pending,
              context: { ...context, rounds } as unknown as Json,
            },
      );
      return;
    }
    await settle(update, { result: toToolResult(out as ToolOutput) }, unwritten()?.message);
  } catch (error) {
    // The store failed or the record outgrew its bound: the task fails with what went wrong.
    // If even that cannot be written, drive() tells it and the lease lapses.
    await settle(update, settleFailure(error), unwritten()?.message);
  } finally {
    clearInterval(renew);
    if (progressTimer !== undefined) clearTimeout(progressTimer);
    // A run started by an answer that came in while this one was parking keeps its entry.
    if (host.running.get(id) === abort) host.running.delete(id);
  }
}

type Progress = { progress: number; total?: number; message?: string };

/** A progress report as record fields. */
const progressFields = (p: Progress) => ({
  progress: { progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }) },
  ...(p.message === undefined ? {} : { statusMessage: p.message }),
});

type Update = (change: (r: TaskRecord) => TaskRecord | undefined) => Promise<unknown>;

/** Moves the task to its terminal status, unless it is already terminal (a cancel wins). */
async function settle(
  update: Update,
  outcome: { result: CallToolResult } | { error: TaskError } | { cancelled: true },
  message?: string,
): Promise<void> {
  await update((r) => {
    if (isTerminal(r.status)) return undefined;
    const rest = {
      ...without(r, 'answers', 'pending', 'lease', 'journal', 'progress'),
      ...(message === undefined ? {} : { statusMessage: message }),
    };
    if ('cancelled' in outcome) return { ...rest, status: 'cancelled' };
    if ('error' in outcome) return { ...rest, status: 'failed', error: outcome.error };
    return { ...rest, status: 'completed', result: outcome.result as unknown as Json };
  });
}

/**
 * The failed task's error when a step ran and its result could not be kept: -32603 with the
 * store's code, saying that the step may have taken effect (so a requester does not simply run
 * it again). The store's own text stays in the server's log.
 */
function stepLost(error: unknown, key: string): TaskError {
  const code = error instanceof ElicitError ? error.code : ELICIT_STORE_UNAVAILABLE;
  return {
    code: ProtocolErrorCode.InternalError,
    message: `The step "${key}" ran, but its result could not be recorded because the server's storage failed; the task was stopped. The step may have taken effect: check before running the task again.`,
    data: { code, step: key },
  };
}

/**
 * The task engine: the replay engine with every new step result written to the record before
 * the handler goes on. A write that fails (after `update`'s retries) is kept in `lost` before
 * the handler sees the error: the step ran, and its result is not kept, so whatever the handler
 * makes of the error, the task fails with the store's error and never completes (a result would
 * hide that the step ran, and a retry would repeat it).
 */
class TaskEngine extends ReplayEngine {
  readonly #update: Update;
  /** Settles once the write that started this run is durable (undefined: it already was). */
  readonly #durable: Promise<void> | undefined;
  readonly #inboxCall: TaskInboxCall;
  /** Answers taken from the inbox by this run (an answer that did not fit is not taken twice). */
  readonly #used = new Set<string>();
  /** The failed task's error when a step's result could not be journaled. */
  lost: TaskError | undefined;

  constructor(
    run: Run,
    update: Update,
    durable: Promise<void> | undefined,
    inboxCall: TaskInboxCall,
  ) {
    super(run);
    this.#update = update;
    this.#durable = durable;
    this.#inboxCall = inboxCall;
  }

  /**
   * A task waits for the inbox as a 2025 call does: it runs in the background anyway, holding
   * its lease. The link goes into the task's status message. A replica that takes the task over
   * finds the same question (by principal, tool, arguments and key), waiting or answered.
   */
  override get inbox(): Engine['inbox'] {
    const inbox = this.run.host.inbox;
    const bus = this.run.host.connect?.app.bus;
    if (inbox === undefined || bus === undefined) return undefined;
    return (key, question, receiver) => this.#waitInbox(inbox, bus, key, question, receiver);
  }

  async #waitInbox(
    inbox: ResolvedInbox,
    bus: CompletionPort,
    key: string,
    question: InboxRequest,
    receiver: Receiver,
  ): Promise<unknown> {
    await this.#durable;
    const { run } = this;
    const { principal, signal } = run;
    const call = inboxCall(this.#inboxCall.identity, key);
    const found = await inbox.port.find(principal, call);
    let id: string;
    if (found?.status === 'answered' && !this.#used.has(found.id)) id = found.id;
    else {
      id =
        found?.status === 'pending'
          ? found.id
          : (await createQuestion(inbox, principal, call, this.#inboxCall.name, question)).id;
      this.#inboxCall.say(waitingText(inbox.port.url, false));
    }
    const waiting = id;
    const got =
      found?.id === id && found.status === 'answered'
        ? found
        : await run.host.waits.hold({ principal, session: undefined }, () =>
            waitForAnswer(inbox, bus, waiting, inbox.waitMs, run.host.faults, signal),
          );
    this.#used.add(id);
    await inbox.port.remove(id).catch(() => {});
    if (got === 'timeout') {
      if (signal.aborted) throw new AskAbandonedError(key, { cause: signal.reason });
      throw new InboxExpiredError(key, inbox.waitMs, inbox.port.url);
    }
    return receiver.received(responseOf(got));
  }

  /** A connect link's record is made outside the task's: once the answer is durable too. */
  override async urlStep(...args: Parameters<ReplayEngine['urlStep']>): Promise<UrlStepResult> {
    await this.#durable;
    return super.urlStep(...args);
  }

  override async step(key: string, fn: () => Promise<unknown>, once: boolean): Promise<unknown> {
    const { journal } = this.run;
    const known = Object.hasOwn(journal.s, key);
    // A step that runs is an effect outside the record: only once the answer that led here
    // is durable, so a write lost to a power cut never leaves a step that ran unrecorded.
    if (!known) await this.#durable;
    const value = await super.step(key, fn, once);
    if (!known) {
      const s = structuredClone(journal.s) as Json;
      try {
        await this.#update((r) => {
          if (isTerminal(r.status)) return undefined;
          const j = (r.journal ?? {}) as Record<string, Json>;
          return { ...r, journal: { ...j, s } };
        });
      } catch (error) {
        this.lost ??= stepLost(error, key);
        throw error;
      }
    }
    return value;
  }
}

/**
 * Takes over a task whose process died while it was `working` (its lease ran out): replays it
 * here, or marks it failed once it has been taken over `tasks.maxResumes` times. True when this
 * process now runs it.
 */
export async function recover(host: TaskHost, record: TaskRecord): Promise<boolean> {
  if (record.status !== 'working' || host.running.has(record.id)) return false;
  if (!leaseLapsed(record, Date.now())) return false;
  const updated = await updateTask(
    host.store,
    record.id,
    record.principal,
    (r) => {
      if (r.status !== 'working' || !leaseLapsed(r, Date.now())) return undefined;
      if (r.resumes >= host.limits.maxResumes)
        return {
          ...without(r, 'lease', 'journal', 'answers', 'pending', 'progress'),
          status: 'failed',
          error: {
            code: ProtocolErrorCode.InternalError,
            message: `The task stopped ${r.resumes + 1} times without finishing (its process ended); it was not run again (tasks.maxResumes = ${host.limits.maxResumes}).`,
          },
        };
      return { ...r, resumes: r.resumes + 1, lease: leaseFor(host) };
    },
    host.limits,
  );
  return updated?.changed === true && updated.record.lease?.owner === host.owner;
}

/** A protocol error for a task that cannot be found (unknown, expired, or another principal's). */
export const unknownTask = () =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown task id', {
    reason: 'unknown_task',
  });

/** What the task engine needs to find its inbox questions and to tell where they wait. */
interface TaskInboxCall {
  /** The call's binding, as the runner makes it for a call: `inboxCall` hashes it. */
  readonly identity: string;
  readonly name: string;
  /** Puts the link into the task's status message. */
  say(message: string): void;
}

/** The binding of the call a task runs (what RequestBinding.identity gives for that call). */
function taskIdentity(principal: string, name: string, args: unknown): string {
  return new RequestBinding(principal, 'tools/call', name, args ?? {}).identity();
}
