/**
 * One place decides how what a handler threw reaches the client, for every kind (tool, prompt,
 * resource) and era. A tool's own failures are its answer (an `isError` result the model can
 * read); what is the protocol's business is a JSON-RPC error:
 * - a refusal for load (`TooManyPendingAsksError`) is -32000 on every era and kind;
 * - a `ProtocolError` a handler throws (the SDK's own errors) passes through as it is;
 * - a missing client capability on 2026-07-28 is -32021 with `data.requiredCapabilities`
 *   (HTTP 400, which the SDK's transport sets for that code); 2025 revisions have no such
 *   code, so a tool answers `isError` there;
 * - any other elicit error from a prompt or resource is -32602 with `data.code`.
 * McpServer turns everything a tool throws (but -32042) into an `isError` result, so the error
 * is also recorded for the request and thrown again at the low-level handler (`installWireErrors`).
 */
import {
  type ClientCapabilities,
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { ElicitError } from '../errors.ts';
import { wrapCallHandlers } from './call-handlers.ts';
import { ElicitationUnsupportedError, TooManyPendingAsksError } from './errors.ts';
import { refusalOnWire } from './pending.ts';

export type Kind = 'tool' | 'prompt' | 'resource';

const REQUIRED: Readonly<Record<string, ClientCapabilities>> = {
  'form elicitation': { elicitation: { form: {} } },
  'URL elicitation': { elicitation: { url: {} } },
  sampling: { sampling: {} },
  roots: { roots: {} },
};

/** The JSON-RPC error `error` becomes, or undefined when it is the tool's answer (or a bug). */
export function wireError(
  error: unknown,
  kind: Kind,
  era: 'legacy' | 'modern',
): ProtocolError | undefined {
  if (error instanceof TooManyPendingAsksError) return refusalOnWire(error);
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

/**
 * Throws, at the low-level handler, the wire error recorded for the request. A promise chain
 * rather than an async function: a call waiting on a person keeps no suspended frame here.
 */
export function installWireErrors(mcp: McpServer, recorded: WeakMap<object, ProtocolError>): void {
  wrapCallHandlers(mcp, (handler) => (request, ctx) => {
    const key = ctx.mcpReq;
    let running: unknown;
    try {
      running = handler(request, ctx);
    } catch (error) {
      return Promise.reject(recorded.get(key) ?? error);
    }
    return Promise.resolve(running).then(
      (out) => {
        const wire = recorded.get(key);
        if (wire !== undefined) throw wire;
        return out;
      },
      (error: unknown) => {
        throw recorded.get(key) ?? error;
      },
    );
  });
}
