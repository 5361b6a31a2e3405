/** What `elicit host` is run with: the command line's choices, parsed. */

import type { Readable, Writable } from 'node:stream';
import type { ScriptedAnswer, ScriptedPolicy } from '../../client/index.ts';
import type { HostLimits } from './limits.ts';
import type { EraChoice } from './link.ts';
import type { AuthProvider, Target } from './transport.ts';

/** The server log levels, least severe first (the order `--log-level` filters by). */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
/** One of LOG_LEVELS. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The options of one run of the host. */
export interface HostOptions {
  readonly target: Target;
  readonly era: EraChoice;
  readonly interactive: boolean;
  readonly answers?: readonly ScriptedAnswer[];
  readonly policy?: ScriptedPolicy;
  /** Scripted runs: open URL-mode pages (through ELICIT_BROWSER or the system browser). */
  readonly openUrls?: boolean;
  /** Non-interactive: the tools to call, in order, with their arguments. */
  readonly calls?: readonly { readonly name: string; readonly args?: Record<string, unknown> }[];
  /** Extra environment for a stdio server (it inherits this process's environment). */
  readonly env?: Readonly<Record<string, string>>;
  /** Directories offered to the server as roots (`--root`, repeatable). */
  readonly roots?: readonly string[];
  /** Extra HTTP headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Server log messages at this level and above are shown (and asked for with logging/setLevel). */
  readonly logLevel?: LogLevel;
  /**
   * Scripted runs: `json` writes one JSON object per line to `output` (the server, then each
   * call with its result or error) and every line meant for people to `errorOutput`.
   */
  readonly format?: 'text' | 'json';
  readonly limits?: Partial<HostLimits>;
  /** OAuth for HTTP servers that answer 401 (the SDK's OAuthClientProvider). */
  readonly authProvider?: AuthProvider;
  readonly input: Readable;
  readonly output: Writable;
  /** A stdio server's stderr in scripted runs; default process.stderr. */
  readonly errorOutput?: Writable;
}
