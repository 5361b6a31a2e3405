/**
 * The seam elicit uses to act around the SDK's own handlers for tools/call, prompts/get and
 * resources/read (the state gate, refusals for load): McpServer installs those handlers on its
 * low-level Server as tools, prompts and resources are registered, so `setRequestHandler` of our
 * own McpServer is wrapped before registration and each call handler is wrapped as it arrives.
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';

export type CallHandler = (request: never, ctx: ServerContext) => unknown;

const CALLS = new Set(['tools/call', 'prompts/get', 'resources/read']);

export function wrapCallHandlers(
  mcp: McpServer,
  wrap: (handler: CallHandler) => CallHandler,
): void {
  const low = mcp.server;
  const original = low.setRequestHandler.bind(low) as unknown as (
    method: string,
    ...rest: unknown[]
  ) => void;
  // Extension methods are registered with a schema argument in between: passed through as is.
  (low as unknown as { setRequestHandler: typeof original }).setRequestHandler = (
    method,
    ...rest
  ) =>
    CALLS.has(method) && rest.length === 1
      ? original(method, wrap(rest[0] as CallHandler))
      : original(method, ...rest);
}
