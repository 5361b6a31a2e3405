/**
 * `createServer`: register tools and prompts once, with handlers that take an `ask`, and serve
 * them on both protocol eras. Each era gets its own SDK `McpServer` from `build(era)`.
 *
 * Where the SDK is in the way: a `requestState` must be rejected with a JSON-RPC -32602 when it
 * does not match the tool and arguments it is presented with, but the SDK's verify hook never
 * sees the request params and McpServer turns anything a tool throws into an `isError` result.
 * So `build()` wraps the low-level `tools/call` / `prompts/get` handlers as McpServer installs
 * them (a contained patch of our own instance's `setRequestHandler`) and opens the state there,
 * with the full request in hand.
 */

import { createHash } from 'node:crypto';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type GetPromptResult,
  inputRequired,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type ServerContext,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { ElicitError } from '../errors.ts';
import { measureJson } from '../schema/measure.ts';
import { type Ask, type AskLimits, DEFAULT_ASK_LIMITS } from './ask.ts';
import { RoundsExceededError } from './errors.ts';
import { legacyAsk } from './legacy.ts';
import { memoryOnceStore, type OnceStore } from './once-store.ts';
import { freshJournal, type Journal, modernAsk, SUSPEND } from './replay.ts';
import {
  type Binding,
  createSealer,
  generateKeySecret,
  type Keyring,
  type Sealer,
  StateError,
} from './seal.ts';
import type { ConnectSettings } from './url-mode.ts';

export type Era = 'legacy' | 'modern';

/** What a tool handler may return: text, or a full CallToolResult. */
export type ToolOutput = string | CallToolResult;

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
  /** Lifetime of a sealed requestState; default 10 minutes. */
  readonly stateTtlMs?: number;
  readonly limits?: Partial<AskLimits>;
  /** Single-use markers for ask.once; default in memory (one process). */
  readonly once?: OnceStore;
  /**
   * Who is asking. Default: `<iss>|<sub>` from the verified MCP access token (`authInfo.extra`),
   * else `client:<clientId>`, else `local` for unauthenticated local servers (stdio, loopback),
   * where every caller is the same person.
   */
  readonly principal?: (ctx: ServerContext) => string;
  /** The connect pages, for ask.connect and ask.secret (URL mode). */
  readonly connect?: ConnectSettings;
  /** Called with each refused requestState and its reason (for logs; the client only sees -32602). */
  readonly onStateRejected?: (error: StateError) => void;
}

export function defaultPrincipal(ctx: ServerContext): string {
  const auth = ctx.http?.authInfo;
  if (auth === undefined) return 'local';
  const extra = (auth.extra ?? {}) as { iss?: unknown; sub?: unknown };
  if (typeof extra.sub === 'string')
    return `${typeof extra.iss === 'string' ? extra.iss : ''}|${extra.sub}`;
  return `client:${auth.clientId}`;
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
}

/** A request's opened state, handed from the gate to the handler wrapper. */
interface Gate {
  readonly journal: Journal;
  readonly stateDigest: string | undefined;
  readonly fresh: boolean;
  readonly round: number;
  readonly binding: Binding;
}

// The SDK's elicitInput validates answers with Ajv, compiling per schema object and keeping
// each for the life of the server; elicit validates itself, so the SDK's check is a pass.
const PASS_VALIDATOR = {
  getValidator: () => (input: unknown) => ({
    valid: true as const,
    data: input as never,
    errorMessage: undefined,
  }),
};

const MAX_RESPONSES = { maxSize: 1_048_576, maxDepth: 12 };

function envelopeOf(ctx: ServerContext): Record<string, unknown> | undefined {
  return ctx.mcpReq.envelope as Record<string, unknown> | undefined;
}

/** Drops undefined values: the SDK treats a present-but-undefined key differently from an absent one. */
function defined<T extends Record<string, unknown>>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function toToolResult(out: ToolOutput): CallToolResult {
  return typeof out === 'string' ? { content: [{ type: 'text', text: out }] } : out;
}

function errorResult(error: ElicitError): CallToolResult {
  return {
    content: [{ type: 'text', text: error.message }],
    isError: true,
    _meta: { 'elicit/error': error.code },
  };
}

export class ElicitServer {
  readonly options: ElicitServerOptions;
  readonly limits: AskLimits;
  readonly sealer: Sealer;
  readonly once: OnceStore;
  private readonly entries: Registered[] = [];
  private readonly principal: (ctx: ServerContext) => string;

  constructor(options: ElicitServerOptions) {
    this.options = options;
    this.limits = { ...DEFAULT_ASK_LIMITS, ...options.limits };
    this.sealer = createSealer({
      keyring: options.keyring ?? { keys: [{ id: 'local', secret: generateKeySecret() }] },
      ttlMs: options.stateTtlMs ?? 600_000,
    });
    this.once = options.once ?? memoryOnceStore();
    this.principal = options.principal ?? defaultPrincipal;
  }

  /** Registers a tool. Its handler runs on both eras; see docs/server.md. */
  tool<S extends StandardSchemaWithJSON | undefined = undefined>(
    name: string,
    config: ToolConfig<S>,
    handler: ToolHandler<ArgsOf<S>>,
  ): this {
    this.entries.push({
      kind: 'tool',
      name,
      config: config as Registered['config'],
      handler: handler as Registered['handler'],
    });
    return this;
  }

  /** Registers a prompt whose handler may ask too. */
  prompt<S extends StandardSchemaWithJSON | undefined = undefined>(
    name: string,
    config: PromptConfig<S>,
    handler: PromptHandler<ArgsOf<S>>,
  ): this {
    this.entries.push({
      kind: 'prompt',
      name,
      config: config as Registered['config'],
      handler: handler as Registered['handler'],
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
    });
    return this;
  }

  /** A fresh SDK McpServer for one era, with every registration installed. */
  build(era: Era): McpServer {
    const mcp = new McpServer(
      { name: this.options.name, version: this.options.version },
      { instructions: this.options.instructions, jsonSchemaValidator: PASS_VALIDATOR as never },
    );
    const gates = new WeakMap<object, Gate>();
    if (era === 'modern') this.installGate(mcp, gates);
    for (const entry of this.entries) {
      const run = (args: unknown, ctx: ServerContext) =>
        this.invoke(entry, era, mcp, gates, args, ctx);
      // Without an args schema the SDK calls the callback with ctx alone.
      const callback = (hasArgs: boolean) =>
        (hasArgs
          ? (args: unknown, ctx: ServerContext) => run(args, ctx)
          : (ctx: ServerContext) => run({}, ctx)) as never;
      const { title, description } = entry.config;
      if (entry.kind === 'tool') {
        const { inputSchema, annotations } = entry.config;
        const cfg = defined({ title, description, inputSchema, annotations });
        mcp.registerTool(entry.name, cfg as never, callback(inputSchema !== undefined));
      } else if (entry.kind === 'prompt') {
        const { argsSchema } = entry.config;
        mcp.registerPrompt(
          entry.name,
          defined({ title, description, argsSchema }) as never,
          callback(argsSchema !== undefined),
        );
      } else {
        const { resourceName, ...meta } = entry.config as ResourceConfig & { resourceName: string };
        mcp.registerResource(resourceName, entry.name, meta, ((uri: URL, ctx: ServerContext) =>
          run(uri, ctx)) as never);
      }
    }
    return mcp;
  }

  private installGate(mcp: McpServer, gates: WeakMap<object, Gate>): void {
    const low = mcp.server;
    const original = low.setRequestHandler.bind(low) as unknown as (
      method: string,
      handler: (req: never, ctx: ServerContext) => unknown,
    ) => void;
    (low as unknown as { setRequestHandler: typeof original }).setRequestHandler = (
      method,
      handler,
    ) => {
      if (method !== 'tools/call' && method !== 'prompts/get' && method !== 'resources/read')
        return original(method, handler);
      return original(method, async (request: never, ctx: ServerContext) => {
        gates.set(ctx.mcpReq, this.openGate(request, ctx));
        return handler(request, ctx);
      });
    };
  }

  private openGate(
    request: { method: string; params: { name?: string; uri?: string; arguments?: unknown } },
    ctx: ServerContext,
  ): Gate {
    const binding: Binding = {
      principal: this.principal(ctx),
      method: request.method,
      name: request.params.name ?? request.params.uri ?? '',
      args: request.params.arguments ?? {},
    };
    const responses = ctx.mcpReq.inputResponses;
    if (responses !== undefined) {
      const measured = measureJson(responses, MAX_RESPONSES);
      const keys =
        responses !== null && typeof responses === 'object' ? Object.keys(responses).length : 0;
      if (measured !== undefined || keys > this.limits.maxKeysPerRound * 4) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'inputResponses is too large or too deeply nested',
          { reason: 'input_responses_limit' },
        );
      }
    }
    const raw = ctx.mcpReq.requestState();
    if (raw === undefined || raw === null)
      return { journal: freshJournal(), fresh: true, round: 0, binding, stateDigest: undefined };
    try {
      const opened = this.sealer.open<Journal>(raw, binding);
      return {
        journal: opened.payload,
        fresh: false,
        round: opened.round,
        binding,
        stateDigest: createHash('sha256')
          .update(raw as string)
          .digest('base64url'),
      };
    } catch (error) {
      if (error instanceof StateError) {
        this.options.onStateRejected?.(error);
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'Invalid or expired requestState',
          { reason: 'invalid_request_state' },
        );
      }
      throw error;
    }
  }

  private async invoke(
    entry: Registered,
    era: Era,
    mcp: McpServer,
    gates: WeakMap<object, Gate>,
    args: unknown,
    ctx: ServerContext,
  ): Promise<unknown> {
    if (era === 'legacy') {
      try {
        const out = await entry.handler(
          args,
          legacyAsk(ctx, mcp, this.limits, {
            principal: this.principal(ctx),
            connect: this.options.connect,
          }),
          ctx,
        );
        return entry.kind === 'tool' ? toToolResult(out as ToolOutput) : out;
      } catch (error) {
        if (entry.kind === 'tool' && error instanceof ElicitError) return errorResult(error);
        throw error;
      }
    }
    const gate = gates.get(ctx.mcpReq);
    if (gate === undefined)
      throw new Error('elicit: request reached a handler without passing the state gate');
    const env = envelopeOf(ctx);
    const run = {
      journal: gate.journal,
      fresh: gate.fresh,
      responses: (ctx.mcpReq.inputResponses ?? undefined) as Record<string, unknown> | undefined,
      caps: env?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined,
      pending: new Map(),
      once: this.once,
      onceScope: gate.stateDigest,
      onceTtlMs: (this.options.stateTtlMs ?? 600_000) * 2,
      limits: this.limits,
      revision: (env?.[PROTOCOL_VERSION_META_KEY] as string | undefined) ?? '2026-07-28',
      principal: gate.binding.principal,
      clientId: ctx.http?.authInfo?.clientId,
      connect: this.options.connect,
      signal: ctx.mcpReq.signal,
    };
    let out: unknown;
    try {
      out = await entry.handler(args, modernAsk(run), ctx);
    } catch (error) {
      if (error !== SUSPEND) {
        if (entry.kind === 'tool' && error instanceof ElicitError) return errorResult(error);
        if (error instanceof ElicitError)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, {
            code: error.code,
          });
        throw error;
      }
    }
    // Pending asks win even if the handler caught the suspension and returned something.
    if (run.pending.size > 0) {
      const round = gate.round + 1;
      if (round > this.limits.maxRounds) {
        const error = new RoundsExceededError(this.limits.maxRounds);
        if (entry.kind === 'tool') return errorResult(error);
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
      }
      run.journal.p = [...run.pending.keys()];
      const requestState = this.sealer.seal(run.journal, gate.binding, round);
      return inputRequired({ inputRequests: Object.fromEntries(run.pending), requestState });
    }
    return entry.kind === 'tool' ? toToolResult(out as ToolOutput) : out;
  }
}

export function createServer(options: ElicitServerOptions): ElicitServer {
  return new ElicitServer(options);
}
