/**
 * `createServer`: register tools, prompts and resources once, with handlers that take an `ask`,
 * and serve them on both protocol eras. Each era gets its own SDK `McpServer` from `build(era)`,
 * with the state gate (gate.ts) and the runner (runner.ts) installed around every handler.
 */

import { randomBytes } from 'node:crypto';
import {
  type AuthInfo,
  type GetPromptResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type ServerContext,
  type StandardSchemaWithJSON,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { InternalError } from '../errors.ts';
import {
  ELICIT_ONCE_PROCESS_LOCAL,
  ELICIT_TASK_STORE_PROCESS_LOCAL,
} from '../kernel/error-codes.ts';
import { MODERN_REVISION } from '../kernel/revision.ts';
import {
  registeredToolsOf,
  replaceExecuteToolHandler,
  serveRegisteredTools,
} from '../kernel/sdk-seams.ts';
import type { Store } from '../kernel/store.ts';
import { memoryStore, onceStoreFrom } from '../store/internal.ts';
import { type Ask, type AskLimits, DEFAULT_ASK_LIMITS } from './ask.ts';
import type { TaskStart } from './engines/contract.ts';
import type { ReplayHost } from './engines/replay.ts';
import type { TaskHost } from './engines/task.ts';
import { checkLimits } from './errors.ts';
import { Faults } from './faults.ts';
import { type Era, type Gate, installGate } from './gate.ts';
import { type InboxSettings, type ResolvedInbox, resolveInbox } from './inbox.ts';
import { MEMORY_ONCE_ENTRIES, type OnceStore } from './once-store.ts';
import { PendingAsks } from './pending.ts';
import {
  checkExposure,
  NO_PRINCIPAL_MESSAGE,
  type PrincipalOption,
  resolvePrincipal,
  TokenIssuerError,
} from './principal.ts';
import { invoke, type TaskSupport, type ToolOutput } from './runner.ts';
import {
  createSealer,
  generateKeySecret,
  type Keyring,
  type Sealer,
  type StateError,
} from './seal.ts';
import { ServerPool } from './server-pool.ts';
import { installLegacyTasks, type LegacyTaskLimits } from './tasks/legacy-tasks.ts';
import { installTaskMethods, startTask } from './tasks/methods.ts';
import { type TaskLimits, taskLimits } from './tasks/records.ts';
import type { ConnectSettings } from './url-mode.ts';
import { WireMcpServer } from './wire.ts';

export type { Era } from './gate.ts';
export type { ToolOutput } from './runner.ts';

export type ToolHandler<A> = (
  args: A,
  ask: Ask,
  ctx: ServerContext,
) => ToolOutput | Promise<ToolOutput>;
export type PromptHandler<A> = (
  args: A,
  ask: Ask,
  ctx: ServerContext,
) => GetPromptResult | Promise<GetPromptResult>;
export type ResourceHandler = (
  uri: URL,
  ask: Ask,
  ctx: ServerContext,
) => ReadResourceResult | Promise<ReadResourceResult>;

export interface ToolConfig<S extends StandardSchemaWithJSON | undefined> {
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: S;
  readonly annotations?: Record<string, unknown>;
  /**
   * Runs the tool as a task (the `io.modelcontextprotocol/tasks` extension on 2026-07-28) when
   * the client declares the extension: the call returns a task id at once and the handler runs
   * in the background, its asks parking the task until answered through `tasks/update`.
   * `optional`: without the extension the tool runs as any other; `required`: without it the
   * call is refused (-32021). On 2025-11-25 sessions it runs as a task when the client augments
   * the call with `params.task` (`required`: only then, else -32601). See docs/server.md.
   */
  readonly task?: 'optional' | 'required';
  /**
   * Where the task starts: `call` (default), or `background`: the asks before
   * `ask.background()` are answered in rounds of the call itself, the rest runs as the task.
   */
  readonly taskStart?: 'call' | 'background';
}

/** Where tasks are kept and their limits. */
export interface TaskOptions {
  /**
   * Where task records live. Default: `store`, else the connect pages' store, else memory (one
   * process: tasks do not survive a restart; a warning says so at the first build).
   */
  readonly store?: Store;
  readonly limits?: Partial<TaskLimits>;
  /** Bounds of the 2025-11-25 tasks on legacy sessions (running per session, page size…). */
  readonly legacy?: Partial<LegacyTaskLimits>;
}
export interface PromptConfig<S extends StandardSchemaWithJSON | undefined> {
  readonly title?: string;
  readonly description?: string;
  readonly argsSchema?: S;
}

type ArgsOf<S> = S extends StandardSchemaWithJSON
  ? NonNullable<S['~standard']['types']>['output']
  : Record<string, never>;

export interface ElicitServerOptions {
  readonly name: string;
  readonly version: string;
  readonly instructions?: string;
  /**
   * Keys for sealing requestState. Replicas must share it. Without one, a random key is made
   * per process: fine for one process, and states do not survive a restart.
   */
  readonly keyring?: Keyring;
  /**
   * Who this server is, bound into every sealed requestState so that services sharing a key
   * cannot accept each other's states: its resource URL (e.g. https://mcp.example.com/mcp) or
   * a unique name. Default: `name`.
   */
  readonly audience?: string;
  /** Lifetime of a sealed requestState; default 10 minutes. */
  readonly stateTtlMs?: number;
  /**
   * Characters of the states this process sealed that it keeps, so a state coming back here
   * opens without decrypting (each once; checked as any other); default 1 MiB, 0 keeps none.
   */
  readonly stateMemoryChars?: number;
  readonly limits?: Partial<AskLimits>;
  /**
   * Where `ask.once` keeps its single-use markers. Default: the URL-mode store (connect records)
   * when configured, else memory (one process). Replicas sharing a keyring must share it.
   */
  readonly store?: Store;
  /**
   * Start-up warnings (a shared keyring with process-local markers, say) and failures of work
   * outside any request (ELICIT_BACKGROUND_FAILED: a URL-mode wait's read, a task's lease
   * renewal or write), each said once until it works again; default console.warn.
   */
  readonly onWarning?: (warning: ElicitWarning) => void;
  /**
   * Who is asking; see `PrincipalOption`. Default `'token'`: `["<iss>","<sub>"]` from the verified MCP
   * access token, `local` without one on stdio and loopback only. Serving beyond loopback with
   * no way to tell callers apart is refused at start-up (PrincipalConfigError).
   */
  readonly principal?: PrincipalOption;
  /** The connect pages, for ask.connect and ask.secret (URL mode). */
  readonly connect?: ConnectSettings;
  /**
   * Forms the client cannot show (it declared no form elicitation) wait on the connect pages'
   * inbox instead of failing: a page bound to the caller, rendered with `<elicit-form>`. Needs
   * `connect`. On 2025 sessions the call is held open until the answer; on 2026-07-28 it ends
   * with the link and the answer is taken when the tool is called again (docs/server.md).
   * Without it, such an ask fails as before (ELICIT_CLIENT_UNSUPPORTED).
   */
  readonly inbox?: InboxSettings;
  /** Called with each refused requestState and its reason (for logs; the client only sees -32602). */
  readonly onStateRejected?: (error: StateError) => void;
  /** Tasks: tools registered with `task`. */
  readonly tasks?: TaskOptions;
}

/** Something the deployer should know or fix, said once (at start-up, or when work starts failing). */
export interface ElicitWarning {
  readonly code: string;
  readonly message: string;
}

function warnToConsole(warning: ElicitWarning): void {
  console.warn(`elicit: ${warning.message} (${warning.code})`);
}

export interface ResourceConfig {
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

interface Registered {
  readonly kind: 'tool' | 'prompt' | 'resource';
  readonly name: string;
  readonly config: ToolConfig<StandardSchemaWithJSON | undefined> &
    PromptConfig<StandardSchemaWithJSON | undefined>;
  readonly handler: (args: unknown, ask: Ask, ctx: ServerContext) => unknown;
  readonly task?: TaskSupport | undefined;
  /** What the SDK's register call takes, made once here: build() runs for every request. */
  readonly sdk: Record<string, unknown>;
  /** Whether the registration takes arguments (without, the SDK passes ctx alone). */
  readonly hasArgs: boolean;
  /** A tool's handler as every server built registers it (see BuiltServer). */
  shared?: () => never;
}

/** What a 2026-07-28 server supports: the SDK's revisions, then the modern one it serves. */
const MODERN_VERSIONS = [
  ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== MODERN_REVISION),
  MODERN_REVISION,
];

type ServerOptions = ConstructorParameters<typeof McpServer>[1];

/** What a built server's calls run with: one object for every 2025 server of an app. */
interface RunWith {
  readonly app: ElicitServer;
  readonly era: Era;
  readonly gates: WeakMap<object, Gate> | undefined;
}

/**
 * The McpServer `build` makes, with what its calls run with. Its tools are registered with one
 * handler per registration, shared by every server built (`TOOL_ENTRIES`), which the server
 * runs itself (seam executeToolHandler), so a server built per session or per request keeps
 * no closures per tool.
 */
class BuiltServer extends WireMcpServer {
  readonly runWith: RunWith;
  /** The app's table of tools this server serves, until it registers one of its own. */
  sharedTools: object | undefined;
  constructor(runWith: RunWith) {
    super(runWith.app.serverInfo, runWith.app.serverOptions[runWith.era]);
    this.runWith = runWith;
  }
}

// A tool registered on a built server is its own: it first gets a copy of the app's table, so
// no other server sees the tool (nor refuses its name as taken).
const sdkRegisterTool = McpServer.prototype.registerTool;
BuiltServer.prototype.registerTool = function (this: BuiltServer, ...args: unknown[]) {
  const shared = this.sharedTools;
  if (shared !== undefined && registeredToolsOf(this) === shared) {
    this.sharedTools = undefined;
    serveRegisteredTools(this, { ...shared });
  }
  return (sdkRegisterTool as (...a: unknown[]) => unknown).apply(this, args);
} as McpServer['registerTool'];

// A tool's shared handler → its registration. The handler itself is never called by the SDK
// (BuiltServer runs the registration instead); one that is means the seam no longer holds.
const TOOL_ENTRIES = new WeakMap<object, Registered>();

function toolHandlerOf(entry: Registered): () => never {
  const handler = () => {
    throw new InternalError(`tool ${entry.name} was called past elicit's runner`);
  };
  TOOL_ENTRIES.set(handler, entry);
  return handler;
}

// Seam executeToolHandler (kernel/sdk-seams.ts).
replaceExecuteToolHandler(
  BuiltServer.prototype,
  McpServer.prototype,
  (self, tool, args, ctx, sdk) => {
    const entry = TOOL_ENTRIES.get(tool.handler as object);
    if (entry === undefined || !(self instanceof BuiltServer)) return sdk(self, tool, args, ctx);
    const { app, era, gates } = self.runWith;
    return invoke(app, entry, era, self, gates, entry.hasArgs ? args : {}, ctx);
  },
);

// The SDK's elicitInput validates answers with Ajv, compiling per schema object and keeping
// each for the life of the server; elicit validates itself, so the SDK's check is a pass.
const PASS_VALIDATOR = {
  getValidator: () => (input: unknown) => ({
    valid: true as const,
    data: input as never,
    errorMessage: undefined,
  }),
};

/** Drops undefined values: the SDK treats a present-but-undefined key differently from an absent one. */
function defined<T extends Record<string, unknown>>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export class ElicitServer {
  readonly options: ElicitServerOptions;
  /** @internal The inbox for forms the client cannot show, when configured. */
  readonly inbox: ResolvedInbox | undefined;
  readonly limits: AskLimits;
  readonly sealer: Sealer;
  readonly once: OnceStore;
  /** Asks waiting for a person now, with the caps of `limits`. */
  readonly pending: PendingAsks;
  /** @internal failures of work outside any request, told once through `onWarning`. */
  readonly faults: Faults;
  /** @internal how long a one-time marker lives. */
  readonly onceTtlMs: number;
  /** @internal what every replayed run (a 2026-07-28 call, a task's run) shares. */
  readonly replay: ReplayHost;
  /** @internal tasks: their store, limits and the handlers running in this process. */
  readonly tasks: TaskHost;
  /** The task store is this process's memory: said once, at the first build with a task tool. */
  private tasksInMemory: boolean;
  private readonly entries: Registered[] = [];
  /** @internal What every server built is given: one object for all of them. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  // What every 2025 server built runs its calls with.
  private legacyRun: RunWith | undefined;
  // The registered tools every server built for an era serves, made at its first build (and
  // again after a tool is registered).
  private toolTables: Partial<Record<Era, object>> = {};
  /** @internal the same, for the server's options, by era. */
  readonly serverOptions: Readonly<Record<Era, ServerOptions>>;
  private readonly principalOption: PrincipalOption;
  /** Served beyond loopback (set by `exposed()`): requests without a principal are refused. */
  private reachable = false;

  constructor(options: ElicitServerOptions) {
    this.options = options;
    this.serverInfo = Object.freeze({ name: options.name, version: options.version });
    const serverOptions = {
      instructions: options.instructions,
      jsonSchemaValidator: PASS_VALIDATOR,
    };
    this.serverOptions = Object.freeze({
      legacy: Object.freeze({ ...serverOptions }) as ServerOptions,
      // A 2026-07-28 server lists the revision as createMcpHandler would add it per request,
      // so connecting it to a classified transport binds it (server/lean-call.ts).
      modern: Object.freeze({
        ...serverOptions,
        supportedProtocolVersions: MODERN_VERSIONS,
      }) as ServerOptions,
    });
    this.limits = { ...DEFAULT_ASK_LIMITS, ...options.limits };
    checkLimits('limits', { progressEveryMs: this.limits.progressEveryMs });
    this.sealer = createSealer({
      keyring: options.keyring ?? { keys: [{ id: 'local', secret: generateKeySecret() }] },
      ttlMs: options.stateTtlMs ?? 600_000,
      rememberChars: options.stateMemoryChars,
      audience: options.audience ?? options.name,
    });
    this.pending = new PendingAsks(this.limits);
    this.inbox = resolveInbox(
      options.inbox,
      options.connect?.app.inbox,
      options.name,
      this.limits.timeoutMs,
    );
    this.faults = new Faults(options.onWarning ?? warnToConsole);
    const store = options.store ?? options.connect?.app.store;
    this.once = onceStoreFrom(store ?? memoryStore({ maxEntries: MEMORY_ONCE_ENTRIES }));
    // Any state of a conversation lacking a step's result can be presented until the last
    // round's state expires: the marker lives that long (see docs/security.md).
    this.onceTtlMs = (options.stateTtlMs ?? 600_000) * (this.limits.maxRounds + 1);
    if (options.keyring !== undefined && this.once.scope === 'process') {
      (options.onWarning ?? warnToConsole)({
        code: ELICIT_ONCE_PROCESS_LOCAL,
        message:
          'a shared keyring is configured but ask.once markers are kept in this process only, so each replica would run a one-time step again for the same request. Pass a shared store: createServer({ store: redisStore(…) or sqliteStore(…) }), or the connect app’s store.',
      });
    }
    this.principalOption = options.principal ?? 'token';
    const taskStore = options.tasks?.store ?? store;
    this.tasksInMemory = taskStore === undefined;
    const entries = this.entries;
    this.replay = {
      once: this.once,
      onceTtlMs: this.onceTtlMs,
      limits: this.limits,
      connect: options.connect,
      waits: this.pending,
      faults: this.faults,
      inbox: this.inbox,
    };
    this.tasks = {
      store: taskStore ?? memoryStore(),
      limits: taskLimits(options.tasks?.limits),
      replay: this.replay,
      faults: this.faults,
      owner: Buffer.from(randomBytes(12)).toString('base64url'),
      running: new Map(),
      entry: (name) => entries.find((e) => e.kind === 'tool' && e.name === name && e.task),
    };
  }

  /**
   * Declares that this server is about to be reachable beyond loopback (`where` says how;
   * `hasAuth`: access tokens are verified). Throws PrincipalConfigError for a configuration
   * that cannot tell callers apart. httpEntry and listen call it; call it yourself when you
   * serve `build()` on your own transport beyond loopback.
   */
  exposed(where: string, hasAuth: boolean): void {
    checkExposure(this.principalOption, hasAuth, where);
    this.reachable = true;
  }

  /**
   * The principal of an HTTP request before any MCP message in it is read (the session table
   * keys quotas by it); undefined when there is none, or your resolver needs more than
   * `ctx.http`.
   */
  httpPrincipal(authInfo: AuthInfo | undefined): string | undefined {
    const ctx = { http: authInfo === undefined ? undefined : { authInfo } } as ServerContext;
    try {
      return resolvePrincipal(this.principalOption, ctx, this.reachable);
    } catch {
      return undefined;
    }
  }

  /** @internal the principal of a call, or -32600 when there is none. */
  principalOf(ctx: ServerContext): string {
    let principal: string | undefined;
    try {
      principal = resolvePrincipal(this.principalOption, ctx, this.reachable);
    } catch (error) {
      if (!(error instanceof TokenIssuerError)) throw error;
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message, {
        reason: 'token_without_issuer',
        code: error.code,
      });
    }
    if (principal === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, NO_PRINCIPAL_MESSAGE, {
        reason: 'no_principal',
      });
    return principal;
  }

  /** @internal a call that becomes a task: the record made, its handler started. */
  becomeTask(start: TaskStart, ctx: ServerContext): Promise<unknown> {
    return startTask(this, start, ctx);
  }

  /** Registers a tool. Its handler runs on both eras; see docs/server.md. */
  tool<S extends StandardSchemaWithJSON | undefined = undefined>(
    name: string,
    config: ToolConfig<S>,
    handler: ToolHandler<ArgsOf<S>>,
  ): this {
    const { title, description, inputSchema, annotations } = config;
    const entry: Registered = {
      kind: 'tool',
      name,
      config: config as Registered['config'],
      handler: handler as Registered['handler'],
      sdk: defined({ title, description, inputSchema, annotations }),
      hasArgs: inputSchema !== undefined,
      task:
        config.task === undefined
          ? undefined
          : { support: config.task, start: config.taskStart ?? 'call' },
    };
    entry.shared = toolHandlerOf(entry);
    this.entries.push(entry);
    this.toolTables = {};
    return this;
  }

  /** Registers a prompt whose handler may ask too. */
  prompt<S extends StandardSchemaWithJSON | undefined = undefined>(
    name: string,
    config: PromptConfig<S>,
    handler: PromptHandler<ArgsOf<S>>,
  ): this {
    const { title, description, argsSchema } = config;
    this.entries.push({
      kind: 'prompt',
      name,
      config: config as Registered['config'],
      handler: handler as Registered['handler'],
      sdk: defined({ title, description, argsSchema }),
      hasArgs: argsSchema !== undefined,
    });
    return this;
  }

  /** Registers a resource (a fixed URI) whose reader may ask too. */
  resource(name: string, uri: string, config: ResourceConfig, handler: ResourceHandler): this {
    this.entries.push({
      kind: 'resource',
      name: uri,
      config: { ...config, resourceName: name } as Registered['config'],
      handler: handler as Registered['handler'],
      sdk: { ...config },
      hasArgs: true,
    });
    return this;
  }

  /**
   * @internal What httpEntry hands the SDK for 2026-07-28 requests: servers from a pool, each
   * reused once idle (server-pool.ts), when they are this class's own, whose every handler the
   * pool can account for. A subclass's `build` (the gateway's forwarding servers, whose held
   * calls outlive their request) gets a server of its own per request.
   */
  modernServers(): () => McpServer {
    const pool = this.modernPool();
    return pool === undefined ? () => this.build('modern') : pool.take;
  }

  /**
   * @internal The pool behind `modernServers` (and httpEntry's lean tools/call path,
   * server/lean-call.ts), or undefined when a subclass builds its own servers.
   */
  modernPool(): ServerPool | undefined {
    const own =
      (Object.getPrototypeOf(this) as ElicitServer).build === ElicitServer.prototype.build;
    return own ? new ServerPool(() => this.build('modern')) : undefined;
  }

  /**
   * The tools as McpServer registers them, on a server made for that only: each with its shared
   * handler (BuiltServer runs it) and, on 2025 sessions, its task support.
   */
  private toolTable(era: Era, tools: readonly Registered[]): object {
    const holder = new McpServer(this.serverInfo, this.serverOptions[era]);
    for (const entry of tools) {
      const registered = holder.registerTool(entry.name, entry.sdk as never, entry.shared as never);
      // registerTool takes no `execution`; the registered tool carries it into tools/list.
      if (era === 'legacy' && entry.task !== undefined)
        registered.execution = { taskSupport: entry.task.support };
    }
    return registeredToolsOf(holder);
  }

  /** A fresh SDK McpServer for one era, with every registration installed. */
  build(era: Era): McpServer {
    // Only 2026-07-28 calls carry state to open; a 2025 call resolves its principal in the
    // runner, and a 2025 session's server (one per session) keeps no gates.
    const gates = era === 'modern' ? new WeakMap<object, Gate>() : undefined;
    const mcp = new BuiltServer(
      era === 'legacy' ? (this.legacyRun ??= { app: this, era, gates }) : { app: this, era, gates },
    );
    if (gates !== undefined) installGate(mcp, this, gates);
    const tools = this.entries.filter((e) => e.kind === 'tool');
    const taskTools = tools.some((e) => e.task !== undefined);
    if (taskTools) {
      if (this.tasksInMemory) {
        this.tasksInMemory = false;
        (this.options.onWarning ?? warnToConsole)({
          code: ELICIT_TASK_STORE_PROCESS_LOCAL,
          message:
            'tools run as tasks but no store is configured, so tasks live in this process only: they end with it and replicas cannot see them. Pass one: createServer({ store: sqliteStore(…) or redisStore(…) }).',
        });
      }
      if (era === 'modern') installTaskMethods(mcp, this);
      else
        installLegacyTasks(
          mcp,
          this,
          new Map(tools.map((e) => [e.name, e.task?.support ?? 'forbidden'])),
        );
    }
    if (tools.length > 0) {
      // Seam registeredTools (kernel/sdk-seams.ts): one table of tools per era, not one per server.
      const table = (this.toolTables[era] ??= this.toolTable(era, tools));
      mcp.sharedTools = table;
      serveRegisteredTools(mcp, table);
    }
    for (const entry of this.entries) {
      if (entry.kind === 'tool') continue;
      const run = (args: unknown, ctx: ServerContext) =>
        invoke(this, entry, era, mcp, gates, args, ctx);
      if (entry.kind === 'prompt') {
        mcp.registerPrompt(
          entry.name,
          entry.sdk as never,
          (entry.hasArgs ? run : (ctx: ServerContext) => run({}, ctx)) as never,
        );
      } else {
        const { resourceName } = entry.config as ResourceConfig & { resourceName: string };
        mcp.registerResource(resourceName, entry.name, entry.sdk, run as never);
      }
    }
    return mcp;
  }
}

export function createServer(options: ElicitServerOptions): ElicitServer {
  return new ElicitServer(options);
}
