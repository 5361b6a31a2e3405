/**
 * `elicit host`: a terminal host for any MCP server, over HTTP or stdio, on every era. Lists
 * tools, prompts and resources (refreshed when the server says they changed), calls them with
 * arguments entered through a form built from the input schema (JSON when it is not flat),
 * shows progress, log messages and results, renders elicitations safely, cancels on Ctrl-C,
 * and reconnects when the server restarts. Scripted with --answers/--call for unattended runs.
 * The parts live in ./host/.
 */

import { type Readable, Writable } from 'node:stream';
import { styleText } from 'node:util';
import * as p from '@clack/prompts';
import type { RequestOptions } from '@modelcontextprotocol/client';
import type { Renderer, TaskCallOptions, TaskState } from '../client/index.ts';
import {
  identityOf,
  inert,
  needsTask,
  RootList,
  type ScriptedAnswer,
  type ScriptedPolicy,
  scriptedRenderer,
} from '../client/index.ts';
import { chooseKey, closable } from '../client/internal.ts';
import { type TerminalRenderer, terminalRenderer } from '../client/terminal.ts';
import { ElicitError } from '../errors.ts';
import {
  ELICIT_HOST_CALL,
  ELICIT_HOST_CANCELLED,
  ELICIT_HOST_CONNECT,
  ELICIT_HOST_GONE,
  ELICIT_HOST_TIMEOUT,
} from '../kernel/error-codes.ts';
import { setOwn } from '../kernel/own.ts';
import { fromJsonSchema } from '../schema/index.ts';
import { authProviderFor } from './auth.ts';
import { FrameTap } from './host/above.ts';
import {
  describeFailure,
  HostError,
  isAbort,
  isDisconnected,
  isSessionGone,
} from './host/errors.ts';
import { Keys } from './host/keys.ts';
import { HOST_LIMITS, type HostLimits } from './host/limits.ts';
import { type EraChoice, Link, type ListKind } from './host/link.ts';
import { removeSaved, renderPrompt, renderResource, renderToolResult } from './host/results.ts';
import { notADirectory, pathOf, rootOf } from './host/roots.ts';
import { progressBar, StatusLine } from './host/status.ts';
import type { AuthProvider, Target } from './host/transport.ts';
import { type ActiveCall, type HostUi, hostRenderer } from './host/url-wait.ts';

export type { Target } from './host/transport.ts';

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
export type LogLevel = (typeof LOG_LEVELS)[number];

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

interface Named {
  name: string;
  title?: string;
  description?: string;
  uri?: string;
  inputSchema?: unknown;
  execution?: { taskSupport?: unknown };
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/** The person cancelled the call (Ctrl-C, or Cancel while a URL-mode page was open). */
class Cancelled extends ElicitError {
  constructor() {
    super(ELICIT_HOST_CANCELLED, 'The call was cancelled; the server was told to stop.');
  }
}

/** The call timeout: silence from the server, reset by progress, paused while you answer. */
class IdleTimer {
  readonly #ms: number;
  readonly #fire: () => void;
  #timer: NodeJS.Timeout | undefined;
  #paused = 0;
  constructor(ms: number, fire: () => void) {
    this.#ms = ms;
    this.#fire = fire;
    this.reset();
  }
  reset(): void {
    clearTimeout(this.#timer);
    this.#timer = this.#paused > 0 ? undefined : setTimeout(this.#fire, this.#ms);
  }
  pause(): void {
    this.#paused++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
  resume(): void {
    if (--this.#paused <= 0) {
      this.#paused = 0;
      this.reset();
    }
  }
  stop(): void {
    clearTimeout(this.#timer);
    this.#paused = 1;
  }
}

/**
 * MCP authorization for an HTTP server, unless the person passed their own Authorization header:
 * a saved sign-in is reused, and a server that answers 401 gets a browser sign-in.
 */
async function signInFor(o: HostOptions, out: (line: string) => void) {
  if (!('url' in o.target)) return undefined;
  const own = Object.keys(o.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
  if (own) return undefined;
  const output = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).trimEnd().split('\n')) out(line);
      done();
    },
  });
  return authProviderFor(o.target.url, { output });
}

// The SDK's own per-request timer is replaced by IdleTimer (which can pause); this keeps it out of the way.
const NO_SDK_TIMEOUT = 2_147_000_000;

export async function runHost(o: HostOptions): Promise<number> {
  const limits: HostLimits = { ...HOST_LIMITS, ...o.limits };
  const io = { input: o.input, output: o.output };
  const tty = o.interactive && (o.output as { isTTY?: boolean }).isTTY === true;
  const json = !o.interactive && o.format === 'json';
  // With --format json, stdout carries only JSON lines: everything for people goes to stderr.
  const human = json ? (o.errorOutput ?? process.stderr) : o.output;
  const status = new StatusLine(human, tty);
  const keys = new Keys(o.input);
  const color = tty && process.env.NO_COLOR === undefined;
  const dim = (s: string) => (color ? styleText('dim', s, { validateStream: false }) : s);
  const out = (line: string) => (o.interactive ? status.print(line) : human.write(`${line}\n`));
  /** One JSON line for programs (`--format json`). */
  const emit = (value: unknown) => o.output.write(`${JSON.stringify(value)}\n`);

  // Lines that arrive while a prompt owns the terminal wait for it to close; while the menu is
  // the only prompt, they are printed above it and the menu stays as it is (host/above.ts).
  let prompting = 0;
  const queued: string[] = [];
  const menuTap = new FrameTap(o.output);
  /** One of the host's own prompts, drawn through the tap (lines arriving print above it). */
  const tapped = async <T>(prompt: () => Promise<T>): Promise<T> => {
    menuTap.start();
    try {
      return await prompt();
    } finally {
      menuTap.stop();
    }
  };
  // Aborted only when the menu's items changed: it is erased and drawn again.
  let menu: AbortController | undefined;
  const say = (line: string) => {
    if (prompting === 1 && menuTap.printAbove(line)) return;
    if (prompting > 0) queued.push(line);
    else out(line);
  };
  const flush = () => {
    while (prompting === 0 && queued.length > 0) out(queued.shift() as string);
  };

  let active: (ActiveCall & { timer: IdleTimer }) | undefined;
  let interrupts = 0;
  const quitCode = () => (interrupts >= 2 ? 130 : undefined);

  const ui: HostUi = {
    interactive: o.interactive,
    io,
    limits,
    promptStart() {
      prompting++;
      active?.timer.pause();
      status.suspend();
      keys.pause();
    },
    promptEnd() {
      prompting = Math.max(0, prompting - 1);
      if (prompting > 0) return;
      flush();
      if (active !== undefined) {
        active.timer.resume();
        keys.resume();
      }
      status.resume();
    },
    say,
    status: (text) => status.set(text),
    active: () => active,
  };

  const terminal = terminalRenderer(io);
  const base: Renderer = o.interactive
    ? terminal
    : scriptedRenderer({
        answers: o.answers,
        policy: o.policy,
        urls: o.openUrls ? 'open' : 'decline',
        log: out,
      });
  const renderer = hostRenderer(base, ui);
  const auth = o.authProvider ?? (await signInFor(o, out));
  /** A server that refuses a saved sign-in: the way out is to forget it. */
  const signInHint = (text: string) =>
    'url' in o.target &&
    /HTTP (401|403|500)/.test(text) &&
    (auth as { tokens?: () => unknown } | undefined)?.tokens?.() !== undefined
      ? `${text} A saved sign-in was sent; if the server no longer accepts it, run: elicit logout ${o.target.url}`
      : text;

  const lists: Record<ListKind, Named[]> = { tools: [], prompts: [], resources: [] };
  // Resource templates (filled in before reading) and resource links seen in results.
  let templates: Template[] = [];
  const links = new Map<string, string>();
  const threshold = LOG_LEVELS.indexOf(o.logLevel ?? 'info');
  const roots = new RootList((o.roots ?? []).map(rootOf));
  const link = new Link({
    target: o.target,
    era: o.era,
    renderer,
    limits,
    env: o.env,
    headers: o.headers,
    authProvider: auth,
    onSigningIn: () => status.set('waiting for you to sign in in your browser…'),
    onStderr: (line) => {
      if (!o.interactive) (o.errorOutput ?? process.stderr).write(`${line}\n`);
      else if (active !== undefined || status.text !== '')
        say(dim(`server stderr│ ${inert(line, 300, false)}`));
    },
    onLog: ({ level, logger, data }) => {
      const at = LOG_LEVELS.indexOf(level as LogLevel);
      if (at !== -1 && at < threshold) return;
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      say(
        `[${inert(level, 12, false)}]${logger === undefined ? '' : ` ${inert(logger, 60, false)}:`} ${inert(text, 1000)}`,
      );
    },
    onListChanged: (kind, items) => {
      lists[kind] = items as Named[];
      say(`The server's ${kind} changed: ${items.length} now.`);
      menu?.abort();
    },
    sampling: {
      // Scripted runs decline: no one is there to write a reply.
      reply: o.interactive ? writeReply : undefined,
      model: 'a person at elicit host',
    },
    roots,
    onClosed: () => {
      if (link.isStdio) {
        const child = link.child();
        say(
          `The server process ended${child?.exitCode != null ? ` (exit code ${child.exitCode})` : child?.signal != null ? ` (${child.signal})` : ''}.`,
        );
      }
    },
  });

  /**
   * A tool call; on 2025-11-25 a tool that requires a task is called as one (the SDK's call
   * would be refused with -32601).
   */
  async function callTool(
    name: string,
    args: Record<string, unknown>,
    options: RequestOptions & TaskCallOptions,
  ) {
    const tool = lists.tools.find((t) => t.name === name);
    return link.elicit.callTool({ name, arguments: args }, { ...options, asTask: needsTask(tool) });
  }

  /** A server asks for a model's reply (sampling): the person reads the request and writes it. */
  async function writeReply(
    view: { lines: readonly string[] },
    signal: AbortSignal,
  ): Promise<string | undefined> {
    ui.promptStart();
    try {
      const server = identityOf(link.client);
      p.log.step(
        `${inert(server.title ?? server.name, 80, false)} asks for a model's reply (sampling); you write it`,
        io,
      );
      p.log.message(view.lines.map((l) => `┆ ${l}`).join('\n'), io);
      const choice = await closable(io.input, signal, (signal) =>
        chooseKey({
          ...io,
          signal,
          message: 'Reply to it?',
          options: [
            { value: 'w', label: 'Write the reply' },
            { value: 'd', label: 'Decline' },
          ],
        }),
      );
      if (p.isCancel(choice) || choice !== 'w') return undefined;
      const text = await closable(io.input, signal, (signal) =>
        p.text({ ...io, signal, message: 'Your reply (sent as the model’s answer)' }),
      );
      return p.isCancel(text) ? undefined : (text ?? '');
    } finally {
      ui.promptEnd();
    }
  }

  // Ctrl-C outside raw mode (scripted runs, or while connecting).
  const onSigint = () => {
    interrupts++;
    if (active !== undefined && interrupts < 2) {
      say('Cancelling… (Ctrl-C again quits)');
      active.cancel();
    } else {
      status.set('');
      void link.close().finally(() => process.exit(130));
    }
  };
  process.on('SIGINT', onSigint);

  async function connect(): Promise<boolean> {
    status.set(
      link.isStdio ? 'starting server…' : `connecting to ${(o.target as { url: string }).url}…`,
    );
    try {
      await link.open();
    } catch (error) {
      status.set('');
      out(
        signInHint(
          error instanceof HostError
            ? error.message
            : `Could not connect: ${describeFailure(error)}`,
        ),
      );
      return false;
    }
    status.set('');
    const server = identityOf(link.client);
    out(
      `Connected to ${inert(server.title ?? server.name, 80, false)} ${inert(server.version ?? '', 20, false)} (protocol ${link.client.getNegotiatedProtocolVersion()}, ${link.client.getProtocolEra()} era)`,
    );
    const caps = link.client.getServerCapabilities() ?? {};
    if (o.logLevel !== undefined && caps.logging !== undefined)
      await link.client.setLoggingLevel(o.logLevel).catch(() => {});
    lists.tools = ((await link.client.listTools()).tools ?? []) as Named[];
    lists.prompts =
      caps.prompts === undefined
        ? []
        : (((await link.client.listPrompts()).prompts ?? []) as Named[]);
    lists.resources =
      caps.resources === undefined
        ? []
        : (((await link.client.listResources()).resources ?? []) as Named[]);
    templates =
      caps.resources === undefined
        ? []
        : ((
            (await link.client.listResourceTemplates().catch(() => undefined))?.resourceTemplates ??
            []
          ).slice(0, limits.listedTemplates) as Template[]);
    return true;
  }

  /**
   * One request with everything around it: status line, progress bar, the idle timeout, Ctrl-C
   * and `c` to cancel (sent to the server as notifications/cancelled, or tasks/cancel for a
   * task), reconnect and resend once when the server forgot the session. A call the server runs
   * as a task shows the task's status; when the connection drops while it runs, the host
   * reconnects and picks the same task up again by its id instead of calling again.
   */
  async function request<T>(
    label: string,
    send: (options: RequestOptions & TaskCallOptions) => Promise<T>,
  ): Promise<T> {
    // The task this call became, if any: kept across reconnects.
    let taskId: string | undefined;
    let reconnects = 0;
    for (let attempt = 0; ; attempt++) {
      if (!link.alive) {
        if (link.isStdio && o.interactive)
          throw new HostError(ELICIT_HOST_GONE, 'The server is not running.');
        status.set(link.isStdio ? 'restarting server…' : 'reconnecting…');
        await link.reopen();
      }
      const controller = new AbortController();
      const ended = new AbortController();
      let cancelled = false;
      let timedOut = false;
      const timer = new IdleTimer(limits.callTimeoutMs, () => {
        timedOut = true;
        controller.abort();
      });
      const call: ActiveCall & { timer: IdleTimer } = {
        label,
        signal: controller.signal,
        ended: ended.signal,
        screens: new Set(),
        pages: new Map(),
        timer,
        cancel: () => {
          cancelled = true;
          controller.abort();
        },
        retryNow: () => link.elicit.retryNow(),
        pendingCount: () => link.elicit.pending.size,
      };
      active = call;
      status.set(`${label}…  (Ctrl-C cancels)`);
      keys.on((key) => {
        if (key === '\u0003') {
          interrupts++;
          if (cancelled || interrupts >= 2) {
            interrupts = 2;
            controller.abort();
          } else {
            say('Cancelling… (Ctrl-C again quits)');
            call.cancel();
          }
        } else if (key === 'c' || key === '\u001b') call.cancel();
      });
      const options: RequestOptions & TaskCallOptions = {
        signal: controller.signal,
        timeout: NO_SDK_TIMEOUT,
        onprogress: (progress) => {
          timer.reset();
          const message =
            typeof progress.message === 'string' ? ` ${inert(progress.message, 80, false)}` : '';
          status.set(`${label} ${progressBar(progress.progress, progress.total)}${message}`);
        },
        onTask: (task) => {
          // Each poll is the server answering: the idle timer only watches for silence.
          timer.reset();
          if (taskId === undefined)
            say(dim(`${label}: running as task ${inert(task.taskId, 80, false)}`));
          taskId = task.taskId;
          status.set(`${label} [task ${describeTask(task)}]  (Ctrl-C cancels)`);
        },
      };
      try {
        if (taskId !== undefined) return (await link.elicit.resumeTask(taskId, options)) as T;
        return await send(options);
      } catch (error) {
        if (cancelled || quitCode() !== undefined) throw new Cancelled();
        if (timedOut)
          throw new HostError(
            ELICIT_HOST_TIMEOUT,
            `No answer from the server within ${Math.round(limits.callTimeoutMs / 1000)} s (--timeout); the call was cancelled.`,
          );
        if (isAbort(error)) throw new Cancelled();
        const dropped = isSessionGone(error) || isDisconnected(error);
        if (taskId !== undefined && dropped && reconnects < limits.taskReconnects) {
          // The task lives on the server: reconnect (paced) and follow it again by its id.
          say(
            `The connection to the server dropped; picking task ${inert(taskId, 80, false)} up again…`,
          );
          status.set('reconnecting…');
          for (;;) {
            const wait = Math.min(limits.retryFirstMs * 2 ** reconnects, limits.retryMaxMs);
            reconnects++;
            await new Promise((r) => setTimeout(r, wait));
            try {
              await link.reopen();
              break;
            } catch (reconnect) {
              if (reconnects >= limits.taskReconnects)
                throw reconnect instanceof HostError
                  ? reconnect
                  : new HostError(ELICIT_HOST_CONNECT, describeFailure(reconnect));
            }
          }
          continue;
        }
        if (attempt === 0 && taskId === undefined && !link.isStdio && dropped) {
          // A restarted server no longer knows the session: a new one, and the request again
          // (it was refused before it ran).
          say('The server lost the session (restarted?); reconnecting…');
          status.set('reconnecting…');
          try {
            await link.reopen();
          } catch (reconnect) {
            throw reconnect instanceof HostError
              ? reconnect
              : new HostError(ELICIT_HOST_CONNECT, describeFailure(reconnect));
          }
          continue;
        }
        throw new HostError(ELICIT_HOST_CALL, describeFailure(error, link.child()), {
          cause: error,
        });
      } finally {
        keys.off();
        timer.stop();
        // Every screen of the call closes with it, before anything else is shown.
        ended.abort();
        await Promise.allSettled([...call.screens]);
        status.set('');
        active = undefined;
      }
    }
  }

  const failure = (error: unknown) =>
    signInHint(error instanceof HostError ? error.message : describeFailure(error, link.child()));

  try {
    if (!(await connect())) return 2;
    if (!o.interactive) {
      if (json) {
        const server = identityOf(link.client);
        emit({
          server: { name: server.name, version: server.version },
          protocol: link.client.getNegotiatedProtocolVersion(),
          tools: lists.tools.map((t) => ({ name: t.name, description: t.description })),
        });
      }
      for (const t of lists.tools)
        out(`  tool ${inert(t.name, 80, false)}: ${inert(t.description ?? '', 200, false)}`);
      let code = 0;
      for (const c of o.calls ?? []) {
        if (!lists.tools.some((t) => t.name === c.name)) {
          out(`No tool named ${JSON.stringify(c.name)}.`);
          if (json)
            emit({
              call: c.name,
              error: { code: ELICIT_HOST_CALL, message: `No tool named ${c.name}.` },
            });
          return 2;
        }
        out(`\n▶ ${c.name} ${JSON.stringify(c.args ?? {})}`);
        try {
          const result = await request(`Calling ${c.name}`, (options) =>
            callTool(c.name, c.args ?? {}, options),
          );
          out(`◀ ${result.isError === true ? 'error: ' : ''}${renderToolResult(result, limits)}`);
          if (json) emit({ call: c.name, arguments: c.args ?? {}, result });
          if (result.isError === true) code = 1;
        } catch (error) {
          const cancelled = error instanceof Cancelled;
          if (json)
            emit({
              call: c.name,
              arguments: c.args ?? {},
              error: {
                code: error instanceof ElicitError ? error.code : ELICIT_HOST_CALL,
                message: failure(error),
              },
            });
          if (cancelled) {
            out('Cancelled.');
            return 130;
          }
          out(`The call failed: ${failure(error)}`);
          code = 1;
        }
      }
      return code;
    }
    return await menuLoop();
  } catch (error) {
    status.set('');
    out(`Failed: ${failure(error)}`);
    return 1;
  } finally {
    process.off('SIGINT', onSigint);
    status.set('');
    keys.off();
    await link.close();
    // Images and files the server sent were saved for this session only.
    const saved = removeSaved();
    if (saved !== undefined) out(`Removed the files saved during this session (${saved}).`);
  }

  /** The arguments screens: lines arriving meanwhile wait until they close. */
  async function argumentsScreen(...args: Parameters<typeof askArguments>) {
    ui.promptStart();
    try {
      return await askArguments(...args);
    } finally {
      ui.promptEnd();
    }
  }

  /**
   * The Roots screen: the directories the server may work in, one to remove or a new one to
   * add; every change is sent to the server (notifications/roots/list_changed).
   */
  async function rootsScreen(): Promise<void> {
    for (;;) {
      const current = roots.roots;
      ui.promptStart();
      let choice: unknown;
      let dir: unknown;
      try {
        choice = await tapped(() =>
          p.select({
            ...io,
            output: menuTap,
            message:
              current.length === 0
                ? 'Roots: no directory yet'
                : `Roots: the server may work in ${current.length === 1 ? 'this directory' : `these ${current.length} directories`}`,
            options: [
              ...current.map((r) => ({
                value: `-\u0000${r.uri}`,
                label: `Remove ${inert(pathOf(r), 100, false)}`,
              })),
              { value: '+\u0000', label: 'Add a directory' },
              { value: 'b\u0000', label: 'Back' },
            ],
          }),
        );
        if (!p.isCancel(choice) && String(choice).startsWith('+'))
          dir = await tapped(() =>
            p.text({
              ...io,
              output: menuTap,
              message: 'Directory to add',
              placeholder: process.cwd(),
              validate: (v) => notADirectory(v === undefined || v === '' ? process.cwd() : v),
            }),
          );
      } finally {
        ui.promptEnd();
      }
      if (p.isCancel(choice) || String(choice).startsWith('b')) return;
      if (p.isCancel(dir)) continue;
      const [action, uri = ''] = String(choice).split('\u0000');
      try {
        if (action === '+') {
          const root = rootOf(dir === undefined || dir === '' ? process.cwd() : String(dir));
          await roots.add(root);
          p.log.success(
            `Added ${inert(pathOf(root), 100, false)}; the server was told the roots changed.`,
            io,
          );
        } else if (await roots.remove(uri)) {
          p.log.success(
            `Removed ${inert(pathOf({ uri }), 100, false)}; the server was told the roots changed.`,
            io,
          );
        }
      } catch (error) {
        p.log.error(
          `The roots could not be changed: ${error instanceof ElicitError ? error.message : describeFailure(error)}`,
          io,
        );
      }
    }
  }

  async function menuLoop(): Promise<number> {
    let lastChoice: string | undefined;
    for (;;) {
      flush();
      if (!link.alive && link.isStdio) {
        const choice = await p.select({
          ...io,
          message: 'The server is not running.',
          options: [
            { value: 'restart', label: 'Restart the server' },
            { value: 'quit', label: 'Quit' },
          ],
        });
        if (p.isCancel(choice)) return 130;
        if (choice === 'quit') return 0;
        if (!(await connect())) continue;
      }
      menu = new AbortController();
      const options = [
        ...lists.tools.map((t) => ({
          value: `t\u0000${t.name}`,
          label: inert(t.title ?? t.name, 60, false),
          hint: inert(t.description ?? '', 80, false),
        })),
        ...lists.prompts.map((t) => ({
          value: `p\u0000${t.name}`,
          label: `prompt: ${inert(t.title ?? t.name, 60, false)}`,
          hint: inert(t.description ?? '', 80, false),
        })),
        ...lists.resources.map((t) => ({
          value: `r\u0000${t.uri ?? ''}`,
          label: `resource: ${inert(t.title ?? t.name, 60, false)}`,
          hint: inert(t.uri ?? '', 80, false),
        })),
        ...templates.map((t) => ({
          value: `T\u0000${t.uriTemplate}`,
          label: `template: ${inert(t.title ?? t.name, 60, false)}`,
          hint: inert(t.uriTemplate, 80, false),
        })),
        ...[...links].map(([uri, name]) => ({
          value: `r\u0000${uri}`,
          label: `link: ${inert(name, 60, false)}`,
          hint: inert(uri, 80, false),
        })),
        {
          value: 'R\u0000',
          label: 'Roots',
          hint: `${roots.roots.length === 1 ? '1 directory' : `${roots.roots.length} directories`} the server may work in; add or remove`,
        },
        { value: 'q\u0000', label: 'Quit' },
      ];
      ui.promptStart();
      let choice: unknown;
      try {
        choice = await tapped(() =>
          closable(io.input, (menu as AbortController).signal, (signal) =>
            p.select({
              ...io,
              output: menuTap,
              // The cursor stays where the person left it.
              initialValue: options.some((o) => o.value === lastChoice) ? lastChoice : undefined,
              message:
                lists.prompts.length + lists.resources.length > 0
                  ? 'Call a tool, get a prompt or read a resource'
                  : 'Call a tool',
              options,
              signal,
            }),
          ),
        );
      } finally {
        ui.promptEnd();
      }
      const redraw = menu.signal.aborted;
      menu = undefined;
      if (p.isCancel(choice)) {
        if (redraw) {
          // The lists changed: the new menu takes the old one's place.
          menuTap.erase();
          continue;
        }
        return 130;
      }
      lastChoice = String(choice);
      const [kind, name = ''] = String(choice).split('\u0000');
      if (kind === 'q') return 0;
      try {
        if (kind === 'R') {
          await rootsScreen();
        } else if (kind === 't') {
          const tool = lists.tools.find((t) => t.name === name) as Named;
          const args = await argumentsScreen(tool, tool.inputSchema, terminal, io);
          if (args === undefined) continue;
          const result = await request(`Calling ${inert(tool.name, 60, false)}`, (options) =>
            callTool(tool.name, args, options),
          );
          if (result.isError === true) p.log.error(renderToolResult(result, limits), io);
          else p.log.success(renderToolResult(result, limits), io);
          // Resource links in the result can be followed from the menu.
          for (const item of (result.content ?? []) as {
            type?: string;
            uri?: unknown;
            name?: unknown;
          }[])
            if (
              item.type === 'resource_link' &&
              typeof item.uri === 'string' &&
              links.size < limits.listedTemplates
            )
              links.set(item.uri, typeof item.name === 'string' ? item.name : item.uri);
        } else if (kind === 'p') {
          const prompt = lists.prompts.find((t) => t.name === name) as Named;
          const args = await argumentsScreen(
            { ...prompt, verb: 'Get' },
            promptSchema(prompt.arguments ?? []),
            terminal,
            io,
          );
          if (args === undefined) continue;
          const result = await request(
            `Getting prompt ${inert(prompt.name, 60, false)}`,
            (options) =>
              link.elicit.followTasks(
                () =>
                  link.client.getPrompt(
                    { name: prompt.name, arguments: stringArgs(args) },
                    options,
                  ),
                options,
              ),
          );
          p.log.success(renderPrompt(result, limits), io);
        } else if (kind === 'T') {
          const template = templates.find((t) => t.uriTemplate === name) as Template;
          const vars = templateVariables(template.uriTemplate);
          const args = await argumentsScreen(
            {
              name: template.name,
              title: template.title,
              description: template.description,
              verb: 'Read',
            },
            promptSchema(vars.map((v) => ({ name: v, required: true }))),
            terminal,
            io,
          );
          if (args === undefined) continue;
          const uri = fillTemplate(template.uriTemplate, stringArgs(args));
          const result = await request(`Reading ${inert(uri, 80, false)}`, (options) =>
            link.elicit.followTasks(() => link.client.readResource({ uri }, options), options),
          );
          p.log.success(renderResource(result, limits), io);
        } else if (kind === 'r') {
          const result = await request(`Reading ${inert(name, 80, false)}`, (options) =>
            link.elicit.followTasks(
              () => link.client.readResource({ uri: name }, options),
              options,
            ),
          );
          p.log.success(renderResource(result, limits), io);
        }
      } catch (error) {
        if (quitCode() !== undefined) return 130;
        if (error instanceof Cancelled) {
          interrupts = 0;
          p.log.warn('Cancelled. The server was told to stop.', io);
        } else p.log.error(`The request failed: ${failure(error)}`, io);
      }
    }
  }
}

interface Template {
  name: string;
  title?: string;
  description?: string;
  uriTemplate: string;
}

/** The variable names of a URI template (RFC 6570 expressions, operators dropped). */
function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(/\{[+#./;?&]?([^}]*)\}/g))
    for (const part of (m[1] ?? '').split(','))
      if (part !== '' && !names.includes(part.replace(/\*$|:\d+$/, '')))
        names.push(part.replace(/\*$|:\d+$/, ''));
  return names;
}

/** Fills a URI template: simple and reserved expansion, values percent-encoded (RFC 6570 level 2). */
function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([+#]?)([^}]*)\}/g, (_all, op: string, list: string) => {
    const encode = op === '' ? encodeURIComponent : encodeURI;
    const parts = list
      .split(',')
      .map((v) => v.replace(/\*$|:\d+$/, ''))
      .filter((v) => Object.hasOwn(values, v))
      .map((v) => encode(values[v] as string));
    return (op === '#' && parts.length > 0 ? '#' : '') + parts.join(',');
  });
}

/** `working: step 2 of 5`, the status and the server's message (already inert). */
function describeTask(task: TaskState): string {
  const status = task.status.replace('_', ' ');
  return task.statusMessage === undefined || task.statusMessage === ''
    ? status
    : `${status}: ${task.statusMessage}`;
}

/** Prompt arguments are strings: a flat form of text fields. */
function promptSchema(args: readonly { name: string; description?: string; required?: boolean }[]) {
  const properties: Record<string, unknown> = {};
  for (const a of args)
    setOwn(properties, a.name, { type: 'string', title: a.name, description: a.description });
  return {
    type: 'object',
    properties,
    required: args.filter((a) => a.required === true).map((a) => a.name),
  };
}

function stringArgs(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args))
    if (v !== undefined && v !== '') setOwn(out, k, String(v));
  return out;
}

/** Arguments: the terminal's arguments screen when the input schema is flat, JSON otherwise. */
async function askArguments(
  what: { name: string; title?: string; description?: string; verb?: string },
  inputSchema: unknown,
  terminal: TerminalRenderer,
  io: { input: Readable; output: Writable },
): Promise<Record<string, unknown> | undefined> {
  const name = what.name;
  const schema = inputSchema as { properties?: Record<string, unknown> } | undefined;
  if (schema?.properties === undefined || Object.keys(schema.properties).length === 0) return {};
  let form: ReturnType<typeof fromJsonSchema>['form'] | undefined;
  try {
    form = fromJsonSchema(schema).form;
  } catch {
    // Not a flat schema a form can show: the arguments are typed as JSON.
  }
  if (form !== undefined) {
    const args = await terminal.arguments(what, form.schema);
    return args === undefined ? undefined : { ...args };
  }
  for (;;) {
    const text = await p.text({
      ...io,
      message: `Arguments for ${inert(name, 60, false)} (JSON)`,
      initialValue: '{}',
    });
    if (p.isCancel(text)) return undefined;
    try {
      const value = JSON.parse(text ?? '{}');
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {}
    p.log.error('Enter a JSON object, for example {"city": "Oslo"}.', io);
  }
}
