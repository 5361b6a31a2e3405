/**
 * Raw 2026-07-28 requests straight into an HTTP entry's `fetch`, so tests control every byte
 * (state, answers, Host, token) without a socket.
 */
import { modernBody, modernHeaders } from './kit.ts';

export { MODERN_META } from './kit.ts';

export interface RpcReply {
  result?: {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, { params?: { message?: string } }>;
    content?: { type: string; text: string }[];
    isError?: boolean;
    _meta?: Record<string, unknown>;
  };
  error?: { code: number; message: string; data?: unknown };
}

export async function callTool(
  entry: { fetch(req: Request): Promise<Response> },
  name: string,
  params: Record<string, unknown> = {},
  options: { host?: string; token?: string } = {},
): Promise<RpcReply> {
  const host = options.host ?? '127.0.0.1';
  const res = await entry.fetch(
    new Request(`http://${host}/mcp`, {
      method: 'POST',
      headers: modernHeaders(name, {
        host,
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      }),
      body: modernBody(name, params),
    }),
  );
  return (await res.json()) as RpcReply;
}

/** An accepted form answer for `key`. */
export function answer(key: string, content: Record<string, unknown>) {
  return { [key]: { action: 'accept', content } };
}
