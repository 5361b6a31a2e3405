/**
 * One status line at the bottom of the terminal ("starting server…", "Calling x… ▕███░░▏ 40%"),
 * redrawn in place, with log lines printed above it. Without a TTY each new status is printed
 * once as a plain line, so scripted runs still say what they are waiting for.
 */
import type { Writable } from 'node:stream';

export class StatusLine {
  readonly #out: Writable;
  readonly #tty: boolean;
  #text = '';
  #shown = false;
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;
  #startedAt = 0;
  // A prompt owns the terminal: new text is kept, and drawn on resume.
  #suspended = false;

  constructor(out: Writable, tty: boolean) {
    this.#out = out;
    this.#tty = tty;
  }

  /** Shows `text` (empty hides the line). */
  set(text: string): void {
    if (text === this.#text) return;
    if (text !== '' && this.#text === '') this.#startedAt = Date.now();
    this.#text = text;
    if (!this.#tty) {
      if (text !== '') this.#out.write(`… ${text}\n`);
      return;
    }
    if (text === '') {
      this.#clear();
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    if (this.#suspended) return;
    this.#timer ??= setInterval(() => this.#draw(), 120);
    this.#draw();
  }

  get text(): string {
    return this.#text;
  }

  /** Prints a line above the status line. */
  print(line: string): void {
    this.#clear();
    this.#out.write(`${line}\n`);
    if (this.#text !== '' && this.#tty && !this.#suspended) this.#draw();
  }

  /** Hides the line while a prompt owns the terminal; `resume` shows it again. */
  suspend(): void {
    this.#suspended = true;
    this.#clear();
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  resume(): void {
    this.#suspended = false;
    if (this.#text !== '' && this.#tty) {
      this.#timer ??= setInterval(() => this.#draw(), 120);
      this.#draw();
    }
  }

  #clear(): void {
    if (this.#shown) this.#out.write('\r\u001b[2K');
    this.#shown = false;
  }

  #draw(): void {
    const frames = ['◒', '◐', '◓', '◑'];
    const seconds = Math.floor((Date.now() - this.#startedAt) / 1000);
    const columns = (this.#out as { columns?: number }).columns ?? 80;
    const line = `${frames[this.#frame++ % frames.length]} ${this.#text}${seconds >= 2 ? ` (${seconds} s)` : ''}`;
    this.#out.write(`\r\u001b[2K${[...line].slice(0, Math.max(10, columns - 1)).join('')}`);
    this.#shown = true;
  }
}

/** `▕█████░░░░░▏ 50%` for a known total, `12 done` otherwise. */
export function progressBar(progress: number, total: number | undefined, width = 20): string {
  if (total === undefined || !(total > 0) || !Number.isFinite(progress))
    return `${Number.isFinite(progress) ? progress : 0} done`;
  const ratio = Math.min(1, Math.max(0, progress / total));
  const full = Math.round(ratio * width);
  return `▕${'█'.repeat(full)}${'░'.repeat(width - full)}▏ ${Math.round(ratio * 100)}%`;
}
