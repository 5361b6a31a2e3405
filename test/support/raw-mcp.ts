/**
 * A raw 2025-11-25 HTTP client for flood tests: every request on its own socket, so a test can
 * hang up in the middle of a call (as a misbehaving client would) or keep the stream open.
 */
import { request } from 'node:http';

const PROTOCOL = '2025-11-25';

export interface RawReply {
  /** `asked`: the server sent elicitation/create; `error`: a JSON-RPC error; `dead`: no server. */
  readonly kind: 'asked' | 'error' | 'result' | 'http' | 'dead';
  readonly status: number;
  readonly error?: { code: number; message: string; data?: unknown };
  readonly result?: unknown;
  readonly sessionId?: string;
  /** Hangs up (ends the call's stream from the client side). */
  hangUp(): void;
}

export interface RawOptions {
  readonly sessionId?: string;
  readonly user?: string;
}

/** POSTs one JSON-RPC message and resolves at the first message of the reply (or its end). */
export function rawPost(url: URL, body: unknown, options: RawOptions = {}): Promise<RawReply> {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': String(Buffer.byteLength(payload)),
      'mcp-protocol-version': PROTOCOL,
    };
    if (options.sessionId !== undefined) headers['mcp-session-id'] = options.sessionId;
    if (options.user !== undefined) headers['x-flood-user'] = options.user;
    let settled = false;
    const req = request(url, { method: 'POST', headers, agent: false });
    const hangUp = () => req.destroy();
    const settle = (reply: Omit<RawReply, 'hangUp'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...reply, hangUp });
    };
    req.on('error', () => settle({ kind: 'dead', status: 0 }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const sessionId = res.headers['mcp-session-id'] as string | undefined;
      let text = '';
      res.setEncoding('utf8');
      const parse = (raw: string) => {
        const msg = JSON.parse(raw) as {
          method?: string;
          error?: RawReply['error'];
          result?: unknown;
        };
        if (msg.method === 'elicitation/create')
          return settle({ kind: 'asked', status, sessionId });
        if (msg.error !== undefined)
          return settle({ kind: 'error', status, error: msg.error, sessionId });
        if (msg.result !== undefined)
          return settle({ kind: 'result', status, result: msg.result, sessionId });
      };
      res.on('data', (chunk: string) => {
        text += chunk;
        if (!(res.headers['content-type'] ?? '').includes('text/event-stream')) return;
        for (;;) {
          const end = text.indexOf('\n\n');
          if (end < 0) break;
          const event = text.slice(0, end);
          text = text.slice(end + 2);
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('');
          if (data !== '') parse(data);
        }
      });
      res.on('end', () => {
        if ((res.headers['content-type'] ?? '').includes('application/json') && text !== '')
          parse(text);
        settle({ kind: 'http', status, sessionId });
      });
      res.on('error', () => settle({ kind: 'http', status, sessionId }));
    });
    req.end(payload);
  });
}

/** Sends initialize only (what a session flood does) and returns the new session's id. */
export async function rawInitialize(url: URL, user?: string): Promise<string> {
  const init = await rawPost(
    url,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL,
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'raw', version: '1' },
      },
    },
    { user },
  );
  init.hangUp();
  if (init.sessionId === undefined)
    throw new Error(`initialize failed: ${init.status} ${JSON.stringify(init.error)}`);
  return init.sessionId;
}

/** Opens a legacy session (initialize + initialized) and returns its id. */
export async function openSession(url: URL, user?: string): Promise<string> {
  const sessionId = await rawInitialize(url, user);
  const done = await rawPost(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { sessionId, user },
  );
  done.hangUp();
  return sessionId;
}

/** A tools/call on a session; resolves at the server's first message (an ask, an error, a result). */
export function rawCall(
  url: URL,
  sessionId: string,
  name: string,
  id: number,
  user?: string,
): Promise<RawReply> {
  return rawPost(
    url,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } },
    { sessionId, user },
  );
}
