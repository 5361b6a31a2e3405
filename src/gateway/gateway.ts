/**
 * `createGateway`: an SDK `Client` toward one server, and toward hosts an elicit server (an
 * `ElicitServer` whose `build(era)` makes an SDK `McpServer` with forwarding handlers), so the
 * gateway is served by elicit/server's own entries: stdio, and HTTP with its Host/Origin checks,
 * session quotas and exposure rules (beyond loopback only with an authenticated principal).
 * Everything that is not a question is forwarded as it is; calls go through forward.ts.
 */

import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ELICIT_GATEWAY_NO_CALL } from '../kernel/error-codes.ts';
import { TokenBuckets } from '../kernel/rate-limit.ts';
import { sdkToolError, untypedRegister } from '../kernel/sdk-seams.ts';
import {
  ElicitServer,
  type ElicitServerOptions,
  type Era,
  type Gate,
  type HttpOptions,
  httpEntry,
  installLegacyTasks,
  installTaskMethods,
  invoke,
  type LegacyTaskMode,
  type Listening,
  listen,
  openGate,
  type Runnable,
  stdio,
  taskOf,
  WireMcpServer,
  watchTask,
} from '../server/internal.ts';
import { type CallMethod, type ForwardHost, forward } from './forward.ts';
import { HeldCalls, type HeldLimits } from './held.ts';
import type { Inbox } from './inbox.ts';
import type { AuditLog, Policy } from './policy.ts';
import { GatewayError, Upstream, type UpstreamOptions } from './upstream.ts';

export interface GatewayLimits {
  /** Calls held for 2026-07-28 hosts in front of a 2025 server. */
  readonly held?: Partial<HeldLimits>;
  /** A round toward a 2026-07-28 server silent this long fails; default 60 s (progress resets it). */
  readonly callTimeoutMs?: number;
  /** Rounds toward the server in one call; default 16. */
  readonly maxRounds?: number;
  /**
   * After a 2026-07-28 host consented to the pages of a -32042, how long to wait for the server's
   * completion notification before making the call again; default 10 minutes.
   */
  readonly pageWaitMs?: number;
  /** Questions per principal and server: `capacity` at once, `perMinute` after; default 10 / 30. */
  readonly questions?: { readonly capacity: number; readonly perMinute: number };
}

export interface GatewayOptions extends UpstreamOptions {
  /**
   * elicit/server's options for the side toward hosts (keyring for sealed state and replicas,
   * principal, ask limits, state lifetime…); `name` and `version` default to the server's own.
   */
  readonly server?: Partial<ElicitServerOptions>;
  readonly limits?: GatewayLimits;
  /** Answer policy for headless runs (see `readPolicy`); without one every question goes to the host. */
  readonly policy?: Policy;
  /** Where each question and its outcome is written (see `auditFile`). */
  readonly audit?: AuditLog;
  /** The web inbox (see `Inbox.start`): forms and URL pages the host cannot show wait there. */
  readonly inbox?: Inbox;
}

/** A gateway connected to its server, ready to serve hosts. */
export interface Gateway {
  /** The elicit server hosts talk to (its `build(era)` makes a forwarding SDK server). */
  readonly app: ElicitServer;
  readonly upstream: Upstream;
  /** Calls held open toward a 2025 server for 2026-07-28 hosts, now. */
  readonly heldCalls: number;
  /** Serves hosts over this process's stdio. */
  stdio(): { close(): Promise<void> };
  /** Serves hosts over HTTP (`listen` options as elicit/server's; exposure rules apply). */
  listen(
    options?: { host?: string; port?: number; path?: string },
    http?: HttpOptions,
  ): Promise<Listening>;
  close(): Promise<void>;
}

const KIND = {
  'tools/call': 'tool',
  'prompts/get': 'prompt',
  'resources/read': 'resource',
} as const;

/** The side toward hosts: an ElicitServer whose servers forward. */
class GatewayApp extends ElicitServer {
  readonly #build: (era: Era) => McpServer;
  constructor(
    options: ElicitServerOptions,
    build: (era: Era) => McpServer,
    taskEntry: (name: string) => Runnable | undefined,
  ) {
    super(options);
    this.#build = build;
    // The task engine looks a task's tool up by name on every run: here any tool of the
    // server's, forwarded (the gateway registers none of its own).
    (this.tasks as { entry: (name: string) => Runnable | undefined }).entry = taskEntry;
  }
  override build(era: Era): McpServer {
    return this.#build(era);
  }
}

/** Connects to the server and returns the gateway in front of it. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const upstream = new Upstream(options);
  await upstream.connect();
  const info = upstream.client.getServerVersion();
  const caps = upstream.client.getServerCapabilities() ?? {};
  const limits = options.limits ?? {};
  const sessions = new Set<McpServer>();
  let app: GatewayApp | undefined;
  const host: ForwardHost = {
    upstream,
    held: new HeldCalls(limits.held),
    buckets: new TokenBuckets(
      limits.questions ?? { capacity: 10, perMinute: 30 },
      Date.now,
      10_000,
    ),
    callTimeoutMs: limits.callTimeoutMs ?? 60_000,
    maxRounds: limits.maxRounds ?? 16,
    pageWaitMs: limits.pageWaitMs ?? 600_000,
    policy: options.policy,
    audit: options.audit,
    inbox: options.inbox,
    principalOf: (ctx: ServerContext) => (app as GatewayApp).principalOf(ctx),
    watchTask: (ctx, onEnd) => {
      const task = taskOf(ctx);
      return task === undefined
        ? undefined
        : watchTask((app as GatewayApp).tasks, task.id, task.principal, onEnd);
    },
  };

  // What the server announces reaches every host session that can hear it.
  upstream.listen((n) => {
    for (const mcp of sessions) {
      if (!mcp.isConnected()) continue;
      void mcp.server.notification(n as never).catch(() => {});
    }
  });
  // A request outside any call (roots at start-up, say) goes to the latest session that can take it.
  upstream.orphan = async (request) => {
    const capability =
      request.method === 'roots/list'
        ? 'roots'
        : request.method === 'sampling/createMessage'
          ? 'sampling'
          : 'elicitation';
    const session = [...sessions]
      .reverse()
      .find((mcp) => mcp.isConnected() && mcp.server.getClientCapabilities()?.[capability]);
    if (session === undefined)
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `${request.method} outside a call: no host connected to the gateway declares ${capability} (${ELICIT_GATEWAY_NO_CALL}).`,
      );
    return session.server.request(request as never);
  };

  const build = (era: Era): McpServer => {
    const mcp = new WireMcpServer(
      { name: info?.name ?? 'server', version: info?.version ?? '0.0.0' },
      {
        instructions: upstream.client.getInstructions(),
        capabilities: {
          ...(caps.tools === undefined ? {} : { tools: { listChanged: true } }),
          ...(caps.prompts === undefined ? {} : { prompts: { listChanged: true } }),
          ...(caps.resources === undefined
            ? {}
            : {
                resources: {
                  listChanged: true,
                  ...(caps.resources.subscribe === true ? { subscribe: true } : {}),
                },
              }),
          ...(caps.logging === undefined ? {} : { logging: {} }),
          ...(caps.completions === undefined ? {} : { completions: {} }),
        },
      },
    );
    install(mcp, era, app as GatewayApp, host);
    if (era === 'legacy') {
      sessions.add(mcp);
      const low = mcp.server;
      const previous = low.onclose;
      low.onclose = () => {
        previous?.();
        sessions.delete(mcp);
      };
    }
    return mcp;
  };
  app = new GatewayApp(
    {
      name: info?.name ?? 'server',
      version: info?.version ?? '0.0.0',
      audience: `elicit-gateway:${info?.name ?? 'server'}`,
      ...options.server,
    },
    build,
    (name) =>
      heldAsTask(host)
        ? {
            kind: 'tool',
            name,
            task: HELD_TASK,
            handler: (args, ask, c) =>
              forward(host, 'tools/call', { name, arguments: args ?? {} }, ask, c),
          }
        : undefined,
  );
  const served: { close(): Promise<void> }[] = [];
  return {
    app,
    upstream,
    get heldCalls() {
      return host.held.size;
    },
    stdio() {
      const s = stdio(app as GatewayApp);
      served.push(s);
      return s;
    },
    async listen(where = {}, http = {}) {
      const listening = await listen(httpEntry(app as GatewayApp, http), where);
      served.push(listening);
      return listening;
    },
    async close() {
      host.held.closeAll();
      for (const s of served) await s.close().catch(() => {});
      await upstream.close();
    },
  };
}

/** Forwarding handlers on one host-side server. */
function install(mcp: McpServer, era: Era, app: GatewayApp, host: ForwardHost): void {
  const low = mcp.server;
  const client = host.upstream.client;
  const caps = client.getServerCapabilities() ?? {};
  const pass =
    (method: string) =>
    (request: { params?: Record<string, unknown> }, ctx: ServerContext): Promise<never> =>
      client.request({ method, params: strip(request.params) } as never, {
        signal: ctx.mcpReq.signal,
      }) as Promise<never>;
  const gates = era === 'modern' ? new WeakMap<object, Gate>() : undefined;
  // A 2025-11-25 host may run any call as a task (the gateway follows the server's own task,
  // or waits for its plain call, in the background); installed before tools/call is.
  const serverTasks =
    (caps.tasks as { requests?: { tools?: { call?: unknown } } } | undefined)?.requests?.tools
      ?.call !== undefined;
  const tasks =
    era === 'legacy' && caps.tools !== undefined && (host.upstream.modern || serverTasks);
  if (tasks) installLegacyTasks(mcp, app, EVERY_TOOL);
  // A 2026-07-28 host with the tasks extension gets a call held toward a 2025 server as a task.
  const heldTasks = era === 'modern' && caps.tools !== undefined && heldAsTask(host);
  if (heldTasks) installTaskMethods(mcp, app);
  const call =
    (method: CallMethod) =>
    async (request: { method: string; params: Record<string, unknown> }, ctx: ServerContext) => {
      const asTask = heldTasks && method === 'tools/call';
      const runnable: Runnable = {
        kind: KIND[method],
        handler: (_args, ask, c) => forward(host, method, request.params, ask, c),
        ...(asTask ? { task: HELD_TASK } : {}),
      };
      if (gates !== undefined) gates.set(ctx.mcpReq, openGate(app, request as never, ctx));
      try {
        // A task is made of the arguments (its runs call the server with them again).
        const args = asTask ? (request.params.arguments ?? {}) : undefined;
        return await invoke(app, runnable, era, mcp, gates, args, ctx);
      } catch (error) {
        // What a tool's run throws reaches the host as McpServer answers it: a wire error as
        // itself, anything else as an `isError` result naming it.
        if (method !== 'tools/call' || error instanceof ProtocolError) throw error;
        return sdkToolError(mcp, (error as Error).message);
      }
    };
  const set = untypedRegister<(request: never, ctx: ServerContext) => unknown>(low);
  if (caps.tools !== undefined) {
    // A 2025 server lists its own task support; a 2026-07-28 server's tools may all be tasks here.
    set(
      'tools/list',
      tasks && host.upstream.modern ? asTasks(pass('tools/list')) : pass('tools/list'),
    );
    set('tools/call', call('tools/call'));
  }
  if (caps.prompts !== undefined) {
    set('prompts/list', pass('prompts/list'));
    set('prompts/get', call('prompts/get'));
  }
  if (caps.resources !== undefined) {
    set('resources/list', pass('resources/list'));
    set('resources/templates/list', pass('resources/templates/list'));
    set('resources/read', call('resources/read'));
    if (caps.resources.subscribe === true) {
      set('resources/subscribe', pass('resources/subscribe'));
      set('resources/unsubscribe', pass('resources/unsubscribe'));
    }
  }
  if (caps.completions !== undefined) set('completion/complete', pass('completion/complete'));
  if (caps.logging !== undefined) set('logging/setLevel', pass('logging/setLevel'));
  low.setNotificationHandler('notifications/roots/list_changed', () => {
    void client.sendRootsListChanged().catch(() => {});
  });
}

/** A held call offered as a task from the start, when the host declares the extension. */
const HELD_TASK = { support: 'optional', start: 'call' } as const;

/** Whether calls are held toward this server (a 2025 one), so a 2026-07-28 host may get tasks. */
const heldAsTask = (host: ForwardHost) => !host.upstream.modern;

/** Every tool may run as a task (`installLegacyTasks` reads a tool's support from this map). */
class EveryTool extends Map<string, LegacyTaskMode> {
  override get(): LegacyTaskMode {
    return 'optional';
  }
}
const EVERY_TOOL: ReadonlyMap<string, LegacyTaskMode> = new EveryTool();

/** tools/list saying each tool may run as a 2025-11-25 task (a host asks only those that say so). */
function asTasks(
  list: (request: { params?: Record<string, unknown> }, ctx: ServerContext) => Promise<never>,
) {
  return async (request: { params?: Record<string, unknown> }, ctx: ServerContext) => {
    const r = (await list(request, ctx)) as { tools?: unknown };
    if (!Array.isArray(r.tools)) return r as never;
    return {
      ...r,
      tools: r.tools.map((t: Record<string, unknown>) => ({
        ...t,
        execution: { ...(t.execution as object | undefined), taskSupport: 'optional' },
      })),
    } as never;
  };
}

/** A request's params without the host's own `_meta` (its progress token, its envelope). */
function strip(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (params === undefined) return undefined;
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

export { GatewayError };
