/**
 * Task records in a `Store`: create (128-bit random id, bound to a principal, per-principal live cap), read (another principal's task is unknown), compare-and-set update through a pure change function (bounded size, legal status moves only), list by principal; expiry is the store's TTL.
 *
 * Both task surfaces build on this module: the 2026-07-28 extension (`io.modelcontextprotocol/tasks`)
 * and the 2025-11-25 experimental tasks. A record is plain JSON so every store driver can keep it;
 * what an engine needs beyond the common fields (its journal, the client's capabilities) lives in
 * `journal` and `context`, which this module never reads.
 */
import { createHash } from 'node:crypto';
import { ElicitError } from '../../errors.ts';
import {
  ELICIT_TASK_CONFLICT,
  ELICIT_TASK_LIMIT,
  ELICIT_TASK_TOO_LARGE,
} from '../../kernel/error-codes.ts';
import { pooledRandom } from '../../kernel/random.ts';
import type { Json, Store, Stored } from '../../kernel/store.ts';
import type { TaskStatus } from '../../kernel/tasks.ts';
import { checkLimits } from '../errors.ts';

// A task's statuses, written once with the client's (kernel/tasks.ts).
export type { TaskStatus };

export const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export const isTerminal = (status: TaskStatus): boolean => TERMINAL.has(status);

/** The moves a task may make; a terminal task never moves again. */
const MOVES: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  working: ['working', 'input_required', 'completed', 'failed', 'cancelled'],
  input_required: ['working', 'input_required', 'completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

export function canMove(from: TaskStatus, to: TaskStatus): boolean {
  return MOVES[from].includes(to);
}

/** A JSON-RPC error kept on a failed task. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: Json;
}

/** Which process runs the handler now, and until when unless it renews. */
export interface Lease {
  readonly owner: string;
  /** Milliseconds since the epoch. */
  readonly until: number;
}

export interface TaskRecord {
  readonly id: string;
  readonly principal: string;
  /** What created the task (`tools/call`) and for which name and arguments. */
  readonly method: string;
  readonly name: string;
  readonly args: Json;
  readonly status: TaskStatus;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly statusMessage?: string;
  readonly progress?: { readonly progress: number; readonly total?: number };
  /** The engine's journal (answers, step results, markers); opaque here. */
  readonly journal?: Json;
  /** Input requests still waiting for an answer, by key. */
  readonly pending?: { readonly [key: string]: Json };
  /** Answers delivered for pending keys, kept until the handler resumes with them. */
  readonly answers?: { readonly [key: string]: Json };
  readonly result?: Json;
  readonly error?: TaskError;
  readonly lease?: Lease;
  /** How many times another process took the handler over after its lease ran out. */
  readonly resumes: number;
  /** The requester asked to cancel; the running handler is told and settles to `cancelled`. */
  readonly cancelRequested?: boolean;
  /** What the engine needs to run the handler again (revision, client capabilities…); opaque here. */
  readonly context?: Json;
}

export interface TaskLimits {
  /** How long a task is kept from its creation (its `ttlMs`); default one hour. */
  readonly ttlMs: number;
  /** The poll interval suggested to requesters; default 1000 ms. */
  readonly pollIntervalMs: number;
  /** Live (unexpired) tasks one principal may have; default 100. */
  readonly maxLivePerPrincipal: number;
  /** Largest record, as JSON, in UTF-16 code units (journal, pending requests, result); default 1 MiB. */
  readonly maxRecordBytes: number;
  /** How long a running handler's lease lasts unless renewed; default 30 s (renewed every third of it). */
  readonly leaseMs: number;
  /** How often a task whose process died may be taken over before it is marked failed; default 3. */
  readonly maxResumes: number;
  /** Progress and status messages are written at most this often per task; default 1000 ms. */
  readonly progressEveryMs: number;
  /** Compare-and-set attempts before an update gives up (TaskConflictError); default 32. */
  readonly maxUpdateAttempts: number;
  /** Task ids one `subscriptions/listen` stream may watch (more are not honoured); default 32. */
  readonly maxWatchedTasks: number;
  /** Listen streams watching tasks one principal may hold open in this process; default 8. */
  readonly maxTaskSubscriptions: number;
  /** How often a listen stream reads the tasks it watches from the store (changes made on other replicas); default 1000 ms. */
  readonly watchEveryMs: number;
}

export const DEFAULT_TASK_LIMITS: TaskLimits = Object.freeze({
  ttlMs: 3_600_000,
  pollIntervalMs: 1000,
  maxLivePerPrincipal: 100,
  maxRecordBytes: 1_048_576,
  leaseMs: 30_000,
  maxResumes: 3,
  progressEveryMs: 1000,
  maxUpdateAttempts: 32,
  maxWatchedTasks: 32,
  maxTaskSubscriptions: 8,
  watchEveryMs: 1000,
});

export function taskLimits(partial: Partial<TaskLimits> | undefined): TaskLimits {
  const limits = { ...DEFAULT_TASK_LIMITS, ...partial };
  checkLimits('tasks', limits);
  return limits;
}

/** One principal has as many live tasks as it may. */
export class TaskLimitError extends ElicitError {
  readonly limit: number;
  constructor(limit: number) {
    super(
      ELICIT_TASK_LIMIT,
      `You have ${limit} tasks that have not expired yet, the limit (tasks.maxLivePerPrincipal); wait for some to finish and expire, or cancel those you no longer need.`,
    );
    this.limit = limit;
  }
}

/** A task record would be larger than `tasks.maxRecordBytes`. */
export class TaskTooLargeError extends ElicitError {
  readonly limit: number;
  constructor(id: string, size: number, limit: number) {
    super(
      ELICIT_TASK_TOO_LARGE,
      `Task ${id} would take ${size} bytes as JSON, over its limit of ${limit} (tasks.maxRecordBytes); keep results, step values and asked forms smaller, or raise the limit.`,
    );
    this.limit = limit;
  }
}

/** Concurrent writers kept winning the compare-and-set race for one task. */
export class TaskConflictError extends ElicitError {
  constructor(id: string, attempts: number) {
    super(
      ELICIT_TASK_CONFLICT,
      `Task ${id} changed under ${attempts} attempts in a row to update it (tasks.maxUpdateAttempts); try again.`,
    );
  }
}

/** 128 random bits, base64url: 22 characters. */
export function newTaskId(): string {
  return Buffer.from(pooledRandom(16)).toString('base64url');
}

const ID = /^[A-Za-z0-9_-]{22}$/;

/** Whether `id` could have been minted here (anything else is unknown without a store read). */
export const isTaskId = (id: unknown): id is string => typeof id === 'string' && ID.test(id);

export const taskKey = (id: string): string => `task:${id}`;

/** The tag of a principal's tasks: a hash, so a long or odd principal still makes a valid tag. */
export const principalTag = (principal: string): string =>
  `task-of:${createHash('sha256').update(principal).digest('base64url')}`;

function checkSize(record: TaskRecord, limits: TaskLimits): void {
  const size = JSON.stringify(record).length;
  if (size > limits.maxRecordBytes)
    throw new TaskTooLargeError(record.id, size, limits.maxRecordBytes);
}

export interface NewTask {
  readonly principal: string;
  readonly method: string;
  readonly name: string;
  readonly args: Json;
  readonly status?: TaskStatus;
  readonly journal?: Json;
  readonly context?: Json;
  readonly lease?: Lease;
  /** Shorter than `limits.ttlMs` when the requester asked for less. */
  readonly ttlMs?: number;
  /** More tags to find the task by (a listing of one kind of task); the principal's is always set. */
  readonly tags?: readonly string[];
}

/**
 * Creates a task record; resolves only once the store has it, so a `tasks/get` right after sees
 * it. The per-principal cap is the store's count of the principal's live tasks, checked in the
 * same atomic step as the create: racing creations never overshoot it, and its cost does not
 * grow with the number of live tasks.
 */
export async function createTask(
  store: Store,
  init: NewTask,
  limits: TaskLimits,
  now = Date.now(),
): Promise<TaskRecord> {
  const cap = { tag: principalTag(init.principal), max: limits.maxLivePerPrincipal };
  const ttlMs = Math.min(init.ttlMs ?? limits.ttlMs, limits.ttlMs);
  for (;;) {
    const record: TaskRecord = {
      id: newTaskId(),
      principal: init.principal,
      method: init.method,
      name: init.name,
      args: init.args,
      status: init.status ?? 'working',
      createdAt: now,
      updatedAt: now,
      ttlMs,
      pollIntervalMs: limits.pollIntervalMs,
      resumes: 0,
      ...(init.journal === undefined ? {} : { journal: init.journal }),
      ...(init.context === undefined ? {} : { context: init.context }),
      ...(init.lease === undefined ? {} : { lease: init.lease }),
    };
    checkSize(record, limits);
    // A collision of 128 random bits does not happen; the loop only keeps create honest.
    const put = { ttlMs, ...(init.tags === undefined ? {} : { tags: init.tags }) };
    const out = await store.createCapped(taskKey(record.id), record as unknown as Json, put, cap);
    if (out === 'full') throw new TaskLimitError(limits.maxLivePerPrincipal);
    if (out === 'created') return record;
  }
}

/** The task `id` of `principal` with its store version, or undefined (unknown, expired, another's). */
export async function readTask(
  store: Store,
  id: string,
  principal: string,
): Promise<Stored<TaskRecord & Json> | undefined> {
  if (!isTaskId(id)) return undefined;
  const stored = await store.get<TaskRecord & Json>(taskKey(id));
  if (stored === undefined || stored.value.principal !== principal) return undefined;
  return stored;
}

/**
 * What a change does with the current record: the next record, or undefined to leave it as it is.
 * It may run several times (once per compare-and-set attempt), so it must not have side effects.
 */
export type TaskChange = (current: TaskRecord) => TaskRecord | undefined;

export interface Updated {
  readonly record: TaskRecord;
  /** False when the change left the record as it was. */
  readonly changed: boolean;
  /**
   * The record as written, with the version it has now if no one else wrote it since: the
   * replaced version plus one, as every driver counts. Handed back as `first`, it saves the
   * read of the next update; a wrong guess only costs a retry (the compare-and-set refuses it).
   */
  readonly written?: Stored<TaskRecord & Json>;
}

/**
 * Applies `change` with compare-and-set until it sticks; undefined when the task is gone. A
 * status move the table does not allow leaves the record as it is (a terminal task stays
 * terminal). `updatedAt` is set on every write; the expiry set at creation is kept. `first`,
 * the record as the caller just read it, saves the first read (a stale one only costs a retry).
 * `committed` gets the written record as soon as the store has committed it, which on a store
 * that flushes after committing (SQLite) comes before this resolves; else as it resolves.
 */
export async function updateTask(
  store: Store,
  id: string,
  principal: string,
  change: TaskChange,
  limits: TaskLimits,
  now: () => number = Date.now,
  first?: Stored<TaskRecord & Json>,
  committed?: (written: Stored<TaskRecord & Json>) => void,
): Promise<Updated | undefined> {
  for (let attempt = 0; attempt < limits.maxUpdateAttempts; attempt++) {
    const stored =
      attempt === 0 && first !== undefined ? first : await readTask(store, id, principal);
    if (stored === undefined) return undefined;
    const current = stored.value as TaskRecord;
    const proposed = change(current);
    if (proposed === undefined || !canMove(current.status, proposed.status))
      return { record: current, changed: false };
    const next: TaskRecord = { ...proposed, updatedAt: Math.max(now(), current.updatedAt) };
    checkSize(next, limits);
    const written = { ...stored, value: next as TaskRecord & Json, version: stored.version + 1 };
    // Told once: by the driver at its commit, or here when it resolves.
    let told = false;
    const tell = () => {
      if (told || committed === undefined) return;
      told = true;
      committed(written);
    };
    const options = committed === undefined ? undefined : { committed: tell };
    if (await store.update(taskKey(id), stored.version, next as unknown as Json, options)) {
      taskChanged(id);
      tell();
      return { record: next, changed: true, written };
    }
  }
  throw new TaskConflictError(id, limits.maxUpdateAttempts);
}

const watchers = new Map<string, Set<() => void>>();

/**
 * Calls `listener` when this process writes task `id` (listen streams check at once instead of
 * at their next read; changes made by other replicas are seen at that read). Returns the stop.
 */
export function onTaskChange(id: string, listener: () => void): () => void {
  let set = watchers.get(id);
  if (set === undefined) watchers.set(id, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && watchers.get(id) === set) watchers.delete(id);
  };
}

function taskChanged(id: string): void {
  const set = watchers.get(id);
  if (set !== undefined) for (const listener of [...set]) listener();
}

/**
 * One page of the live tasks of `principal` carrying `tag`, in id order after `after` (an id):
 * reads the page's records only, whatever the number of tasks.
 */
export async function listTaskPage(
  store: Store,
  tag: string,
  principal: string,
  after: string | undefined,
  limit: number,
): Promise<{ records: TaskRecord[]; more: boolean }> {
  const keys = await store.findByTag(tag, {
    ...(after === undefined ? {} : { after: taskKey(after) }),
    limit: limit + 1,
  });
  const records: TaskRecord[] = [];
  for (const stored of await Promise.all(
    keys.slice(0, limit).map((key) => store.get<TaskRecord & Json>(key)),
  ))
    if (stored !== undefined && stored.value.principal === principal)
      records.push(stored.value as TaskRecord);
  return { records, more: keys.length > limit };
}

/** Whether the lease on `record` has run out (or there is none): another process may take it. */
export const leaseLapsed = (record: TaskRecord, now: number): boolean =>
  record.lease === undefined || record.lease.until <= now;

/** Drops the optional keys given (JSON has no undefined; records stay minimal). */
export function without<K extends keyof TaskRecord>(record: TaskRecord, ...keys: K[]): TaskRecord {
  const copy = { ...record } as Record<string, unknown>;
  for (const k of keys) delete copy[k];
  return copy as unknown as TaskRecord;
}

/** What a task response carries of its record on either wire (times in ISO 8601). */
export function taskHeader(r: TaskRecord) {
  return {
    taskId: r.id,
    status: r.status,
    ...(r.statusMessage === undefined ? {} : { statusMessage: r.statusMessage }),
    createdAt: new Date(r.createdAt).toISOString(),
    lastUpdatedAt: new Date(r.updatedAt).toISOString(),
  };
}
