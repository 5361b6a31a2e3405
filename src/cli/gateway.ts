/**
 * `elicit gateway`: elicit's gateway in front of one server, for a host that runs a command
 * (stdio, the default) or connects to an address (`--listen`). The server is reached as
 * `elicit host` reaches it: the same transport (headers, environment, the child's stderr)
 * and the same saved sign-in. Nothing is written to stdout but MCP: notes go to stderr.
 */

import { spawn } from 'node:child_process';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { UpstreamEra } from '../gateway/index.ts';
import {
  accessTokens,
  auditFile,
  createGateway,
  Inbox,
  openSharedStore,
  PolicyError,
  readPolicy,
  type SharedStore,
} from '../gateway/index.ts';
import { isLoopbackHost } from '../kernel/loopback.ts';
import { authProviderFor } from './auth.ts';
import { createTransport, type Target } from './host/transport.ts';

export interface GatewayCliOptions {
  readonly target: Target;
  readonly era: UpstreamEra;
  readonly env?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly connectTimeoutMs?: number;
  readonly callTimeoutMs?: number;
  /** Answer policy file (JSON) and audit log file (JSON lines). */
  readonly policyFile?: string;
  readonly auditFile?: string;
  /** Start the web inbox on loopback (its one-time link goes to stderr). */
  readonly inbox?: boolean;
  /** A command run (no shell) when a question waits in the inbox: argv + server, tool, message. */
  readonly notify?: readonly string[];
  /** Serve hosts over HTTP here instead of stdio. */
  readonly listen?: { readonly host: string; readonly port: number };
  /**
   * Hosts over `listen` present JWT access tokens from this issuer for `audience` (the served
   * MCP URL as clients reach it); each caller is then the token's issuer and subject.
   */
  readonly listenAuth?: { readonly issuer: string; readonly audience: string };
  /**
   * The store replicas share (redis:// or postgres://): the inbox's questions, links and
   * sessions live there, and answers given on any replica reach the one holding the call.
   */
  readonly store?: string;
  /** The Redis key prefix or PostgreSQL schema that sets this deployment apart on that server. */
  readonly storePrefix?: string;
  /** Where the inbox listens (default 127.0.0.1, any free port). */
  readonly inboxListen?: { readonly host: string; readonly port: number };
  /** The inbox's address as people open it (a proxy or load balancer in front of the replicas). */
  readonly inboxUrl?: string;
  /**
   * The inbox's own sign-in: the OpenID provider and the client registered there for the inbox
   * (the secret comes from ELICIT_INBOX_CLIENT_SECRET, never from the command line).
   */
  readonly inboxLogin?: {
    readonly issuer: string;
    readonly clientId: string;
    readonly clientSecret?: string;
  };
}

/** An issuer the inbox or `--listen` may trust: https, or http on a loopback name (development). */
function issuerProblem(flag: string, text: string): string | undefined {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url?.protocol === 'https:') return undefined;
  if (url?.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `${flag} takes the ${flag === '--inbox-issuer' ? 'OpenID provider' : 'authorization server'}'s https address (http only on a loopback name); got ${JSON.stringify(text.slice(0, 100))}`;
}

/** Addresses that listen on every interface: no client reaches the server by that name. */
const WILDCARD = new Set(['0.0.0.0', '::', '']);

/** The loopback names a local client sends in Host (the SDK's localhostAllowedHostnames). */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** Runs the gateway until the host goes away (stdio) or the process is told to stop. */
export async function runGateway(o: GatewayCliOptions): Promise<number> {
  const note = (line: string) => process.stderr.write(`elicit gateway: ${line}\n`);
  const own = Object.keys(o.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
  const auth =
    'url' in o.target && !own
      ? await authProviderFor(o.target.url, { output: process.stderr })
      : undefined;
  const policy = o.policyFile === undefined ? undefined : readPolicy(o.policyFile);
  const audit = o.auditFile === undefined ? undefined : auditFile(o.auditFile);
  let shared: SharedStore | undefined;
  if (o.store !== undefined) {
    shared = await openSharedStore(o.store, {
      ...(o.storePrefix === undefined ? {} : { prefix: o.storePrefix }),
      onWarning: (w) => note(`${w.message} (${w.code})`),
    });
    note(
      `the inbox is shared through ${new URL(o.store).protocol.slice(0, -1)} with every replica on it.`,
    );
  }
  // The inbox, once started: the notify command mints links with it.
  let started: Inbox | undefined;
  const inbox =
    o.inbox === true
      ? await Inbox.start({
          ...(shared === undefined ? {} : { store: shared.store, bus: shared.bus }),
          ...(o.inboxListen === undefined ? {} : o.inboxListen),
          ...(o.inboxUrl === undefined ? {} : { publicUrl: o.inboxUrl }),
          ...(o.inboxLogin === undefined
            ? {}
            : {
                oidc: {
                  ...o.inboxLogin,
                  allowInsecure: new URL(o.inboxLogin.issuer).protocol === 'http:',
                },
              }),
          onWaiting: (q, principal) => {
            note(`a question from ${q.server} (${q.tool}) waits in the inbox.`);
            const [cmd, ...args] = o.notify ?? [];
            if (cmd === undefined || started === undefined) return;
            // The command is how a person who is not at this terminal (a principal behind
            // --listen) learns of the question: it gets a one-time link minted for the
            // question's principal, which signs one browser in as that principal only.
            started.link(principal).then(
              (link) =>
                spawn(cmd, [...args, q.server, q.tool, q.message.slice(0, 200)], {
                  stdio: 'ignore',
                  env: {
                    ...process.env,
                    ELICIT_INBOX_LINK: link,
                    ELICIT_INBOX_PRINCIPAL: principal,
                  },
                })
                  .on('error', (e) => note(`--notify failed: ${e.message}`))
                  .unref(),
              (e: unknown) =>
                note(
                  `--notify not run: no link could be made (${e instanceof Error ? e.message : String(e)})`,
                ),
            );
          },
        })
      : undefined;
  started = inbox;
  if (inbox !== undefined && o.inboxLogin !== undefined)
    note(
      `people sign in to the inbox at ${inbox.url.href} with ${new URL(o.inboxLogin.issuer).host} (the client's redirect URI: ${new URL('/inbox/login/callback', inbox.url).href})`,
    );
  // Callers with tokens are their issuer and subject, not `local`: the printed link shows none
  // of their questions; a sign-in with the same issuer (or --notify's links) does.
  if (inbox !== undefined && o.listenAuth !== undefined && o.inboxLogin === undefined)
    note(
      `callers are the people their access tokens name: give --inbox-issuer ${o.listenAuth.issuer} (and --inbox-client-id) so they can sign in to the inbox, or --notify to send each one a link`,
    );
  if (inbox !== undefined)
    note(
      `questions your host cannot show wait at ${await inbox.link()} (a one-time link: open it once, in your browser)`,
    );
  const gateway = await createGateway({
    era: o.era,
    ...(inbox === undefined ? {} : { inbox }),
    ...(policy === undefined ? {} : { policy }),
    ...(audit === undefined ? {} : { audit }),
    transport: () =>
      createTransport(o.target, {
        env: o.env,
        headers: o.headers,
        authProvider: auth,
        onStderr: (line) => process.stderr.write(`server│ ${line}\n`),
      }).transport,
    retryConnect: async (transport) => {
      if (auth === undefined || !auth.signingIn) return false;
      note('waiting for you to sign in in your browser…');
      await auth.finishSignIn(transport as StreamableHTTPClientTransport);
      return true;
    },
    ...(o.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: o.connectTimeoutMs }),
    ...(o.callTimeoutMs === undefined ? {} : { limits: { callTimeoutMs: o.callTimeoutMs } }),
  });
  let closing = false;
  const ended = new Promise<number>((resolve) => {
    gateway.upstream.client.onclose = () => {
      if (closing) return;
      note('the server closed the connection; stopping.');
      resolve(1);
    };
    const stop = () => resolve(0);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (o.listen === undefined) process.stdin.once('end', stop);
  });
  const where = `${gateway.upstream.client.getServerVersion()?.name ?? 'the server'} (${gateway.upstream.revision})`;
  if (o.listen === undefined) {
    gateway.stdio();
    note(`serving ${where} on stdio.`);
  } else {
    const listening = await gateway.listen(
      { host: o.listen.host, port: o.listen.port },
      o.listenAuth === undefined ? {} : await verified(o.listen.host, o.listenAuth),
    );
    note(`serving ${where} at ${listening.url.href}`);
    if (o.listenAuth !== undefined)
      note(
        `hosts sign in with ${o.listenAuth.issuer} and present its access tokens for ${o.listenAuth.audience}`,
      );
  }
  const code = await ended;
  closing = true;
  await gateway.close();
  await inbox?.close();
  await shared?.close();
  await audit?.close();
  return code;
}

/**
 * The HTTP options of a `--listen` that verifies access tokens: the tokens, and the host names
 * its clients may use (the audience's, the listening address's and loopback's).
 */
async function verified(host: string, auth: { issuer: string; audience: string }) {
  const tokens = await accessTokens({
    issuer: auth.issuer,
    resource: auth.audience,
    allowInsecure: new URL(auth.issuer).protocol === 'http:',
  });
  const named = [new URL(auth.audience).hostname];
  if (!WILDCARD.has(host)) named.push(host.includes(':') ? `[${host}]` : host);
  return { ...tokens, allowedHosts: [...new Set([...LOOPBACK_HOSTS, ...named])] };
}

/** `elicit gateway` arguments → options; `fail` reports a usage error. */
export async function gatewayCommand(
  argv: readonly string[],
  fail: (message: string) => never,
): Promise<number> {
  const { HostError } = await import('./host/errors.ts');
  const { parseEnvAssignment, parseHeader, readEnvFile } = await import('./host/transport.ts');
  const dashdash = argv.indexOf('--');
  const opts = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const command = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  let era: UpstreamEra = 'auto';
  let listenAt: { host: string; port: number } | undefined;
  let connectTimeoutMs: number | undefined;
  let callTimeoutMs: number | undefined;
  let policyFile: string | undefined;
  let auditTo: string | undefined;
  let inbox = false;
  let notify: string[] | undefined;
  let store: string | undefined;
  let storePrefix: string | undefined;
  let inboxListen: { host: string; port: number } | undefined;
  let inboxUrl: string | undefined;
  let inboxIssuer: string | undefined;
  let inboxClientId: string | undefined;
  let authIssuer: string | undefined;
  let authAudience: string | undefined;
  const positional: string[] = [];
  const host = <T>(f: () => T): T => {
    try {
      return f();
    } catch (error) {
      if (error instanceof HostError) fail(error.message);
      throw error;
    }
  };
  const seconds = (name: string, text: string) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0 || n > 86_400)
      fail(`${name} takes seconds between 0 and 86400; got ${JSON.stringify(text)}`);
    return Math.round(n * 1000);
  };
  const hostPort = (name: string, v: string) => {
    const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(v);
    const port = Number(m?.[2]);
    if (m === null || port > 65_535)
      fail(`${name} takes host:port (e.g. 127.0.0.1:8808); got ${JSON.stringify(v)}`);
    return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port };
  };
  for (let i = 0; i < opts.length; i++) {
    const a = opts[i] as string;
    const value = () => opts[++i] ?? fail(`${a} needs a value`);
    if (a === '--era') {
      const v = value();
      if (v !== 'auto' && v !== 'legacy' && v !== 'modern')
        fail(`--era must be auto, legacy or modern; got ${JSON.stringify(v)}`);
      era = v;
    } else if (a === '--env') {
      const [k, v] = host(() => parseEnvAssignment(value()));
      env[k] = v;
    } else if (a === '--env-file') {
      const file = value();
      Object.assign(
        env,
        host(() => readEnvFile(file)),
      );
    } else if (a === '--header') {
      const [k, v] = host(() => parseHeader(value()));
      headers[k] = v;
    } else if (a === '--connect-timeout') connectTimeoutMs = seconds(a, value());
    else if (a === '--timeout') callTimeoutMs = seconds(a, value());
    else if (a === '--policy') policyFile = value();
    else if (a === '--audit') auditTo = value();
    else if (a === '--inbox') inbox = true;
    else if (a === '--store') {
      store = value();
      const scheme = URL.canParse(store) ? new URL(store).protocol : '';
      if (!['redis:', 'rediss:', 'postgres:', 'postgresql:'].includes(scheme))
        fail(
          `--store takes a redis://, rediss://, postgres:// or postgresql:// address; got ${JSON.stringify(store.slice(0, 100))}`,
        );
      inbox = true;
    } else if (a === '--store-prefix') {
      storePrefix = value();
      if (!/^[A-Za-z0-9_:.-]{1,64}$/.test(storePrefix))
        fail('--store-prefix takes 1-64 letters, digits, _ : . or -');
    } else if (a === '--notify') {
      notify = value().split(/\s+/).filter(Boolean);
      inbox = true;
    } else if (a === '--listen') listenAt = hostPort(a, value());
    else if (a === '--inbox-listen') {
      inboxListen = hostPort(a, value());
      inbox = true;
    } else if (a === '--inbox-url') {
      inboxUrl = value();
      if (!URL.canParse(inboxUrl))
        fail(`--inbox-url takes an address; got ${JSON.stringify(inboxUrl)}`);
      inbox = true;
    } else if (a === '--inbox-issuer') {
      inboxIssuer = value();
      const problem = issuerProblem(a, inboxIssuer);
      if (problem !== undefined) fail(problem);
      inbox = true;
    } else if (a === '--inbox-client-id') {
      inboxClientId = value();
      if (!/^[\x21-\x7e]{1,200}$/.test(inboxClientId))
        fail(
          '--inbox-client-id takes the client id registered with the provider (printable, no spaces)',
        );
      inbox = true;
    } else if (a === '--auth-issuer') {
      authIssuer = value();
      const problem = issuerProblem(a, authIssuer);
      if (problem !== undefined) fail(problem);
    } else if (a === '--auth-audience') {
      authAudience = value();
      const url = URL.canParse(authAudience) ? new URL(authAudience) : undefined;
      if (url === undefined || !['https:', 'http:'].includes(url.protocol) || url.hash !== '')
        fail(
          `--auth-audience takes the gateway's MCP address as clients reach it (https://…/mcp); got ${JSON.stringify(authAudience.slice(0, 100))}`,
        );
    } else if (a.startsWith('--')) fail(`unknown option ${a}; see elicit gateway --help`);
    else positional.push(a);
  }
  let target: Target;
  if (command.length > 0) target = { command: command[0] as string, args: command.slice(1) };
  else if (positional[0] !== undefined && URL.canParse(positional[0]))
    target = { url: positional[0] };
  else if (positional[0] !== undefined)
    fail(
      `${JSON.stringify(positional[0])} is not a URL; for a local server use: elicit gateway -- <command> [args...]`,
    );
  else fail('elicit gateway needs a server: a URL, or -- <command> [args...]');
  if (Object.keys(env).length > 0 && 'url' in target)
    fail(
      '--env and --env-file are for stdio servers (elicit gateway -- <command>); use --header for HTTP',
    );
  if (Object.keys(headers).length > 0 && !('url' in target))
    fail('--header is for HTTP servers; use --env for a stdio server');
  if ((inboxIssuer === undefined) !== (inboxClientId === undefined))
    fail(
      '--inbox-issuer and --inbox-client-id go together: the OpenID provider, and the client registered there for the inbox',
    );
  // The client's secret comes from the environment: a flag would show in any user's `ps`.
  const secret = process.env.ELICIT_INBOX_CLIENT_SECRET;
  const inboxLogin =
    inboxIssuer === undefined || inboxClientId === undefined
      ? undefined
      : {
          issuer: inboxIssuer,
          clientId: inboxClientId,
          ...(secret === undefined || secret === '' ? {} : { clientSecret: secret }),
        };
  if ((authIssuer !== undefined || authAudience !== undefined) && listenAt === undefined)
    fail('--auth-issuer and --auth-audience are for --listen: hosts over stdio are this user');
  if (authAudience !== undefined && authIssuer === undefined)
    fail('--auth-audience goes with --auth-issuer: the authorization server whose tokens it takes');
  let listenAuth: { issuer: string; audience: string } | undefined;
  if (authIssuer !== undefined && listenAt !== undefined) {
    const { host: at, port } = listenAt;
    if (authAudience === undefined && (WILDCARD.has(at) || port === 0))
      fail(
        `--auth-audience is needed with --listen ${at.includes(':') ? `[${at}]` : at}:${port}: the gateway's MCP address as clients reach it, which tokens must name`,
      );
    listenAuth = {
      issuer: authIssuer,
      audience: authAudience ?? `http://${at.includes(':') ? `[${at}]` : at}:${port}/mcp`,
    };
  }
  if (policyFile !== undefined)
    try {
      readPolicy(policyFile);
    } catch (error) {
      if (error instanceof PolicyError) fail(error.message);
      throw error;
    }
  return runGateway({
    target,
    ...(policyFile === undefined ? {} : { policyFile }),
    ...(auditTo === undefined ? {} : { auditFile: auditTo }),
    inbox,
    ...(notify === undefined ? {} : { notify }),
    ...(store === undefined ? {} : { store }),
    ...(storePrefix === undefined ? {} : { storePrefix }),
    ...(inboxListen === undefined ? {} : { inboxListen }),
    ...(inboxUrl === undefined ? {} : { inboxUrl }),
    ...(inboxLogin === undefined ? {} : { inboxLogin }),
    era,
    env,
    headers,
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
    ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }),
    ...(listenAt === undefined ? {} : { listen: listenAt }),
    ...(listenAuth === undefined ? {} : { listenAuth }),
  });
}
