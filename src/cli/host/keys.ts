/**
 * Keys while a request runs. The terminal is put in raw mode so Ctrl-C arrives as a key (and
 * not as SIGINT to the whole process group, which would also kill a stdio server): the host
 * cancels the request instead of dying. Prompts take the terminal back while they are open.
 */
import type { Readable } from 'node:stream';

type TtyInput = Readable & { isTTY?: boolean; setRawMode?(raw: boolean): unknown };

export class Keys {
  readonly #input: TtyInput;
  #handler: ((key: string) => void) | undefined;
  #listening = false;
  readonly #onData = (chunk: Buffer | string) => {
    const text = chunk.toString();
    for (const key of text.startsWith('\u001b') ? [text] : [...text]) this.#handler?.(key);
  };

  constructor(input: Readable) {
    this.#input = input as TtyInput;
  }

  /** Starts delivering keys (`\u0003` is Ctrl-C) to `handler`. */
  on(handler: (key: string) => void): void {
    this.#handler = handler;
    this.#listen();
  }

  off(): void {
    this.#handler = undefined;
    this.#unlisten();
  }

  /** A prompt is about to read the terminal. */
  pause(): void {
    this.#unlisten();
  }

  resume(): void {
    if (this.#handler !== undefined) this.#listen();
  }

  #listen(): void {
    if (this.#listening || this.#input.isTTY !== true) return;
    this.#listening = true;
    this.#input.setRawMode?.(true);
    this.#input.on('data', this.#onData);
    this.#input.resume();
  }

  #unlisten(): void {
    if (!this.#listening) return;
    this.#listening = false;
    this.#input.off('data', this.#onData);
    this.#input.setRawMode?.(false);
    this.#input.pause();
  }
}
