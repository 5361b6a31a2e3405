/**
 * The host's connection: the state object built around one Link (its log lines, the server's
 * stderr, list changes, the process ending), sign-in, and connecting with the first listings.
 */

import { Writable } from 'node:stream';
import { styleText } from 'node:util';
import { identityOf, inert, RootList, scriptedRenderer } from '../../client/index.ts';
import { terminalRenderer } from '../../client/terminal.ts';
import { authProviderFor } from '../auth.ts';
import { FrameTap } from './above.ts';
import { describeFailure, HostError } from './errors.ts';
import { Keys } from './keys.ts';
import { HOST_LIMITS, type HostLimits } from './limits.ts';
import { Link, type ListKind } from './link.ts';
import { type HostOptions, LOG_LEVELS, type LogLevel } from './options.ts';
import { writeReply } from './reply.ts';
import { rootOf } from './roots.ts';
import {
  type Host,
  type Named,
  out,
  promptEnd,
  promptStart,
  say,
  signInHint,
  type Template,
} from './state.ts';
import { StatusLine } from './status.ts';
import { type HostUi, hostRenderer } from './url-wait.ts';

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

/** The state of one run: the screen, the renderers and the (not yet open) link. */
export async function createHost(o: HostOptions): Promise<Host> {
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
  const menuTap = new FrameTap(o.output);
  const ui: HostUi = {
    interactive: o.interactive,
    io,
    limits,
    promptStart: () => promptStart(h),
    promptEnd: () => promptEnd(h),
    say: (line) => say(h, line),
    status: (text) => status.set(text),
    active: () => h.active,
  };
  const terminal = terminalRenderer(io);
  const base = o.interactive
    ? terminal
    : scriptedRenderer({
        answers: o.answers,
        policy: o.policy,
        urls: o.openUrls ? 'open' : 'decline',
        log: (line) => out(h, line),
      });
  const renderer = hostRenderer(base, ui);
  // Lines as out() writes them: the state object does not exist yet.
  const print = (line: string) => (o.interactive ? status.print(line) : human.write(`${line}\n`));
  const auth = o.authProvider ?? (await signInFor(o, print));
  const threshold = LOG_LEVELS.indexOf(o.logLevel ?? 'info');
  const roots = new RootList((o.roots ?? []).map(rootOf));
  const h: Host = {
    o,
    limits,
    io,
    json,
    human,
    status,
    keys,
    dim,
    menuTap,
    ui,
    terminal,
    renderer,
    auth,
    roots,
    prompting: 0,
    queued: [],
    menu: undefined,
    active: undefined,
    interrupts: 0,
    lists: { tools: [], prompts: [], resources: [] },
    templates: [],
    links: new Map(),
    link: new Link({
      target: o.target,
      era: o.era,
      renderer,
      limits,
      env: o.env,
      headers: o.headers,
      authProvider: auth,
      onSigningIn: () => status.set('waiting for you to sign in in your browser…'),
      onStderr: (line) => serverStderr(h, line),
      onLog: (message) => serverLog(h, message, threshold),
      onListChanged: (kind, items) => listChanged(h, kind, items as Named[]),
      sampling: {
        // Scripted runs decline: no one is there to write a reply.
        reply: o.interactive ? (view, signal) => writeReply(h, view, signal) : undefined,
        model: 'a person at elicit host',
      },
      roots,
      onClosed: () => serverClosed(h),
    }),
  };
  return h;
}

/** A line the stdio server wrote to stderr: shown while something runs (scripted: passed on). */
function serverStderr(h: Host, line: string): void {
  if (!h.o.interactive) (h.o.errorOutput ?? process.stderr).write(`${line}\n`);
  else if (h.active !== undefined || h.status.text !== '')
    say(h, h.dim(`server stderr│ ${inert(line, 300, false)}`));
}

/** A server log message at or above the threshold (unknown levels always shown). */
function serverLog(
  h: Host,
  { level, logger, data }: { level: string; logger?: string; data: unknown },
  threshold: number,
): void {
  const at = LOG_LEVELS.indexOf(level as LogLevel);
  if (at !== -1 && at < threshold) return;
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  say(
    h,
    `[${inert(level, 12, false)}]${logger === undefined ? '' : ` ${inert(logger, 60, false)}:`} ${inert(text, 1000)}`,
  );
}

/** The server's tools, prompts or resources changed: the menu is drawn again with them. */
function listChanged(h: Host, kind: ListKind, items: Named[]): void {
  h.lists[kind] = items;
  say(h, `The server's ${kind} changed: ${items.length} now.`);
  h.menu?.abort();
}

/** The connection closed: a stdio server's exit is told. */
function serverClosed(h: Host): void {
  if (h.link.isStdio) {
    const child = h.link.child();
    say(
      h,
      `The server process ended${child?.exitCode != null ? ` (exit code ${child.exitCode})` : child?.signal != null ? ` (${child.signal})` : ''}.`,
    );
  }
}

/** Connects (or reconnects from the menu) and lists what the server offers; false on failure. */
export async function connect(h: Host): Promise<boolean> {
  const { link, status } = h;
  status.set(
    link.isStdio ? 'starting server…' : `connecting to ${(h.o.target as { url: string }).url}…`,
  );
  try {
    await link.open();
  } catch (error) {
    status.set('');
    out(
      h,
      signInHint(
        h,
        error instanceof HostError ? error.message : `Could not connect: ${describeFailure(error)}`,
      ),
    );
    return false;
  }
  status.set('');
  const server = identityOf(link.client);
  out(
    h,
    `Connected to ${inert(server.title ?? server.name, 80, false)} ${inert(server.version ?? '', 20, false)} (protocol ${link.client.getNegotiatedProtocolVersion()}, ${link.client.getProtocolEra()} era)`,
  );
  const caps = link.client.getServerCapabilities() ?? {};
  if (h.o.logLevel !== undefined && caps.logging !== undefined)
    await link.client.setLoggingLevel(h.o.logLevel).catch(() => {});
  h.lists.tools = ((await link.client.listTools()).tools ?? []) as Named[];
  h.lists.prompts =
    caps.prompts === undefined
      ? []
      : (((await link.client.listPrompts()).prompts ?? []) as Named[]);
  h.lists.resources =
    caps.resources === undefined
      ? []
      : (((await link.client.listResources()).resources ?? []) as Named[]);
  h.templates =
    caps.resources === undefined
      ? []
      : ((
          (await link.client.listResourceTemplates().catch(() => undefined))?.resourceTemplates ??
          []
        ).slice(0, h.limits.listedTemplates) as Template[]);
  return true;
}
