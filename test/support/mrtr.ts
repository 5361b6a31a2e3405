/**
 * Raw 2026-07-28 requests straight into an HTTP entry's `fetch`, so tests control every byte
 * (state, answers, Host, token) without a socket.
 */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

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
      headers: {
        host,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, _meta: MODERN_META, ...params },
      }),
    }),
  );
  return (await res.json()) as RpcReply;
}

/** An accepted form answer for `key`. */
export function answer(key: string, content: Record<string, unknown>) {
  return { [key]: { action: 'accept', content } };
}
