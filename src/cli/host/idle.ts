/** The call timeout of `elicit host`. */

/** The call timeout: silence from the server, reset by progress, paused while you answer. */
export class IdleTimer {
  readonly #ms: number;
  readonly #fire: () => void;
  #timer: NodeJS.Timeout | undefined;
  #paused = 0;
  constructor(ms: number, fire: () => void) {
    this.#ms = ms;
    this.#fire = fire;
    this.reset();
  }
  /** The server answered: the silence starts again. */
  reset(): void {
    clearTimeout(this.#timer);
    this.#timer = this.#paused > 0 ? undefined : setTimeout(this.#fire, this.#ms);
  }
  /** A prompt opened: waiting for the person is not the server's silence. */
  pause(): void {
    this.#paused++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
  /** A prompt closed; the timer runs again once every pause is resumed. */
  resume(): void {
    if (--this.#paused <= 0) {
      this.#paused = 0;
      this.reset();
    }
  }
  /** The call ended: the timer never fires again. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#paused = 1;
  }
}
