/**
 * What the client declared, read in one place: the capabilities of a 2025 session (from the SDK
 * session) or of a 2026-07-28 request (in its `_meta`), what they allow on a revision, and the
 * tasks extension.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  MissingRequiredClientCapabilityError,
  PROTOCOL_VERSION_META_KEY,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isAtLeast, MODERN_REVISION } from '../kernel/revision.ts';
import { TASKS_EXTENSION } from '../kernel/tasks.ts';

export { TASKS_EXTENSION };

const envelopeOf = (ctx: ServerContext) =>
  ctx.mcpReq.envelope as Record<string, unknown> | undefined;

/** The client capabilities of a 2026-07-28 request (they ride in every request's `_meta`). */
export function requestCaps(ctx: ServerContext): ClientCapabilities | undefined {
  return envelopeOf(ctx)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}

/** The protocol revision a 2026-07-28 request names in its `_meta`. */
export function requestRevision(ctx: ServerContext): string {
  return (envelopeOf(ctx)?.[PROTOCOL_VERSION_META_KEY] as string | undefined) ?? MODERN_REVISION;
}

/**
 * Whether the client can be asked `what` on this revision: it declared the capability, and the
 * revision has it (URL-mode elicitation arrived in 2025-11-25, so a 2025-06-18 peer never gets it
 * even if it declares more than its revision knows).
 */
export function declares(
  caps: ClientCapabilities | undefined,
  what: 'form' | 'url' | 'sampling' | 'roots',
  revision: string,
): boolean {
  if (caps === undefined) return false;
  if (what === 'url' && !isAtLeast(revision, '2025-11-25')) return false;
  if (what === 'sampling') return caps.sampling !== undefined;
  if (what === 'roots') return caps.roots !== undefined;
  const e = caps.elicitation as Record<string, unknown> | undefined;
  if (e === undefined || e === null) return false;
  if (what === 'form') return e.form !== undefined || Object.keys(e).length === 0;
  return e.url !== undefined;
}

/** Whether the client declared the tasks extension. */
export function declaresTasks(caps: ClientCapabilities | undefined): boolean {
  const ext = (caps as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return (
    ext !== undefined &&
    ext !== null &&
    typeof ext === 'object' &&
    Object.hasOwn(ext, TASKS_EXTENSION)
  );
}

/** -32021 naming the extension, for task methods or a `required` tool without it. */
export const tasksRequired = (what: string) =>
  new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } as ClientCapabilities },
    `${what} needs the ${TASKS_EXTENSION} extension; declare it in the request's client capabilities.`,
  );
