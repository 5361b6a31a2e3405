/**
 * The storage contracts every part codes against: `Store` (elicit/store implements it; the
 * server and the connect pages use it) and `OnceStore` (single-use markers for ask.once).
 */
import { ElicitError } from '../errors.ts';
import {
  ELICIT_ONCE_STORE_FULL,
  ELICIT_ONCE_STORE_UNAVAILABLE,
  ELICIT_STORE_FULL,
  ELICIT_STORE_UNAVAILABLE,
  type ElicitErrorCode,
} from './error-codes.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Stored<T extends Json = Json> {
  readonly value: T;
  /** Increases on every write; pass it to `update` for compare-and-set. */
  readonly version: number;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
}

export interface PutOptions {
  readonly ttlMs: number;
  /** Tags to find the record by later (`findByTag`) and count it by (`countByTag`). */
  readonly tags?: readonly string[];
}

/** What `Store.update` takes besides the value: a new TTL, and a hook for the commit. */
export interface UpdateOptions extends Partial<PutOptions> {
  readonly committed?: () => void;
}

/** A cap on the live records carrying one tag, checked by `createCapped`. */
export interface TagCap {
  readonly tag: string;
  /** Live records with `tag` at or above which a capped create refuses. */
  readonly max: number;
}

/** A page of `findByTag`: keys after `after` (in ascending code-unit order), at most `limit`. */
export interface TagPage {
  readonly after?: string;
  readonly limit: number;
}

export interface Store {
  /**
   * `process`: records live in this process only (the memory driver), so replicas do not
   * share them. Absent means shared.
   */
  readonly scope?: 'process' | 'shared';
  /** Creates `key` only if it does not exist (or has expired). True when created. */
  create(key: string, value: Json, options: PutOptions): Promise<boolean>;
  get<T extends Json = Json>(key: string): Promise<Stored<T> | undefined>;
  /**
   * Replaces the value only if the stored version is `version`. True when replaced, once the
   * write is durable. `options.committed`, when the driver honours it, is called once the write
   * has replaced the record but possibly before it is durable (SQLite's group commit): this
   * process may build on it then, because a later write to the same store is never durable
   * before it. Never called for a refused or failed write; a driver may ignore it.
   */
  update(key: string, version: number, value: Json, options?: UpdateOptions): Promise<boolean>;
  /** Removes and returns the record, atomically: only one caller ever gets it. */
  take<T extends Json = Json>(key: string): Promise<Stored<T> | undefined>;
  delete(key: string): Promise<void>;
  /**
   * Like `create`, and only while fewer than `cap.max` live records carry `cap.tag` (the new
   * record carries it too). Atomic with every other create, expiry, take and delete, so racing
   * creators never overshoot the cap; its cost does not grow with the number of live records.
   */
  createCapped(
    key: string,
    value: Json,
    options: PutOptions,
    cap: TagCap,
  ): Promise<'created' | 'exists' | 'full'>;
  /** Keys of live records created with `tag`; with `page`, that page of them in key order. */
  findByTag(tag: string, page?: TagPage): Promise<string[]>;
  /** How many live records carry `tag`: a counter kept with the records, not a listing. */
  countByTag(tag: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * Single-use markers for `ask.once`: `consume` succeeds exactly once per key within its TTL.
 * A store that cannot keep a marker fails closed: it throws, and the step does not run,
 * because forgetting a live marker is what would let a replay run the step again.
 */
export interface OnceStore {
  /**
   * True the first time `key` is consumed (until `ttlMs` passes); false afterwards. Throws
   * OnceStoreFullError rather than forget a live marker.
   */
  consume(key: string, ttlMs: number): Promise<boolean>;
  /** `process`: markers live in this process only, so replicas cannot see each other's. */
  readonly scope: 'process' | 'shared';
}

/** The once store is at its limit with live markers: the step is refused, not run. */
export class OnceStoreFullError extends ElicitError {
  constructor(limit: number) {
    super(
      ELICIT_ONCE_STORE_FULL,
      `The one-time step store holds ${limit} live markers, its limit; the step was not run. Try again once markers expire, raise the limit, or use a shared store (createServer({ store })).`,
    );
  }
}

/**
 * The once store could not be reached: the step is refused, not run. The store's error is the
 * `cause`, never in the message (a client may see the message).
 */
export class OnceStoreUnavailableError extends ElicitError {
  constructor(key: string, cause: unknown) {
    super(
      ELICIT_ONCE_STORE_UNAVAILABLE,
      `The one-time step "${key}" was not run because its marker could not be recorded (the store failed; the cause has its error). Nothing was done; try again when the store is back.`,
      { cause },
    );
  }
}

/**
 * A store refused or failed an operation: `code` says why (ELICIT_STORE_FULL, _KEY, _TTL,
 * _UNAVAILABLE). A driver's own error is kept as `cause` and never put in the message, so
 * raw driver text cannot reach a client through it.
 */
export class StoreError extends ElicitError {
  /** For ELICIT_STORE_FULL from the memory store: the limit that was reached. */
  readonly limit: number | undefined;
  constructor(code: ElicitErrorCode, message: string, limit?: number, options?: ErrorOptions) {
    super(code, message, options);
    this.limit = limit;
  }
}

/**
 * The one way a driver reports a failure of its backend: a StoreError whose code says whether
 * the store is full (`full`) or could not do the operation at all, with the driver's error as
 * `cause`. An error that already is a StoreError passes through unchanged.
 */
export function storeFailure(
  driver: string,
  operation: string,
  cause: unknown,
  full = false,
): StoreError {
  if (cause instanceof StoreError) return cause;
  return full
    ? new StoreError(
        ELICIT_STORE_FULL,
        `The ${driver} store is full: ${operation} wrote nothing. Free space (disk or database) and try again.`,
        undefined,
        { cause },
      )
    : new StoreError(
        ELICIT_STORE_UNAVAILABLE,
        `The ${driver} store could not ${operation}; nothing was changed. Try again when the store is reachable (the cause has the driver's error).`,
        undefined,
        { cause },
      );
}
