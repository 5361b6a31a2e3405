/**
 * The signal a 2025 call's pushed requests go out with: aborted when the call is (the client
 * cancelled it or hung up, or the session closed), or when elicit withdraws what the call still
 * has on the person's screen (the call ended, or another question of its round failed). Aborting
 * a request the SDK sent with a signal sends `notifications/cancelled` for it, so the client
 * takes the question away.
 *
 * Not an AbortController linked to the call's signal: the SDK reads a request's signal through
 * `aborted`, `reason` and one `abort` listener, added when the request goes out and removed when
 * it settles (seam `requestSignal`, kernel/sdk-seams.ts). The listeners are kept here and run on
 * a withdrawal, and on the call's abort: once `hearFrom` has found the call's signal to be the
 * one the SDK made for the call, that abort is heard through the server (seam `callAborts`), so
 * no listener goes on the call's signal (a signal's first listener costs about half a KiB);
 * otherwise each listener also goes on the call's signal, as it would for a request sent with
 * it. A waiting call holds no controller and no second signal; a call that ends with nothing
 * out has nothing to run.
 */
import { hearCallAborts, isRequestSignal } from '../../kernel/sdk-seams.ts';

type Listener = EventListenerOrEventListenerObject;

/** The withdrawal of each call whose abort is heard through its server, by the call's signal. */
const bySignal = new WeakMap<AbortSignal, Withdrawal>();

/** Told by the server (seam callAborts) that a call's signal was aborted. */
function heard(signal: AbortSignal): void {
  bySignal.get(signal)?.callAborted();
}

export class Withdrawal {
  readonly #call: AbortSignal;
  /** The withdrawal's reason, while withdrawing or once withdrawn (an Error once read). */
  #why: string | Error | undefined;
  /** The abort listeners of the requests out now: most calls have one. */
  #listeners: Listener | Listener[] | undefined;
  /** The call's abort is heard through its server: no listener goes on the call's signal. */
  #heard = false;

  constructor(call: AbortSignal) {
    this.#call = call;
  }

  /**
   * Hears the call's abort through `server` (an SDK Server) when the call's signal is the one
   * the SDK made for request `requestId` there; otherwise listeners keep going on the signal.
   */
  hearFrom(server: object, requestId: unknown): void {
    if (this.#heard || !isRequestSignal(server, requestId, this.#call)) return;
    hearCallAborts(server, heard);
    bySignal.set(this.#call, this);
    this.#heard = true;
  }

  get aborted(): boolean {
    return this.#why !== undefined || this.#call.aborted;
  }

  get reason(): unknown {
    if (this.#why === undefined) return this.#call.reason;
    if (typeof this.#why === 'string') this.#why = new Error(this.#why);
    return this.#why;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: Listener | null, options?: unknown): void {
    if (listener === null || this.#why !== undefined) return;
    if (!this.#heard)
      this.#call.addEventListener(type, listener, options as AddEventListenerOptions);
    if (type !== 'abort') return;
    const held = this.#listeners;
    if (held === undefined) this.#listeners = listener;
    else if (Array.isArray(held)) held.push(listener);
    else this.#listeners = [held, listener];
  }

  removeEventListener(type: string, listener: Listener | null, options?: unknown): void {
    if (listener === null) return;
    if (!this.#heard)
      this.#call.removeEventListener(type, listener, options as EventListenerOptions);
    if (type !== 'abort') return;
    const held = this.#listeners;
    if (held === listener) this.#listeners = undefined;
    else if (Array.isArray(held)) {
      const i = held.indexOf(listener);
      if (i >= 0) held.splice(i, 1);
    }
  }

  /**
   * Withdraws every request out now (each listener runs once, as an abort would run it) and
   * any sent later; nothing when the call's own abort came first (it ran them).
   */
  withdraw(why: string): void {
    if (this.aborted) return;
    this.#why = why;
    // Nothing is left to run on the call's abort: its entry goes now, not at a collection.
    if (this.#heard) bySignal.delete(this.#call);
    this.#run();
  }

  /**
   * Withdraws the requests out now, not those sent later (a round that failed: the call goes
   * on). Their listeners read `why` as the reason while they run.
   */
  withdrawOut(why: string): void {
    if (this.aborted) return;
    this.#why = why;
    try {
      this.#run();
    } finally {
      this.#why = undefined;
    }
  }

  /** The call's signal was aborted (heard through its server): its listeners run, as they would on it. */
  callAborted(): void {
    if (this.#why === undefined) this.#run();
  }

  #run(): void {
    const held = this.#listeners;
    this.#listeners = undefined;
    if (held === undefined) return;
    const event = new Event('abort');
    for (const listener of Array.isArray(held) ? held : [held]) {
      if (!this.#heard) this.#call.removeEventListener('abort', listener);
      try {
        if (typeof listener === 'function') listener(event);
        else listener.handleEvent(event);
      } catch (error) {
        // As an EventTarget does: the others still run, the error is reported unhandled.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** This, where an AbortSignal is expected (see the class comment for what is read). */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
