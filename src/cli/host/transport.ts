/**
 * The transport of `elicit host`: Streamable HTTP with extra headers (and an optional OAuth
 * provider), or a stdio child that inherits the environment plus `--env`/`--env-file`, whose
 * stderr is kept (the last lines) and whose exit code is recorded so failures can name them.
 */

import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ELICIT_HOST_BAD_ENV, ELICIT_HOST_BAD_HEADER } from '../../kernel/error-codes.ts';
import type { ChildState } from './errors.ts';
import { HostError } from './errors.ts';
import { HOST_LIMITS, type HostLimits } from './limits.ts';

export type Target =
  | { readonly url: string }
  | { readonly command: string; readonly args: readonly string[] };

/** The SDK's OAuth client provider (see `authProviderFor` in ./auth.ts when present). */
export type AuthProvider = NonNullable<
  ConstructorParameters<typeof StreamableHTTPClientTransport>[1]
>['authProvider'];

export interface TransportOptions {
  /** Extra environment for a stdio child, on top of this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Extra HTTP request headers (Authorization, API keys…). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly authProvider?: AuthProvider;
  /** Each stderr line of a stdio child, as it arrives (the host shows them dimmed). */
  readonly onStderr?: (line: string) => void;
  readonly limits?: Partial<HostLimits>;
}

export interface HostTransport {
  readonly transport: Transport;
  /** The stdio child's state (undefined over HTTP). */
  child(): ChildState | undefined;
}

export function createTransport(target: Target, options: TransportOptions = {}): HostTransport {
  if ('url' in target) {
    const transport = new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: { ...options.headers } },
      ...(options.authProvider === undefined ? {} : { authProvider: options.authProvider }),
    });
    return { transport, child: () => undefined };
  }
  const maxLines = options.limits?.stderrLines ?? HOST_LIMITS.stderrLines;
  const stderr: string[] = [];
  let exitCode: number | null = null;
  let signal: string | null = null;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, options.env);
  const transport = new StdioClientTransport({
    command: target.command,
    args: [...target.args],
    env,
    stderr: 'pipe',
  });
  let partial = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = (lines.pop() ?? '').slice(-2000);
    for (const line of lines) {
      stderr.push(line.slice(0, 2000));
      if (stderr.length > maxLines) stderr.shift();
      options.onStderr?.(line);
    }
  });
  // The exit code is not surfaced by the SDK; read it from the spawned child once started.
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    const proc = (transport as unknown as { _process?: ChildProcess })._process;
    proc?.once('exit', (code, sig) => {
      exitCode = code;
      signal = sig;
    });
  };
  return {
    transport,
    child: () => ({
      command: target.command,
      exitCode,
      signal,
      stderr: partial === '' ? [...stderr] : [...stderr, partial],
    }),
  };
}

/** `KEY=VALUE` → [key, value]; the key must be a plain environment name. */
export function parseEnvAssignment(text: string, where = '--env'): [string, string] {
  const at = text.indexOf('=');
  const key = at === -1 ? '' : text.slice(0, at).trim();
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
    throw new HostError(
      ELICIT_HOST_BAD_ENV,
      `${where}: ${JSON.stringify(text.slice(0, 80))} is not KEY=VALUE (a name of letters, digits and _, then =).`,
    );
  return [key, text.slice(at + 1)];
}

/** A dotenv-style file: KEY=VALUE lines, `#` comments, optional `export `, quoted values. */
export function parseEnvFile(text: string, file: string): Record<string, string> {
  const env: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const [key, value] = parseEnvAssignment(line.replace(/^export\s+/, ''), `${file}:${i + 1}`);
    let v = value.trim();
    if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v.at(-1) === v[0]) {
      v = v.slice(1, -1);
      if (value.trim()[0] === '"') v = v.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    }
    env[key] = v;
  });
  return env;
}

export function readEnvFile(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new HostError(
      ELICIT_HOST_BAD_ENV,
      `--env-file: cannot read ${file}: ${(error as Error).message}`,
    );
  }
  return parseEnvFile(text, file);
}

/** `Name: value` → [name, value], refusing what fetch would refuse later with a vaguer error. */
export function parseHeader(text: string): [string, string] {
  const at = text.indexOf(':');
  const name = at === -1 ? '' : text.slice(0, at).trim();
  const value = at === -1 ? '' : text.slice(at + 1).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new HostError(
      ELICIT_HOST_BAD_HEADER,
      `--header: ${JSON.stringify(text.slice(0, 80))} is not "Name: value".`,
    );
  if (/[\r\n\0]/.test(value))
    throw new HostError(ELICIT_HOST_BAD_HEADER, `--header ${name}: the value has a line break.`);
  return [name, value];
}
