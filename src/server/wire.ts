/**
 * One place decides how what a handler threw reaches the client, for every kind (tool, prompt,
 * resource) and era. A tool's own failures are its answer (an `isError` result the model can
 * read); what is the protocol's business is a JSON-RPC error:
 * - a refusal for load (`TooManyPendingAsksError`) is -32000 on every era and kind;
 * - a `ProtocolError` a handler throws (the SDK's own errors) passes through as it is;
 * - a missing client capability on 2026-07-28 is -32021 with `data.requiredCapabilities`
 *   (HTTP 400, which the SDK's transport sets for that code); 2025 revisions have no such
 *   code, so a tool answers `isError` there;
 * - a store failure (`StoreError` ELICIT_STORE_UNAVAILABLE or ELICIT_STORE_FULL, and
 *   `OnceStoreUnavailableError`) is -32603 with `data.code` and a fixed message, on every era
 *   and kind: it is the server's trouble, not the tool's answer, and the driver's own text
 *   (kept as the error's `cause`) never reaches the client;
 * - any other elicit error from a prompt or resource is -32602 with `data.code`.
 * McpServer turns everything a tool throws (but -32042) into an `isError` result through its
 * `createToolError`: a tool's wire error leaves the tool as an error whose message names it, and
 * elicit's McpServer (`WireMcpServer`) throws the wire error from `createToolError` instead.
 * - params of the wrong shape for any handler are -32602 (`guardParams`), never -32603.
 */

import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type ClientCapabilities,
  McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { ElicitError } from '../errors.ts';
import {
  ELICIT_ONCE_STORE_UNAVAILABLE,
  ELICIT_STORE_FULL,
  ELICIT_STORE_UNAVAILABLE,
} from '../kernel/error-codes.ts';
import { guardParams, refuseParamsNotObject } from '../kernel/params-guard.ts';
import type { Era } from '../kernel/revision.ts';
import { replaceCreateToolError } from '../kernel/sdk-seams.ts';
import { OnceStoreUnavailableError, StoreError } from '../kernel/store.ts';
import { ElicitationUnsupportedError, TooManyPendingAsksError } from './errors.ts';
import { refusalOnWire } from './pending.ts';

export type Kind = 'tool' | 'prompt' | 'resource';

const REQUIRED: Readonly<Record<string, ClientCapabilities>> = {
  'form elicitation': { elicitation: { form: {} } },
  'URL elicitation': { elicitation: { url: {} } },
  sampling: { sampling: {} },
  roots: { roots: {} },
};

/** What a client reads for a store failure, by code: fixed text, nothing of the driver's. */
export const STORE_FAILURE_MESSAGES: Readonly<Record<string, string>> = Object.freeze({
  [ELICIT_STORE_UNAVAILABLE]:
    "The server's storage is unavailable right now, so this request did not finish. Try again in a moment.",
  [ELICIT_STORE_FULL]:
    "The server's storage is full, so this request did not finish. Try again later.",
  [ELICIT_ONCE_STORE_UNAVAILABLE]:
    "A one-time step could not be recorded because the server's storage is unavailable, so it was not run. Try again in a moment.",
});

/** -32603 with `data.code` for a store failure; undefined for anything else. */
export function storeFailureOnWire(error: unknown): ProtocolError | undefined {
  if (!(error instanceof StoreError || error instanceof OnceStoreUnavailableError))
    return undefined;
  const message = STORE_FAILURE_MESSAGES[error.code];
  if (message === undefined) return undefined;
  return new ProtocolError(ProtocolErrorCode.InternalError, message, { code: error.code });
}

/** The JSON-RPC error `error` becomes, or undefined when it is the tool's answer (or a bug). */
export function wireError(error: unknown, kind: Kind, era: Era): ProtocolError | undefined {
  if (error instanceof TooManyPendingAsksError) return refusalOnWire(error);
  const store = storeFailureOnWire(error);
  if (store !== undefined) return store;
  if (error instanceof ProtocolError) return error;
  if (error instanceof ElicitationUnsupportedError && era === 'modern')
    return new MissingRequiredClientCapabilityError(
      { requiredCapabilities: REQUIRED[error.capability] ?? {} },
      error.message,
    );
  if (error instanceof ElicitError && kind !== 'tool')
    return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { code: error.code });
  return undefined;
}

/** A tool's own elicit error as its answer: an `isError` result naming the code in `_meta`. */
export function toolErrorResult(error: ElicitError): CallToolResult {
  return {
    content: [{ type: 'text', text: error.message }],
    isError: true,
    _meta: { 'elicit/error': error.code },
  };
}

// Wire errors on their way out of a tool, by the message of the error that carries them: each
// is taken back within the same call, when McpServer hands that message to createToolError.
// The cap only guards against a path that would never take one back.
const ESCAPING = new Map<string, ProtocolError>();
const MAX_ESCAPING = 10_000;
const PREFIX = `elicit wire error ${randomUUID()} #`;
let escapes = 0;

/** @internal Wire errors thrown and not yet taken back (tests: none should stay). */
export const escapingCount = (): number => ESCAPING.size;

/** What a tool throws for a JSON-RPC error: McpServer would turn the error itself into a result. */
export function escapeToWire(wire: ProtocolError): Error {
  if (ESCAPING.size >= MAX_ESCAPING) ESCAPING.delete(ESCAPING.keys().next().value as string);
  const token = `${PREFIX}${escapes++}`;
  ESCAPING.set(token, wire);
  return new Error(token);
}

/** The server side's -32602, one function for every server (kernel/params-guard.ts shares by it). */
const invalidParams = (message: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, message);

/**
 * McpServer answers whatever a tool throws with `createToolError(message)`: for an error that
 * `escapeToWire` made, this subclass throws the wire error instead, so the call ends in a
 * JSON-RPC error. `createToolError` is a private method of McpServer, so it is replaced on this
 * subclass's prototype (nothing per server or per call); the alternative, a wrapper around
 * every call handler, kept a promise and two closures alive per waiting call.
 */
export class WireMcpServer extends McpServer {
  constructor(...args: ConstructorParameters<typeof McpServer>) {
    super(...args);
    // Params of the wrong shape answer -32602 (the SDK says -32603); see kernel/params-guard.ts.
    guardParams(this.server, invalidParams);
  }

  /** As McpServer's, then params that are not an object are answered -32602 (not dropped). */
  override async connect(transport: Parameters<McpServer['connect']>[0]): Promise<void> {
    await super.connect(transport);
    refuseParamsNotObject(transport as never);
  }
}

/**
 * Connects `mcp` to a transport whose every request had its params checked before it arrives
 * (httpEntry answers params that are not an object itself): as `connect`, without a hook of
 * its own on the transport for them, which a server built per session would keep for its life.
 */
export function connectChecked(
  mcp: McpServer,
  transport: Parameters<McpServer['connect']>[0],
): Promise<void> {
  return McpServer.prototype.connect.call(mcp, transport);
}

// Seam createToolError (kernel/sdk-seams.ts).
replaceCreateToolError(WireMcpServer.prototype, McpServer.prototype, (self, message, sdk) => {
  const wire = ESCAPING.get(message);
  if (wire === undefined) return sdk(self, message);
  ESCAPING.delete(message);
  throw wire;
});
