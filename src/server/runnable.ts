/**
 * A registration as the runner and the task engine see it: its own module, so the task engine
 * can name it without importing the runner, which starts tasks (no import cycle between them).
 */
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import type { Ask } from './ask.ts';
import type { Kind } from './wire.ts';

/** What a tool handler may return: text, or a full CallToolResult. */
export type ToolOutput = string | CallToolResult;

/** A tool handler's return value as the CallToolResult it stands for. */
export const toToolResult = (out: ToolOutput): CallToolResult =>
  typeof out === 'string' ? { content: [{ type: 'text', text: out }] } : out;

/** How a tool runs as a task: whether it must, and where the task starts. */
export interface TaskSupport {
  readonly support: 'optional' | 'required';
  /** `call`: the whole call is a task; `background`: from `ask.background()` on. */
  readonly start: 'call' | 'background';
}

/** A registration, as the runner sees it. */
export interface Runnable {
  readonly kind: Kind;
  /** The tool's or prompt's name, or the resource's URI (the inbox page names it). */
  readonly name?: string;
  readonly handler: (args: unknown, ask: Ask, ctx: ServerContext) => unknown;
  readonly task?: TaskSupport | undefined;
}
