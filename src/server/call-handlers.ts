/**
 * The seam elicit uses to act around the SDK's own handlers for tools/call, prompts/get and
 * resources/read (the state gate, refusals for load): McpServer installs those handlers on its
 * low-level Server as tools, prompts and resources are registered, so `setRequestHandler` of our
 * own McpServer is wrapped before registration and each call handler is wrapped as it arrives.
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { interceptRegistrations } from '../kernel/sdk-seams.ts';

export type CallHandler = (request: never, ctx: ServerContext) => unknown;

const CALLS = new Set(['tools/call', 'prompts/get', 'resources/read']);

export function wrapCallHandlers(
  mcp: McpServer,
  wrap: (handler: CallHandler) => CallHandler,
): void {
  // Seam setRequestHandler (kernel/sdk-seams.ts). Extension methods are registered with a
  // schema argument in between: passed through as is.
  interceptRegistrations(mcp.server, (register, method, rest) =>
    CALLS.has(method) && rest.length === 1
      ? register(method, wrap(rest[0] as CallHandler))
      : register(method, ...rest),
  );
}
