/**
 * Sampling on an SDK v2 `Client`: a server's `sampling/createMessage` is shown to a person (the
 * conversation, the system prompt, the model preferences and the token limit, every string
 * inert and bounded), who writes the reply or declines. A host with no one to ask (a scripted
 * run) declines every request. The reply goes back as the model's answer, named as a person's.
 */
import type { Client } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/client';
import { inert } from './inert.ts';

/** A sampling request as a person reads it: every string already inert and bounded. */
export interface SamplingView {
  /** `system: …`, then `role: text` per message (the latest ones), the model wishes, the token limit. */
  readonly lines: readonly string[];
}

/**
 * Asks the person for the reply to a sampling request; resolves with the text, or undefined to
 * decline. The signal aborts when the server withdraws the request or the connection ends.
 */
export type SampleReply = (view: SamplingView, signal: AbortSignal) => Promise<string | undefined>;

export interface SamplingOptions {
  /** Who writes the reply; without it, every request is declined (`-1`, the spec's refusal). */
  readonly reply?: SampleReply;
  /** The `model` named in the reply; default "a person". */
  readonly model?: string;
}

/** The spec's JSON-RPC code for a person refusing a sampling request. */
export const SAMPLING_DECLINED = -1;

// The latest messages are shown; a long conversation says how many were left out.
const MESSAGES_SHOWN = 20;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The request as lines for a person: who said what, the system prompt, the model wishes. */
export function describeSampling(params: Readonly<Record<string, unknown>>): SamplingView {
  const lines: string[] = [];
  const messages = Array.isArray(params.messages) ? params.messages : [];
  if (typeof params.systemPrompt === 'string')
    lines.push(`system: ${inert(params.systemPrompt, 1000)}`);
  if (messages.length > MESSAGES_SHOWN)
    lines.push(`(${messages.length - MESSAGES_SHOWN} earlier messages not shown)`);
  for (const m of messages.slice(-MESSAGES_SHOWN) as unknown[]) {
    const message = isObject(m) ? m : {};
    const parts = Array.isArray(message.content) ? message.content : [message.content];
    const text = parts
      .slice(0, MESSAGES_SHOWN)
      .map((c: unknown) =>
        isObject(c) && c.type === 'text' && typeof c.text === 'string'
          ? inert(c.text, 2000)
          : `[${inert(String(isObject(c) ? (c.type ?? 'content') : 'content'), 20, false)}]`,
      )
      .join(' ');
    lines.push(`${inert(String(message.role ?? '?'), 20, false)}: ${text}`);
  }
  const prefs = isObject(params.modelPreferences) ? params.modelPreferences : undefined;
  if (prefs !== undefined) {
    const hints = (Array.isArray(prefs.hints) ? prefs.hints : [])
      .slice(0, 10)
      .map((h: unknown) =>
        isObject(h) && typeof h.name === 'string' ? inert(h.name, 60, false) : '',
      )
      .filter((h) => h !== '');
    const priorities = (['cost', 'speed', 'intelligence'] as const)
      .map((k) => [k, prefs[`${k}Priority`]] as const)
      .filter(([, v]) => typeof v === 'number' && Number.isFinite(v))
      .map(([k, v]) => `${k} ${v}`);
    const wishes = [hints.length > 0 ? `models like ${hints.join(', ')}` : '', ...priorities];
    lines.push(`model wishes: ${wishes.filter((x) => x !== '').join('; ') || 'none'}`);
  }
  if (typeof params.maxTokens === 'number' && Number.isFinite(params.maxTokens))
    lines.push(`at most ${params.maxTokens} tokens`);
  return { lines };
}

/**
 * Declares sampling on `client` and answers `sampling/createMessage` through `options.reply`
 * (declined without one). Call before `connect`.
 */
export function attachSampling(client: Client, options: SamplingOptions = {}): void {
  client.registerCapabilities({ sampling: {} });
  client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
    // The SDK hands over the request (or, in some versions, its params).
    const r = request as { params?: Record<string, unknown> } & Record<string, unknown>;
    const params = isObject(r.params) ? r.params : r;
    const text =
      options.reply === undefined
        ? undefined
        : await options.reply(describeSampling(params), ctx.mcpReq.signal);
    if (text === undefined)
      throw new ProtocolError(SAMPLING_DECLINED, 'The person declined the sampling request.');
    return {
      role: 'assistant',
      content: { type: 'text', text },
      model: options.model ?? 'a person',
      stopReason: 'endTurn',
    } as never;
  });
}
