/**
 * The signal a 2025 call's pushed requests go out with: aborted when the call is (the client
 * cancelled it or hung up), or when elicit withdraws what the call still has on the person's
 * screen (the call ended, or another question of its round failed). Aborting a request the SDK
 * sent with a signal sends `notifications/cancelled` for it, so the client takes the question
 * away.
 *
 * Not an AbortController linked to the call's signal: the SDK reads a request's signal through
 * `aborted`, `reason` and one `abort` listener, added when the request goes out and removed when
 * it settles (seam `requestSignal`, kernel/sdk-seams.ts). That listener goes on the call's own
 * signal, as it would for a request sent with it, and is kept here too, to be run on a
 * withdrawal. A waiting call holds no controller, no second signal and no listener passing the
 * call's abort on; a call that ends with nothing out has nothing to run.
 */

type Listener = EventListenerOrEventListenerObject;

export class Withdrawal {
  readonly #call: AbortSignal;
  /** The withdrawal's reason, once withdrawn (made when first read). */
  #why: string | undefined;
  #reason: Error | undefined;
  /** The abort listeners of the requests out now: most calls have one. */
  #listeners: Listener | Listener[] | undefined;

  constructor(call: AbortSignal) {
    this.#call = call;
  }

  get aborted(): boolean {
    return this.#why !== undefined || this.#call.aborted;
  }

  get reason(): unknown {
    if (this.#why === undefined) return this.#call.reason;
    this.#reason ??= new Error(this.#why);
    return this.#reason;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: Listener | null, options?: unknown): void {
    if (listener === null || this.#why !== undefined) return;
    this.#call.addEventListener(type, listener, options as AddEventListenerOptions);
    if (type !== 'abort') return;
    const held = this.#listeners;
    if (held === undefined) this.#listeners = listener;
    else if (Array.isArray(held)) held.push(listener);
    else this.#listeners = [held, listener];
  }

  removeEventListener(type: string, listener: Listener | null, options?: unknown): void {
    if (listener === null) return;
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
    const held = this.#listeners;
    this.#listeners = undefined;
    if (held === undefined) return;
    const event = new Event('abort');
    for (const listener of Array.isArray(held) ? held : [held]) {
      this.#call.removeEventListener('abort', listener);
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
