/**
 * Lines printed above a live menu, without drawing the menu again. @clack/prompts draws a
 * prompt as a frame and later moves the cursor back over it by the frame's height; a line
 * written in between would break that, and closing the menu to print the line and opening it
 * again leaves a copy of the menu in the scrollback for every line. `FrameTap` stands between
 * the menu and the terminal and keeps a copy of the frame (clack writes whole lines from column
 * 0, moves by whole lines, and clears with "erase line" and "erase down", all of which the copy
 * follows). To print above, it erases the frame from its top, writes the line, and writes the
 * same frame again, leaving the cursor where clack left it: clack never notices, and the menu
 * is on the screen once.
 */
import { Writable } from 'node:stream';

// Cursor moves, erases and private modes clack writes; anything else is text.
const TOKEN = /\x1b\[\?[\d;]*[A-Za-z]|\x1b\[(\d*)([A-Za-z])|\n|[^\x1b\n]+|\x1b/g;

export class FrameTap extends Writable {
  readonly #out: Writable;
  /** The frame as it stands on the screen, one string per terminal line. */
  #lines: string[] = [''];
  /** The cursor's line within the frame. */
  #row = 0;
  #live = false;

  constructor(out: Writable) {
    super({ decodeStrings: false });
    this.#out = out;
    // clack re-renders on resize and reads the size from its output.
    out.on('resize', () => this.emit('resize'));
  }

  get columns(): number | undefined {
    return (this.#out as { columns?: number }).columns;
  }

  get rows(): number | undefined {
    return (this.#out as { rows?: number }).rows;
  }

  get isTTY(): boolean {
    return (this.#out as { isTTY?: boolean }).isTTY === true;
  }

  /** A prompt starts at the beginning of a fresh line. */
  start(): void {
    this.#lines = [''];
    this.#row = 0;
    this.#live = true;
  }

  /** The prompt closed; its last frame stays on the screen (see `erase`). */
  stop(): void {
    this.#live = false;
  }

  /** True while a prompt drawn through this tap is open. */
  get live(): boolean {
    return this.#live;
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, done: () => void): void {
    const text = String(chunk);
    this.#follow(text);
    this.#out.write(text);
    done();
  }

  /** Writes `text` (one or more lines) above the open prompt's frame; false when none is open. */
  printAbove(text: string): boolean {
    if (!this.#live) return false;
    this.#out.write(`${this.#top()}${text}\n${this.#lines.join('\n')}`);
    this.#row = this.#lines.length - 1;
    return true;
  }

  /** Removes the last frame from the screen (a menu closed only to be shown again). */
  erase(): void {
    this.#out.write(this.#top());
    this.#lines = [''];
    this.#row = 0;
  }

  /** To the frame's first line, column 0, and everything below erased. */
  #top(): string {
    return `${this.#row > 0 ? `\x1b[${this.#row}A` : ''}\r\x1b[J`;
  }

  #follow(text: string): void {
    for (const m of text.matchAll(TOKEN)) {
      const token = m[0];
      if (token === '\n') {
        this.#row++;
        while (this.#lines.length <= this.#row) this.#lines.push('');
      } else if (m[2] !== undefined) {
        const n = m[1] === '' || m[1] === undefined ? 1 : Number(m[1]);
        if (m[2] === 'A' || m[2] === 'F') this.#row = Math.max(0, this.#row - n);
        else if (m[2] === 'B' || m[2] === 'E') {
          this.#row += n;
          while (this.#lines.length <= this.#row) this.#lines.push('');
        } else if (m[2] === 'J') {
          // clack erases down from column 0 only.
          this.#lines.length = this.#row + 1;
          this.#lines[this.#row] = '';
        } else if (m[2] === 'K') this.#lines[this.#row] = '';
        // Other sequences (colours, column moves) are part of the text or leave lines alone.
        else if (m[2] === 'm') this.#lines[this.#row] += token;
      } else if (!token.startsWith('\x1b[?')) this.#lines[this.#row] += token;
    }
  }
}
