/**
 * The state of one run of `elicit host`, in one object every part takes, and the host's lines
 * on screen: a line arriving while a prompt owns the terminal waits for it to close; while the
 * menu is the only prompt, it is printed above it and the menu stays as it is (above.ts).
 */

import type { Readable, Writable } from 'node:stream';
import type { Renderer, RootList } from '../../client/index.ts';
import type { TerminalRenderer } from '../../client/terminal.ts';
import type { FrameTap } from './above.ts';
import { describeFailure, HostError } from './errors.ts';
import type { IdleTimer } from './idle.ts';
import type { Keys } from './keys.ts';
import type { HostLimits } from './limits.ts';
import type { Link, ListKind } from './link.ts';
import type { HostOptions } from './options.ts';
import type { StatusLine } from './status.ts';
import type { AuthProvider } from './transport.ts';
import type { ActiveCall, HostUi } from './url-wait.ts';

/** A tool, prompt or resource as the server listed it. */
export interface Named {
  name: string;
  title?: string;
  description?: string;
  uri?: string;
  inputSchema?: unknown;
  execution?: { taskSupport?: unknown };
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/** A resource template as the server listed it. */
export interface Template {
  name: string;
  title?: string;
  description?: string;
  uriTemplate: string;
}

/** The call running now, with its idle timer. */
export type RunningCall = ActiveCall & { timer: IdleTimer };

/** Everything one run of the host keeps. */
export interface Host {
  readonly o: HostOptions;
  readonly limits: HostLimits;
  readonly io: { input: Readable; output: Writable };
  /** With --format json, stdout carries only JSON lines. */
  readonly json: boolean;
  /** Where lines for people go (stderr with --format json). */
  readonly human: Writable;
  readonly status: StatusLine;
  readonly keys: Keys;
  readonly dim: (s: string) => string;
  /** The host's own prompts are drawn through it (lines arriving print above them). */
  readonly menuTap: FrameTap;
  readonly ui: HostUi;
  readonly terminal: TerminalRenderer;
  readonly renderer: Renderer;
  readonly auth: AuthProvider | undefined;
  readonly roots: RootList;
  readonly link: Link;
  /** How many prompts own the terminal now. */
  prompting: number;
  /** Lines waiting for the prompts to close. */
  readonly queued: string[];
  /** Aborted only when the menu's items changed: it is erased and drawn again. */
  menu: AbortController | undefined;
  active: RunningCall | undefined;
  /** Ctrl-C presses since the last cancelled call; two quit. */
  interrupts: number;
  lists: Record<ListKind, Named[]>;
  /** Resource templates (filled in before reading) and resource links seen in results. */
  templates: Template[];
  readonly links: Map<string, string>;
}

/** A line for people: printed above the status line when interactive. */
export function out(h: Host, line: string): void {
  if (h.o.interactive) h.status.print(line);
  else h.human.write(`${line}\n`);
}

/** One JSON line for programs (`--format json`). */
export function emit(h: Host, value: unknown): void {
  h.o.output.write(`${JSON.stringify(value)}\n`);
}

/** A line that may arrive while a prompt is open: above the menu, or after the prompt. */
export function say(h: Host, line: string): void {
  if (h.prompting === 1 && h.menuTap.printAbove(line)) return;
  if (h.prompting > 0) h.queued.push(line);
  else out(h, line);
}

/** The lines that waited for the prompts to close. */
export function flush(h: Host): void {
  while (h.prompting === 0 && h.queued.length > 0) out(h, h.queued.shift() as string);
}

/** A prompt opens: the call's timer, the status line and the call's keys wait for it. */
export function promptStart(h: Host): void {
  h.prompting++;
  h.active?.timer.pause();
  h.status.suspend();
  h.keys.pause();
}

/** A prompt closed: once none is open, the waiting lines, then the timer, keys and status again. */
export function promptEnd(h: Host): void {
  h.prompting = Math.max(0, h.prompting - 1);
  if (h.prompting > 0) return;
  flush(h);
  if (h.active !== undefined) {
    h.active.timer.resume();
    h.keys.resume();
  }
  h.status.resume();
}

/** One of the host's own prompts, drawn through the tap (lines arriving print above it). */
export async function tapped<T>(h: Host, prompt: () => Promise<T>): Promise<T> {
  h.menuTap.start();
  try {
    return await prompt();
  } finally {
    h.menuTap.stop();
  }
}

/** The exit code when the person pressed Ctrl-C twice. */
export function quitCode(h: Host): number | undefined {
  return h.interrupts >= 2 ? 130 : undefined;
}

/** A server that refuses a saved sign-in: the way out is to forget it. */
export function signInHint(h: Host, text: string): string {
  return 'url' in h.o.target &&
    /HTTP (401|403|500)/.test(text) &&
    (h.auth as { tokens?: () => unknown } | undefined)?.tokens?.() !== undefined
    ? `${text} A saved sign-in was sent; if the server no longer accepts it, run: elicit logout ${h.o.target.url}`
    : text;
}

/** A failure in words, with the sign-in hint. */
export function failure(h: Host, error: unknown): string {
  return signInHint(
    h,
    error instanceof HostError ? error.message : describeFailure(error, h.link.child()),
  );
}
