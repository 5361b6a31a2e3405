/**
 * Helpers for hosts that drive 2026-07-28 input_required rounds themselves (instead of the
 * SDK's auto-fulfilment): answer every inputRequest through the same pipeline, and a fetch
 * wrapper that applies the spec's "absent resultType means complete" rule, which the SDK
 * client (2.4) refuses instead.
 */
import { setOwn } from '../kernel/own.ts';
import type { Pipeline, RequestContext } from './pipeline.ts';

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** Answers each elicitation input request with the pipeline; other kinds go to `others`. */
export async function answerInputRequests(
  pipeline: Pipeline,
  inputRequests: Readonly<Record<string, { method: string; params?: unknown }>>,
  ctx: RequestContext,
  others?: (key: string, request: { method: string; params?: unknown }) => Promise<unknown>,
): Promise<Record<string, unknown>> {
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(inputRequests)) {
    let response: unknown;
    if (request.method === 'elicitation/create')
      response = await pipeline.handle(request.params, ctx);
    else if (others !== undefined) response = await others(key, request);
    else continue;
    setOwn(responses, key, response);
  }
  return responses;
}

/**
 * Wraps fetch so a JSON-RPC result without `resultType` reads as `"complete"` (2026-07-28 basic:
 * "the client MUST treat the absent field as complete"). JSON bodies only; streams pass through.
 */
export function completeByDefault(base: Fetch = fetch): Fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!(response.headers.get('content-type') ?? '').includes('application/json')) return response;
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return new Response(text, response);
    }
    const fix = (m: unknown) => {
      const result = (m as { result?: unknown } | null)?.result;
      if (
        result !== null &&
        typeof result === 'object' &&
        !Array.isArray(result) &&
        !('resultType' in result)
      ) {
        (result as Record<string, unknown>).resultType = 'complete';
      }
    };
    if (Array.isArray(body)) body.forEach(fix);
    else fix(body);
    return new Response(JSON.stringify(body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
