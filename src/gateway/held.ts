/**
 * Held calls: an upstream call on a 2025 session (the server pushes its questions while the call
 * is open) kept alive across downstream requests. Each question the server pushes is the call's
 * next event; the downstream side reads events by index and answers them by index, so a
 * 2026-07-28 host's retries (which replay the forwarding handler from the start) read the same
 * events again and answer each question once. Bounded per principal and per process; a call
 * nobody reads for `idleMs` is cancelled upstream and forgotten, and a call that belongs to a
 * task is when the task ends (forward.ts).
 */
import { randomBytes } from 'node:crypto';
import type { InputRequest } from '@modelcontextprotocol/server';
import { ElicitError } from '../errors.ts';
import { ELICIT_GATEWAY_HELD_GONE, ELICIT_GATEWAY_HELD_LIMIT } from '../kernel/error-codes.ts';

/** What happened next in a held call: a question, or its end. */
export type HeldEvent =
  | { readonly kind: 'ask'; readonly request: InputRequest }
  | { readonly kind: 'result'; readonly result: unknown }
  | { readonly kind: 'error'; readonly error: unknown };

export interface HeldLimits {
  /** Calls held at once in this process; default 1000. */
  readonly maxHeld: number;
  /** Calls held at once for one principal; default 16. */
  readonly maxHeldPerPrincipal: number;
  /** A held call nobody reads for this long is cancelled upstream (one offered as a task lives as long as the task); default 10 minutes. */
  readonly idleMs: number;
  /** Questions one call may push; default 64. */
  readonly maxQuestions: number;
}

export const DEFAULT_HELD_LIMITS: HeldLimits = Object.freeze({
  maxHeld: 1000,
  maxHeldPerPrincipal: 16,
  idleMs: 600_000,
  maxQuestions: 64,
});

/** Questions pushed in this process so far: orders them across held calls. */
let asked = 0;

/** A held call is full, gone or expired: said plainly to the host. */
export class HeldCallError extends ElicitError {}

interface Waiter {
  readonly resolve: (event: HeldEvent) => void;
}

/** One upstream call held for a principal. */
export class HeldCall {
  readonly id: string;
  readonly principal: string;
  /** Aborts the upstream request (idle expiry, or the host going away on a 2025 session). */
  readonly abort = new AbortController();
  readonly #events: HeldEvent[] = [];
  readonly #answers: ((value: unknown) => void)[] = [];
  readonly #answered = new Set<number>();
  readonly #waiters = new Map<number, Waiter[]>();
  readonly #owner: HeldCalls;
  /** Watches on what the call belongs to (its task): stopped when the call is forgotten. */
  readonly #watches: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  #lastAsked = 0;

  constructor(owner: HeldCalls, principal: string) {
    this.#owner = owner;
    this.principal = principal;
    this.id = randomBytes(16).toString('base64url');
    this.touch();
  }

  /** A question of this call is waiting for its answer. */
  get waiting(): boolean {
    return this.#answers.length > this.#answered.size;
  }

  get ended(): boolean {
    const last = this.#events.at(-1);
    return last !== undefined && last.kind !== 'ask';
  }

  /** The upstream server pushed a question: the promise is its answer. */
  question(request: InputRequest): Promise<unknown> {
    if (this.ended || this.#answers.length >= this.#owner.limits.maxQuestions)
      return Promise.reject(
        new HeldCallError(
          ELICIT_GATEWAY_HELD_LIMIT,
          `The call asked more than ${this.#owner.limits.maxQuestions} questions (held.maxQuestions); the gateway stopped it.`,
        ),
      );
    this.#lastAsked = ++asked;
    return new Promise((resolve) => {
      this.#answers.push(resolve);
      this.#push({ kind: 'ask', request });
    });
  }

  /** When this call last pushed a question, in this process's order of questions (0: never). */
  get lastAsked(): number {
    return this.#lastAsked;
  }

  /** The upstream call ended. */
  end(event: Exclude<HeldEvent, { kind: 'ask' }>): void {
    if (this.ended) return;
    this.#push(event);
  }

  /** Event `index` if it happened already. */
  peek(index: number): HeldEvent | undefined {
    return this.#events[index];
  }

  /** Event `index`, waiting for it when the upstream has not got that far yet. */
  next(index: number, signal?: AbortSignal): Promise<HeldEvent> {
    this.touch();
    const event = this.#events[index];
    if (event !== undefined) return Promise.resolve(event);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (e) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(e);
        },
      };
      const onAbort = () => {
        const list = this.#waiters.get(index);
        list?.splice(list.indexOf(waiter), 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const list = this.#waiters.get(index) ?? [];
      list.push(waiter);
      this.#waiters.set(index, list);
    });
  }

  /** The answer to question `index`; later answers to the same question are ignored (replays). */
  answer(index: number, value: unknown): void {
    if (value === undefined) return;
    this.touch();
    const resolve = this.#answers[index];
    if (resolve === undefined || this.#answered.has(index)) return;
    this.#answered.add(index);
    resolve(value);
  }

  /** Keeps the call from expiring for another `idleMs`. */
  touch(): void {
    if (this.#watches.length > 0) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.expire(), this.#owner.limits.idleMs);
    this.#timer.unref?.();
  }

  /**
   * The call ended and a 2026-07-28 host will replay past it: it stays readable until it idles
   * out, no longer counted against its principal.
   */
  release(): void {
    this.#owner.uncount(this);
  }

  /**
   * The call belongs to something whose end ends it (a task): it no longer idles out, as the
   * task promised its reader its own lifetime; `stop` ends the watch once the call is forgotten.
   */
  belongTo(stop: () => void): void {
    if (!this.#owner.has(this)) {
      stop();
      return;
    }
    this.#watches.push(stop);
    clearTimeout(this.#timer);
  }

  /** Cancels the upstream call and forgets it. */
  expire(reason = 'expired'): void {
    clearTimeout(this.#timer);
    this.#owner.forget(this);
    for (const stop of this.#watches.splice(0)) stop();
    if (!this.ended)
      this.end({
        kind: 'error',
        error: new HeldCallError(
          ELICIT_GATEWAY_HELD_GONE,
          `The call was ${reason} while it waited for an answer; call the tool again.`,
        ),
      });
    this.abort.abort(
      new HeldCallError(ELICIT_GATEWAY_HELD_GONE, `The gateway's held call was ${reason}.`),
    );
  }

  #push(event: HeldEvent): void {
    const index = this.#events.length;
    this.#events.push(event);
    const list = this.#waiters.get(index);
    this.#waiters.delete(index);
    for (const w of list ?? []) w.resolve(event);
  }
}

/** The held calls of one process, by id, within the limits. */
export class HeldCalls {
  readonly limits: HeldLimits;
  readonly #calls = new Map<string, HeldCall>();
  readonly #perPrincipal = new Map<string, number>();

  constructor(limits?: Partial<HeldLimits>) {
    this.limits = { ...DEFAULT_HELD_LIMITS, ...limits };
  }

  get size(): number {
    return this.#calls.size;
  }

  /** A new held call for `principal`, or HeldCallError past the limits. */
  start(principal: string): HeldCall {
    const mine = this.#perPrincipal.get(principal) ?? 0;
    if (this.#calls.size >= this.limits.maxHeld)
      throw new HeldCallError(
        ELICIT_GATEWAY_HELD_LIMIT,
        `The gateway holds ${this.limits.maxHeld} calls waiting for answers already (held.maxHeld); try again later.`,
      );
    if (mine >= this.limits.maxHeldPerPrincipal)
      throw new HeldCallError(
        ELICIT_GATEWAY_HELD_LIMIT,
        `You have ${mine} calls waiting for answers already (held.maxHeldPerPrincipal); answer or cancel one first.`,
      );
    const call = new HeldCall(this, principal);
    this.#calls.set(call.id, call);
    this.#perPrincipal.set(principal, mine + 1);
    return call;
  }

  /** The call `id` if it is `principal`'s (another principal's call is as unknown as none). */
  get(id: string, principal: string): HeldCall {
    const call = this.#calls.get(id);
    if (call === undefined || call.principal !== principal)
      throw new HeldCallError(
        ELICIT_GATEWAY_HELD_GONE,
        'The call this answer belongs to is no longer held by this gateway (it ended, expired, or its process restarted); call the tool again.',
      );
    return call;
  }

  /** @internal whether `call` is still held. */
  has(call: HeldCall): boolean {
    return this.#calls.get(call.id) === call;
  }

  /** @internal */
  forget(call: HeldCall): void {
    if (!this.#calls.delete(call.id)) return;
    this.uncount(call);
  }

  readonly #uncounted = new WeakSet<HeldCall>();

  /** @internal the call no longer counts against its principal. */
  uncount(call: HeldCall): void {
    if (this.#uncounted.has(call)) return;
    this.#uncounted.add(call);
    const n = (this.#perPrincipal.get(call.principal) ?? 1) - 1;
    if (n <= 0) this.#perPrincipal.delete(call.principal);
    else this.#perPrincipal.set(call.principal, n);
  }

  /** Cancels every held call (the gateway is closing). */
  closeAll(): void {
    for (const call of [...this.#calls.values()]) call.expire('closed');
  }
}
