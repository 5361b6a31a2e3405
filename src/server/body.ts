/**
 * A POST body read once. Routing a request (which era, which legacy session, a listen stream
 * that watches tasks) needs the parsed message, and so does the SDK's handler; the SDK takes a
 * pre-parsed body (`parsedBody`) and then reads nothing, so the body is read and parsed here,
 * once, within the same size bound the SDK applies. A body that is empty or not JSON goes on as
 * text in a fresh request, so the SDK answers it exactly as it would have.
 */

import { readTextWithin } from '../kernel/body.ts';

/** The SDK's own default bound on a request body (4 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export type ReadBody =
  /** A JSON body, parsed; `request` has its body consumed (pass `parsed` on as `parsedBody`). */
  | { readonly request: Request; readonly parsed: unknown }
  /** No JSON to route by (not a POST, empty, not JSON): `request` still carries its body. */
  | { readonly request: Request; readonly parsed?: undefined }
  /** The body was refused (too large, unreadable): answer this. */
  | { readonly response: Response };

/**
 * A JSON-RPC error as an HTTP response: every error elicit answers before (or instead of) the
 * SDK's handler is written here. `id` is null when the request's id is not known.
 */
export function rpcErrorResponse(
  status: number,
  error: { readonly code: number; readonly message: string; readonly data?: unknown },
  id: string | number | null = null,
  headers?: Record<string, string>,
): Response {
  return Response.json({ jsonrpc: '2.0', id, error }, { status, headers });
}

const refusal = (status: number, code: number, message: string): { response: Response } => ({
  response: rpcErrorResponse(status, { code, message }),
});

/** Reads `req`'s body at most once, `maxBytes` at most, counted while it streams in. */
export async function readBodyOnce(req: Request, maxBytes: number): Promise<ReadBody> {
  if (req.method !== 'POST' || req.body === null) return { request: req };
  const tooLarge = () =>
    refusal(413, -32000, `Payload Too Large: Request body must not exceed ${maxBytes} bytes`);
  let text: string | undefined;
  try {
    text = await readTextWithin(req, maxBytes);
  } catch {
    return refusal(400, -32700, 'Parse error: the request body could not be read');
  }
  if (text === undefined) return tooLarge();
  if (text.length > 0) {
    try {
      return { request: req, parsed: JSON.parse(text) as unknown };
    } catch {
      // Not JSON: the SDK says so in its own words, from the text.
    }
  }
  const headers = new Headers(req.headers);
  headers.delete('content-length');
  return { request: new Request(req, { headers, body: text }) };
}
