/**
 * Sampling and roots in the host. A server's `sampling/createMessage` is shown to the person
 * (the conversation, the system prompt, the model preferences and the token limit, all inert
 * and bounded), who writes the reply or declines; scripted runs decline unless told otherwise.
 * Roots are the directories given with `--root`, answered to `roots/list`.
 */
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/client';
import { inert } from '../../client/inert.ts';

/** What the host needs to ask the person for a reply; undefined declines. */
export type SampleReply = (
  request: SamplingView,
  signal: AbortSignal,
) => Promise<string | undefined>;

/** A sampling request as the person sees it: every string already inert and bounded. */
export interface SamplingView {
  readonly lines: readonly string[];
}

// The spec's code for a person refusing a sampling request.
const USER_REJECTED = -1;
const MESSAGES_SHOWN = 20;

/** The request as lines for the person: who said what, the system prompt, the model wishes. */
export function describeSampling(params: Record<string, unknown>): SamplingView {
  const lines: string[] = [];
  const messages = Array.isArray(params.messages) ? params.messages : [];
  if (typeof params.systemPrompt === 'string')
    lines.push(`system: ${inert(params.systemPrompt, 1000)}`);
  for (const m of messages.slice(-MESSAGES_SHOWN) as { role?: unknown; content?: unknown }[]) {
    const parts = Array.isArray(m.content) ? m.content : [m.content];
    const text = parts
      .map((c) => {
        const part = c as { type?: unknown; text?: unknown } | undefined;
        return part?.type === 'text' && typeof part.text === 'string'
          ? inert(part.text, 2000)
          : `[${inert(String(part?.type ?? 'content'), 20, false)}]`;
      })
      .join(' ');
    lines.push(`${inert(String(m.role ?? '?'), 20, false)}: ${text}`);
  }
  if (messages.length > MESSAGES_SHOWN)
    lines.unshift(`(${messages.length - MESSAGES_SHOWN} earlier messages not shown)`);
  const prefs = params.modelPreferences as
    | {
        hints?: { name?: unknown }[];
        costPriority?: unknown;
        speedPriority?: unknown;
        intelligencePriority?: unknown;
      }
    | undefined;
  if (prefs !== undefined) {
    const hints = (prefs.hints ?? [])
      .map((h) => (typeof h?.name === 'string' ? inert(h.name, 60, false) : ''))
      .filter((h) => h !== '');
    const priorities = (['cost', 'speed', 'intelligence'] as const)
      .map((k) => [k, prefs[`${k}Priority`]] as const)
      .filter(([, v]) => typeof v === 'number')
      .map(([k, v]) => `${k} ${v}`);
    lines.push(
      `model wishes: ${[hints.length > 0 ? `models like ${hints.join(', ')}` : '', ...priorities].filter((x) => x !== '').join('; ') || 'none'}`,
    );
  }
  if (typeof params.maxTokens === 'number') lines.push(`at most ${params.maxTokens} tokens`);
  return { lines };
}

export interface SamplingOptions {
  /** Asks the person; undefined: every sampling request is declined. */
  readonly reply?: SampleReply;
  /** Directories the server may work in (`--root`). */
  readonly roots?: readonly string[];
}

/** Declares sampling and roots on `client` and answers them. Before connect. */
export function installSampling(client: Client, options: SamplingOptions): void {
  const roots = (options.roots ?? []).map((dir) => {
    const path = resolve(dir);
    return { uri: pathToFileURL(path).href, name: basename(path) || path };
  });
  client.registerCapabilities({
    sampling: {},
    ...(roots.length > 0 ? { roots: { listChanged: false } } : {}),
  });
  client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
    // The SDK hands over the request (or, in some versions, its params).
    const r = request as { params?: Record<string, unknown> } & Record<string, unknown>;
    const params = r.params ?? r;
    const text =
      options.reply === undefined
        ? undefined
        : await options.reply(describeSampling(params), ctx.mcpReq.signal);
    if (text === undefined)
      throw new ProtocolError(USER_REJECTED, 'The person declined the sampling request.');
    return {
      role: 'assistant',
      content: { type: 'text', text },
      model: 'a person at elicit connect',
      stopReason: 'endTurn',
    } as never;
  });
  if (roots.length > 0) client.setRequestHandler('roots/list', async () => ({ roots }) as never);
}
