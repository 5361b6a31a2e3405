/**
 * The state gate: before a 2026-07-28 call reaches its handler, the request's principal is
 * resolved, its `inputResponses` are bounded and its `requestState` opened, bound to principal,
 * method, name and arguments. It runs at the low-level handler (see call-handlers.ts), the only
 * place where both the request params and a JSON-RPC error path are available. A 2025 call has
 * no state to open and takes no gate (runner.ts resolves its principal).
 */
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { measureJson } from '../schema/internal.ts';
import type { AskLimits } from './ask.ts';
import { wrapCallHandlers } from './call-handlers.ts';
import { freshJournal, type Journal, unpackJournal } from './engines/replay.ts';
import { type Binding, RequestBinding, type Sealer, StateError } from './seal.ts';
import { callStarted } from './server-pool.ts';

// The era of a built McpServer: the protocol's (kernel/revision.ts), not a second meaning.
export type { Era } from '../kernel/revision.ts';

/** A request's opened state, handed from the gate to the handler wrapper. */
export interface Gate {
  readonly journal: Journal;
  readonly fresh: boolean;
  readonly round: number;
  readonly binding: Binding;
}

/** What the gate needs from the server. */
export interface GateServer {
  readonly limits: AskLimits;
  readonly sealer: Sealer;
  readonly options: { readonly onStateRejected?: (error: StateError) => void };
  principalOf(ctx: ServerContext): string;
}

const MAX_RESPONSES = { maxSize: 1_048_576, maxDepth: 12 };

/**
 * -32602 for `inputResponses` beyond their bounds (1 MiB, 12 levels, four times the keys one
 * round may ask), wherever they come in: a call's round or a task's `tasks/update`.
 */
export function boundInputResponses(responses: unknown, limits: AskLimits): void {
  const keys =
    responses !== null && typeof responses === 'object' ? Object.keys(responses).length : 0;
  if (measureJson(responses, MAX_RESPONSES) !== undefined || keys > limits.maxKeysPerRound * 4)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'inputResponses is too large or too deeply nested',
      { reason: 'input_responses_limit' },
    );
}

/**
 * Opens the gate of every call handler of `mcp`; the runner finds it in `gates` by request. On a
 * pooled server the handler counts as running until it settles (server-pool.ts).
 */
export function installGate(
  mcp: McpServer,
  server: GateServer,
  gates: WeakMap<object, Gate>,
): void {
  wrapCallHandlers(mcp, (handler) => (request, ctx) => {
    gates.set(ctx.mcpReq, openGate(server, request, ctx));
    const ended = callStarted(mcp);
    if (ended === undefined) return handler(request, ctx);
    try {
      return Promise.resolve(handler(request, ctx)).finally(ended);
    } catch (error) {
      ended();
      throw error;
    }
  });
}

export function openGate(
  server: GateServer,
  request: { method: string; params: { name?: string; uri?: string; arguments?: unknown } },
  ctx: ServerContext,
): Gate {
  const binding = new RequestBinding(
    server.principalOf(ctx),
    request.method,
    request.params.name ?? request.params.uri ?? '',
    request.params.arguments ?? {},
  );
  const responses = ctx.mcpReq.inputResponses;
  if (responses !== undefined) boundInputResponses(responses, server.limits);
  const raw = ctx.mcpReq.requestState();
  if (raw === undefined || raw === null)
    return { journal: freshJournal(), fresh: true, round: 0, binding };
  try {
    const opened = server.sealer.open(raw, binding);
    const journal = unpackJournal(opened.payload);
    if (journal === undefined) throw new StateError('payload');
    return { journal, fresh: false, round: opened.round, binding };
  } catch (error) {
    if (error instanceof StateError) {
      server.options.onStateRejected?.(error);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
        reason: 'invalid_request_state',
      });
    }
    throw error;
  }
}
