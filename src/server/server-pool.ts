/**
 * The SDK McpServers that serve 2026-07-28 requests, built once and reused: `createMcpHandler`
 * asks its factory for a server on every request, and building one (every registration
 * installed) costs about what the SDK's own handler does. A pooled server is handed out only
 * when it is idle:
 * - its exchange has closed (the SDK refuses an instance still serving, and clears a closed
 *   one's request handlers, response handlers and timers);
 * - no call handler that ran on it is still running (a handler whose client hung up keeps
 *   running until it sees its signal; what it would still send must not reach the next
 *   request, which may reuse the same JSON-RPC id);
 * - no background work holds it: a call that became a task, or a task taken over by `tasks/get`,
 *   runs on with that request's context, so its server is never reused (a task resumed by
 *   `tasks/update` counts as a call handler running on it instead, its context's ways out
 *   closing with the exchange: most such runs end before their ack);
 * and what the SDK seeded from the last request's envelope (client capabilities and info) is
 * forgotten before it goes back. A call's handler gets a context whose ways out through the
 * server (notify, log, send, elicitInput, requestSampling) work only while its own exchange is
 * the server's: work a handler leaves behind (a timer, say) fails afterwards as it would on a
 * closed server, instead of reaching whichever request the server serves next. The principal, auth info and request state of a request live
 * in that request's context, never on the server. A request that finds every pooled server busy
 * gets one built for it alone.
 */
import {
  type McpServer,
  SdkError,
  SdkErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { forgetClientIdentity } from '../kernel/sdk-seams.ts';
import { LimitOptionError } from './errors.ts';

/** Servers a pool keeps for reuse by default. */
export const DEFAULT_POOLED_SERVERS = 8;

/** One pooled server and what keeps it from being handed out. */
class Lease {
  readonly mcp: McpServer;
  /** Handed out and not yet back. */
  out = false;
  /** Its exchange has not closed yet. */
  serving = false;
  /** Call handlers running on it. */
  running = 0;
  /** Background work holds its requests' contexts: it is dropped, never reused. */
  held = false;
  /** Counts the times it was handed out: a call's context belongs to one of them. */
  turn = 0;
  readonly #settle: (lease: Lease) => void;
  constructor(mcp: McpServer, settle: (lease: Lease) => void) {
    this.mcp = mcp;
    this.#settle = settle;
  }
  /** The exchange closed (the SDK's close chain, or a close before any exchange began). */
  readonly closed = (): void => {
    if (!this.out) return;
    this.serving = false;
    this.#settle(this);
  };
  /** A call handler that ran on it has settled. */
  readonly ended = (): void => {
    this.running -= 1;
    this.#settle(this);
  };
}

const leases = new WeakMap<McpServer, Lease>();

/** Builds servers on demand and reuses the idle ones, at most `max` kept. */
export class ServerPool {
  readonly #build: () => McpServer;
  readonly #max: number;
  readonly #idle: Lease[] = [];
  #kept = 0;
  #built = 0;

  constructor(build: () => McpServer, max = DEFAULT_POOLED_SERVERS) {
    if (!Number.isSafeInteger(max) || max < 1) throw new LimitOptionError('pooledServers', max);
    this.#build = build;
    this.#max = max;
  }

  /** Servers built so far (reused ones count once). */
  get built(): number {
    return this.#built;
  }

  /** Servers idle in the pool now. */
  get idle(): number {
    return this.#idle.length;
  }

  /** The factory for `createMcpHandler`: an idle server, else a new one. */
  readonly take = (): McpServer => {
    const lease = this.#idle.pop() ?? this.#fresh();
    if (lease === undefined) {
      this.#built += 1;
      return this.#build();
    }
    lease.out = true;
    lease.serving = true;
    lease.turn += 1;
    return lease.mcp;
  };

  #fresh(): Lease | undefined {
    if (this.#kept >= this.#max) return undefined;
    const mcp = this.#build();
    this.#built += 1;
    this.#kept += 1;
    const lease = new Lease(mcp, (l) => this.#settle(l));
    leases.set(mcp, lease);
    // The SDK's handler chains its own close hook in front of this one and restores it after.
    mcp.server.onclose = lease.closed;
    // A request refused before its exchange began (a scope challenge, say) closes a server that
    // never connected: no close chain runs, so the close itself gives it back.
    const close = mcp.close.bind(mcp);
    mcp.close = async () => {
      const connected = mcp.server.transport !== undefined;
      await close();
      if (!connected) lease.closed();
    };
    return lease;
  }

  #settle(lease: Lease): void {
    if (!lease.out || lease.serving || lease.running > 0) return;
    lease.out = false;
    if (lease.held) {
      leases.delete(lease.mcp);
      this.#kept -= 1;
      return;
    }
    forgetClientIdentity(lease.mcp.server);
    this.#idle.push(lease);
  }
}

/**
 * A call handler starts on `mcp`: the function to call once it has settled, or undefined when
 * `mcp` is not pooled.
 */
export function callStarted(mcp: McpServer): (() => void) | undefined {
  const lease = leases.get(mcp);
  if (lease === undefined) return undefined;
  lease.running += 1;
  return lease.ended;
}

/** Work outlives the request on `mcp` (a task's run): that server is not reused. */
export function heldByBackground(mcp: McpServer): void {
  const lease = leases.get(mcp);
  if (lease !== undefined) lease.held = true;
}

type Sender = (...args: never[]) => Promise<unknown>;
const SENDERS = ['notify', 'log', 'send', 'elicitInput', 'requestSampling'] as const;

/**
 * The context a call on `mcp` hands its handler: on a pooled server, each way out through the
 * server is live only while this call's exchange is the server's, and rejects afterwards with
 * the SDK's own "Not connected" (what a server built for the request alone answers once closed).
 */
export function callContext(mcp: McpServer, ctx: ServerContext): ServerContext {
  const lease = leases.get(mcp);
  if (lease === undefined) return ctx;
  const turn = lease.turn;
  const req = ctx.mcpReq as unknown as Record<string, unknown>;
  const mcpReq: Record<string, unknown> = { ...req };
  for (const name of SENDERS) {
    const send = req[name] as Sender | undefined;
    if (send === undefined) continue;
    mcpReq[name] = (...args: never[]) =>
      lease.turn === turn && lease.serving
        ? send(...args)
        : Promise.reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
  }
  return { ...ctx, mcpReq } as unknown as ServerContext;
}
