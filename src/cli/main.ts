#!/usr/bin/env node
/**
 * The `elicit` command: `demo`, `host`, `check`, `gateway` and `logout`. Every command has --help; failures exit
 * non-zero with a message that says what to do.
 *
 * Each command's code is imported when that command runs, not before: `elicit --help` and a
 * command's help load this file and the error catalogue only (bench/cli.bench.ts times it).
 */
import { readFileSync } from 'node:fs';
import { styleText } from 'node:util';
import type { ScriptedAnswer } from '../client/index.ts';
import { ElicitError } from '../errors.ts';
import { ELICIT_CLI_USAGE } from '../kernel/error-codes.ts';
import type { Revision } from '../schema/index.ts';
import type { LogLevel, Target } from './host/run.ts';

const HELP: Record<string, string> = {
  main: `elicit: complete and safe MCP elicitation

Usage:
  elicit demo [--era auto|legacy|modern]     try elicitation against the built-in demo server
  elicit demo --web                          … in a browser page
  elicit host <url> [options]                a terminal host for an MCP server over HTTP
  elicit host [options] -- <command> ...     … or over stdio
  elicit check <schema.json> [--revision R]  check a requestedSchema against the restricted subset
  elicit gateway <url> | -- <command> ...    put elicit in front of a server, for any host
  elicit logout <url>                        forget the saved sign-in for a server
  elicit --version                           the version of elicit

Run "elicit <command> --help" for the options of a command.
`,
  demo: `elicit demo [--era auto|legacy|modern] [--web]

Starts the demo server on 127.0.0.1 (embedded, nothing to install) and connects to it.
Interactive on a terminal; without one, runs a scripted tour and exits 0.
--web serves a browser host page instead (the SDK client in the page, elicitations rendered
with <elicit-form> and <elicit-url-consent>) and prints its address.
`,
  host: `elicit host <url> [options]
elicit host [options] -- <command> [args...]

(Formerly elicit host, which still works until 0.3: "connect" is URL mode's word.)

Options:
  --era auto|legacy|modern   protocol era (default auto: probe, fall back to 2025-11-25)
  --answers <file.json>      answer elicitations from a file (non-interactive):
                             {"answers": [{"match": "text in message", "action": "accept", "content": {...}}],
                              "policy": "accept-defaults" | "decline" | "cancel", "urls": "open" | "decline"}
  --call <tool>              tool to call (non-interactive; repeatable)
  --args <json>              arguments for the preceding --call
  --policy <p>               accept-defaults | decline | cancel, for requests no answer matches
  --open-urls                in non-interactive runs, open consented URL-mode pages
  --env KEY=VALUE            environment for a stdio server (repeatable; it also inherits yours)
  --env-file <file>          KEY=VALUE lines for a stdio server (# comments, quotes)
  --header "Name: value"     HTTP request header (repeatable), e.g. "Authorization: Bearer …"
  --connect-timeout <s>      give up connecting after this many seconds (default 30)
  --timeout <s>              cancel a call after this many seconds of silence from the server
                             (default 60; progress resets it; paused while you answer a form)
  --log-level <level>        server log messages to show: debug|info|notice|warning|error|…
                             (default info; sent to the server with logging/setLevel)
  --root <dir>               a directory the server may work in (roots; repeatable)
  --format text|json         scripted runs: json prints one JSON object per line on stdout
                             ({"server": …}, then {"call", "arguments", "result" | "error"} per
                             call); everything for people goes to stderr. Exit codes either way:
                             0 every call succeeded, 1 a call failed or returned isError,
                             2 bad usage or no connection, 130 cancelled
  --help                     this text

Keys while a call runs: Ctrl-C or c cancels it (the server is told), a second Ctrl-C quits
(exit code 130). Without a terminal, or with --answers or --call, it runs non-interactively
and exits non-zero if a tool call fails.
`,
  gateway: `elicit gateway <url> [options]
elicit gateway [options] -- <command> [args...]

Serves the server to a host (over stdio by default, so a host's config is one command), with
every question the server asks checked and delivered on the revision the host speaks.

Options:
  --listen <host:port>       serve hosts over HTTP instead of stdio (beyond loopback only with
                             --auth-issuer, as elicit/server: callers must be authenticated)
  --auth-issuer <url>        over --listen, accept only JWT access tokens (RFC 9068) from this
                             authorization server (https); each caller is the token's issuer
                             and subject; a request without one gets 401 and the metadata
                             (RFC 9728) that says where to sign in
  --auth-audience <url>      the audience tokens must name: the gateway's MCP address as
                             clients reach it (default http://<listen host:port>/mcp)
  --era auto|legacy|modern   the server's era (default auto: probe, fall back to 2025-11-25)
  --env KEY=VALUE            environment for a stdio server (repeatable; it also inherits yours)
  --env-file <file>          KEY=VALUE lines for a stdio server
  --header "Name: value"     HTTP request header for the server (repeatable)
  --connect-timeout <s>      give up connecting after this many seconds (default 30)
  --timeout <s>              a round toward the server silent this long fails (default 60)
  --policy <file.json>       answer policy for headless runs: rules on server, tool, mode, field
                             → ask | inbox | decline | cancel | defaults | {"answer": {...}}
                             (a URL page is never accepted by a rule)
  --audit <file.jsonl>       append each question and its outcome (sensitive fields redacted)
  --inbox                    forms the host cannot show wait on a loopback web page; its
                             one-time link is printed to stderr
  --notify "<command>"       run a command when a question waits (with server, tool and
                             message as arguments, and a one-time inbox link for the
                             question's person in ELICIT_INBOX_LINK; no shell); implies --inbox
  --store <url>              share the inbox with every gateway replica on this store
                             (redis://… or postgres://…); implies --inbox
  --store-prefix <name>      Redis key prefix or PostgreSQL schema for this deployment
                             (default elicit: / elicit)
  --inbox-listen <host:port> where the inbox page listens (default 127.0.0.1, any free port;
                             beyond loopback only with an https --inbox-url); implies --inbox
  --inbox-url <url>          the inbox's address as people open it: a proxy or load balancer
                             in front of the replicas (https); implies --inbox
  --inbox-issuer <url>       people sign in to the inbox with this OpenID provider, as the
                             principal its access tokens give their calls; with
  --inbox-client-id <id>     the client registered there (redirect URI <inbox>/inbox/login/
                             callback; a secret in ELICIT_INBOX_CLIENT_SECRET); implies --inbox
  --help                     this text

See docs/gateway.md for host configuration.
`,
  logout: `elicit logout <url>

Deletes what elicit keeps to reconnect to a server without signing in again (its client
registration and tokens, in $XDG_CONFIG_HOME/elicit/auth or ~/.config/elicit/auth).
`,
  check: `elicit check <schema.json> [--revision 2025-06-18|2025-11-25|2026-07-28]

Checks a requestedSchema (or an elicitation/create params object) against the restricted subset.
`,
};

/** The command line names no command, or one with arguments it does not take. */
class UsageError extends ElicitError {
  constructor(message: string) {
    super(ELICIT_CLI_USAGE, message);
  }
}

function fail(message: string): never {
  throw new UsageError(message);
}

async function check(args: string[]): Promise<number> {
  const { checkSchema, formatPath, isRevision, LATEST_REVISION } = await import(
    '../schema/index.ts'
  );
  const at = args.indexOf('--revision');
  const file = args.find((a, i) => !a.startsWith('--') && (at === -1 || i !== at + 1));
  if (file === undefined) fail('elicit check needs a file: elicit check schema.json');
  const revision = at === -1 ? LATEST_REVISION : args[at + 1];
  if (!isRevision(revision))
    fail(`--revision must be one of 2025-06-18, 2025-11-25, 2026-07-28; got ${String(revision)}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  const schema = (raw as { requestedSchema?: unknown })?.requestedSchema ?? raw;
  const result = checkSchema(schema, { revision: revision as Revision });
  for (const w of result.warnings)
    process.stdout.write(`${styleText('yellow', 'warning')} ${formatPath(w.path)}: ${w.message}\n`);
  if (result.ok) {
    process.stdout.write(
      `${styleText('green', 'ok')}: ${result.schema.fields.length} field(s), valid for ${revision}\n`,
    );
    return 0;
  }
  for (const e of result.errors) process.stdout.write(`${styleText('red', e.code)} ${e.message}\n`);
  return 1;
}

function era(value: string | undefined): 'auto' | 'legacy' | 'modern' {
  if (value === undefined) return 'auto';
  if (value === 'auto' || value === 'legacy' || value === 'modern') return value;
  fail(`--era must be auto, legacy or modern; got ${JSON.stringify(value)}`);
}

async function host(argv: string[]): Promise<number> {
  const dashdash = argv.indexOf('--');
  const opts = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const command = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  let eraValue: string | undefined;
  let answersFile: string | undefined;
  let policy: string | undefined;
  let openUrls = false;
  let logLevel: string | undefined;
  let format = 'text';
  const roots: string[] = [];
  let connectTimeout: number | undefined;
  let callTimeout: number | undefined;
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const [{ LOG_LEVELS, runHost }, { HostError }, { parseEnvAssignment, parseHeader, readEnvFile }] =
    await Promise.all([
      import('./host/run.ts'),
      import('./host/errors.ts'),
      import('./host/transport.ts'),
    ]);
  const seconds = (name: string, text: string) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0 || n > 86_400)
      fail(`${name} takes seconds between 0 and 86400; got ${JSON.stringify(text)}`);
    return Math.round(n * 1000);
  };
  const hostOption = <T>(f: () => T): T => {
    try {
      return f();
    } catch (error) {
      if (error instanceof HostError) fail(error.message);
      throw error;
    }
  };
  const calls: { name: string; args?: Record<string, unknown> }[] = [];
  const positional: string[] = [];
  for (let i = 0; i < opts.length; i++) {
    const a = opts[i] as string;
    const value = () => opts[++i] ?? fail(`${a} needs a value`);
    if (a === '--era') eraValue = value();
    else if (a === '--answers') answersFile = value();
    else if (a === '--policy') policy = value();
    else if (a === '--open-urls') openUrls = true;
    else if (a === '--env') {
      const [k, v] = hostOption(() => parseEnvAssignment(value()));
      env[k] = v;
    } else if (a === '--env-file') {
      const file = value();
      Object.assign(
        env,
        hostOption(() => readEnvFile(file)),
      );
    } else if (a === '--header') {
      const [k, v] = hostOption(() => parseHeader(value()));
      headers[k] = v;
    } else if (a === '--connect-timeout') connectTimeout = seconds(a, value());
    else if (a === '--timeout') callTimeout = seconds(a, value());
    else if (a === '--log-level') logLevel = value();
    else if (a === '--format') format = value();
    else if (a === '--root') roots.push(value());
    else if (a === '--call') calls.push({ name: value() });
    else if (a === '--args') {
      const last = calls.at(-1) ?? fail('--args must follow a --call');
      try {
        last.args = JSON.parse(value());
      } catch (error) {
        fail(`--args is not JSON: ${(error as Error).message}`);
      }
    } else if (a.startsWith('--')) fail(`unknown option ${a}; see elicit host --help`);
    else positional.push(a);
  }
  let target: Target;
  if (command.length > 0) target = { command: command[0] as string, args: command.slice(1) };
  else if (positional[0] !== undefined) {
    try {
      new URL(positional[0]);
    } catch {
      fail(
        `${JSON.stringify(positional[0])} is not a URL; for a local server use: elicit host -- <command> [args...]`,
      );
    }
    target = { url: positional[0] };
  } else fail('elicit host needs a server: a URL, or -- <command> [args...]');
  let answers: ScriptedAnswer[] | undefined;
  let urls: string | undefined;
  if (answersFile !== undefined) {
    try {
      const data = JSON.parse(readFileSync(answersFile, 'utf8')) as {
        answers?: ScriptedAnswer[];
        policy?: string;
        urls?: string;
      };
      answers = data.answers ?? [];
      policy ??= data.policy;
      urls = data.urls;
    } catch (error) {
      fail(`cannot read ${answersFile}: ${(error as Error).message}`);
    }
  }
  if (policy !== undefined && !['accept-defaults', 'decline', 'cancel'].includes(policy))
    fail(`--policy must be accept-defaults, decline or cancel; got ${policy}`);
  if (format !== 'text' && format !== 'json')
    fail(`--format must be text or json; got ${JSON.stringify(format)}`);
  if (format === 'json' && calls.length === 0)
    fail('--format json is for scripted runs: add --call <tool>');
  if (logLevel !== undefined && !(LOG_LEVELS as readonly string[]).includes(logLevel))
    fail(`--log-level must be one of ${LOG_LEVELS.join(', ')}; got ${logLevel}`);
  if (Object.keys(env).length > 0 && 'url' in target)
    fail(
      '--env and --env-file are for stdio servers (elicit host -- <command>); use --header for HTTP',
    );
  if (Object.keys(headers).length > 0 && !('url' in target))
    fail('--header is for HTTP servers; use --env for a stdio server');
  const interactive =
    process.stdin.isTTY === true && answersFile === undefined && calls.length === 0;
  return runHost({
    target,
    era: era(eraValue),
    interactive,
    answers,
    policy: policy as 'accept-defaults' | 'decline' | 'cancel' | undefined,
    openUrls: openUrls || urls === 'open',
    calls,
    env,
    headers,
    logLevel: logLevel as LogLevel | undefined,
    format: format as 'text' | 'json',
    roots,
    limits: {
      ...(connectTimeout === undefined ? {} : { connectTimeoutMs: connectTimeout }),
      ...(callTimeout === undefined ? {} : { callTimeoutMs: callTimeout }),
    },
    input: process.stdin,
    output: process.stdout,
  });
}

async function logout(args: string[]): Promise<number> {
  const url = args[0] ?? fail('elicit logout needs the server URL: elicit logout <url>');
  if (!URL.canParse(url)) fail(`${JSON.stringify(url)} is not a URL`);
  const { forgetSignIn } = await import('./auth.ts');
  const forgot = await forgetSignIn(url);
  process.stdout.write(forgot ? `Signed out of ${url}.\n` : `No saved sign-in for ${url}.\n`);
  return 0;
}

/** The version in package.json (beside src/ in a clone, beside dist/ in a package). */
function packageVersion(): string {
  for (const up of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'elicit' && typeof pkg.version === 'string') return pkg.version;
    } catch {}
  }
  return 'unknown';
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-V' || command === 'version') {
    process.stdout.write(`elicit ${packageVersion()}\n`);
    return 0;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP.main as string);
    return 0;
  }
  if (
    rest.includes('--help') &&
    (rest.indexOf('--') === -1 || rest.indexOf('--help') < rest.indexOf('--'))
  ) {
    const help = HELP[command === 'connect' ? 'host' : command];
    if (help === undefined) fail(`unknown command ${JSON.stringify(command)}; see elicit --help`);
    process.stdout.write(help);
    return 0;
  }
  switch (command) {
    case 'demo': {
      if (rest.includes('--web')) {
        const { startWebDemo } = await import('./web-demo.ts');
        const stack = await startWebDemo({ port: Number(process.env.PORT ?? 0) });
        const page = new URL('/', stack.url);
        process.stdout.write(
          `elicit demo (web): open ${page.href} in your browser. Ctrl+C stops it.\n`,
        );
        await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
        await stack.close();
        return 0;
      }
      const at = rest.indexOf('--era');
      const { runDemo } = await import('./demo.ts');
      return runDemo({
        era: era(at === -1 ? undefined : rest[at + 1]),
        interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
        input: process.stdin,
        output: process.stdout,
      });
    }
    case 'host':
    // The command's name before 0.2, kept until 0.3 (CHANGELOG.md).
    case 'connect':
      return host(rest);
    case 'check':
      return check(rest);
    case 'logout':
      return logout(rest);
    case 'gateway': {
      const { gatewayCommand } = await import('./gateway.ts');
      return gatewayCommand(rest, fail);
    }
    default:
      fail(`unknown command ${JSON.stringify(command)}; see elicit --help`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${styleText('red', 'error')}: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof ElicitError) {
      // A named failure (a saved sign-in that cannot be read, …): its message says what to do.
      process.stderr.write(`${styleText('red', 'error')}: ${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(
      `${styleText('red', 'error')}: ${(error as Error).stack ?? String(error)}\n`,
    );
    process.exit(1);
  },
);
