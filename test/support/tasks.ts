/**
 * Raw 2026-07-28 requests for the tasks extension, straight into an HTTP entry's `fetch` (or a
 * URL): every byte under the test's control, the user named by an `x-user` header that the
 * entry's `authInfo` turns into a token subject.
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import { MODERN_META, readReply } from './kit.ts';

export const TASKS = 'io.modelcontextprotocol/tasks';

export const TASKS_META = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } },
};

/** The entry option that makes `x-user` the principal (`<iss>|<sub>`). */
export const userAuth = (req: Request): AuthInfo | undefined => {
  const user = req.headers.get('x-user');
  return user === null
    ? undefined
    : { token: user, clientId: 'test', scopes: [], extra: { iss: 'test', sub: user } };
};

export interface Reply {
  result?: Record<string, unknown> & {
    resultType?: string;
    taskId?: string;
    status?: string;
    inputRequests?: Record<string, { method: string; params: { message?: string } }>;
    result?: {
      content?: { type: string; text: string }[];
      isError?: boolean;
      _meta?: Record<string, unknown>;
    };
    error?: { code: number; message: string };
    content?: { type: string; text: string }[];
    isError?: boolean;
  };
  error?: { code: number; message: string; data?: unknown };
}

type Target = { fetch(req: Request): Promise<Response> } | URL;

const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

let ids = 0;

/** One JSON-RPC request; `meta` is the per-request `_meta` (tasks declared by default). */
export async function rpc(
  target: Target,
  method: string,
  params: Record<string, unknown>,
  options: { user?: string; meta?: Record<string, unknown> } = {},
): Promise<Reply> {
  const field = NAME_FIELD[method];
  const name = field === undefined ? undefined : params[field];
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...(options.user === undefined ? {} : { 'x-user': options.user }),
  };
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: ++ids,
    method,
    params: { ...params, _meta: options.meta ?? TASKS_META },
  });
  const res =
    target instanceof URL
      ? await fetch(target, { method: 'POST', headers, body })
      : await target.fetch(
          new Request('http://127.0.0.1/mcp', {
            method: 'POST',
            headers: { ...headers, host: '127.0.0.1' },
            body,
          }),
        );
  return (await readReply(res)) as Reply;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Polls tasks/get until the task is in `status` (or terminal); fails after `tries` polls. */
export async function until(
  target: Target,
  taskId: string,
  status: string,
  options: { user?: string; tries?: number } = {},
): Promise<NonNullable<Reply['result']>> {
  const tries = options.tries ?? 500;
  for (let i = 0; i < tries; i++) {
    const r = await rpc(target, 'tasks/get', { taskId }, options);
    if (r.error !== undefined) throw new Error(`tasks/get: ${JSON.stringify(r.error)}`);
    const got = r.result as NonNullable<Reply['result']>;
    if (got.status === status || TERMINAL.has(String(got.status))) return got;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`task ${taskId} never reached ${status}`);
}

/** An accepted form answer. */
export const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

/** The text of a task's inlined tool result. */
export const resultText = (task: NonNullable<Reply['result']>) =>
  task.result?.content?.[0]?.text ?? '';
