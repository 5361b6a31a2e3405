/**
 * Every method elicit's server registers or wraps, on both eras, with params omitted, `null`,
 * not an object, `{}`, of the wrong types and with extra keys: each answers a result (the
 * documented default) or -32602 (-32601 for a method the era does not have), never -32603. Raw
 * JSON-RPC through the HTTP entry, so every byte is the test's; then the same over arbitrary
 * params from fast-check.
 */
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, httpEntry, type McpHttpEntry } from '../../src/server/index.ts';
import { memoryStore } from '../../src/store/index.ts';
import { MODERN_META } from '../support/kit.ts';
import { TASKS_META, userAuth } from '../support/tasks.ts';

const UNKNOWN_TASK = 'AAAAAAAAAAAAAAAAAAAAAA';
const OMITTED = Symbol('omitted');

type Params = unknown;
/** `ok`: a result; a number: that JSON-RPC error code. */
type Outcome = 'ok' | -32602 | -32601 | -32600 | -32021;

function app() {
  return createServer({ name: 'params', version: '1', store: memoryStore(), onWarning: () => {} })
    .tool('t', { task: 'optional' }, async () => 'ok')
    .prompt('p', {}, async () => ({ messages: [] }))
    .resource('r', 'test://r', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'x' }] }));
}

let entry: McpHttpEntry;
let session: string;
beforeAll(async () => {
  entry = httpEntry(app(), { authInfo: userAuth });
  const init = await post('legacy', {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {} }, tasks: {} },
      clientInfo: { name: 'raw', version: '1' },
    },
  });
  session = String(init.sessionId);
  await post('legacy', { jsonrpc: '2.0', method: 'notifications/initialized' });
});
afterAll(async () => {
  await entry.close();
});

interface Reply {
  readonly status: number;
  readonly sessionId?: string | undefined;
  readonly message: { result?: unknown; error?: { code: number; message: string } } | undefined;
}

/** The last JSON-RPC message of a reply (plain JSON or SSE). */
async function read(res: Response): Promise<Reply['message']> {
  const text = await res.text();
  if (text.trim() === '') return undefined;
  if (text.trimStart().startsWith('{')) return JSON.parse(text);
  const data = text
    .split('\n')
    .filter((l) => l.startsWith('data:') && l.slice(5).trim() !== '')
    .map((l) => l.slice(5).trim());
  const last = data.at(-1);
  return last === undefined ? undefined : JSON.parse(last);
}

async function post(era: 'legacy' | 'modern', body: Record<string, unknown>): Promise<Reply> {
  const params = body.params as Record<string, unknown> | undefined;
  const name =
    params !== null && typeof params === 'object'
      ? (params.name ?? params.uri ?? params.taskId)
      : undefined;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    host: '127.0.0.1',
    'x-user': 'u',
    'mcp-protocol-version': era === 'modern' ? '2026-07-28' : '2025-11-25',
  };
  if (era === 'modern' && typeof body.method === 'string') headers['mcp-method'] = body.method;
  if (era === 'modern' && typeof name === 'string') headers['mcp-name'] = name;
  if (era === 'legacy' && session !== undefined) headers['mcp-session-id'] = session;
  const res = await entry.fetch(
    new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) }),
  );
  return {
    status: res.status,
    sessionId: res.headers.get('mcp-session-id') ?? undefined,
    message: await read(res),
  };
}

let ids = 1;
/** One request of `method` with `params` (OMITTED: no params key) on `era`. */
async function call(era: 'legacy' | 'modern', method: string, params: Params) {
  const body: Record<string, unknown> = { jsonrpc: '2.0', id: ids++, method };
  if (params !== OMITTED) body.params = params;
  // A 2026-07-28 request carries its revision in params._meta: added to any object params.
  if (
    era === 'modern' &&
    params !== null &&
    typeof params === 'object' &&
    !Array.isArray(params) &&
    !('_meta' in params)
  )
    body.params = { ...params, _meta: TASKS_META };
  return post(era, body);
}

function outcome(reply: Reply): Outcome | number | string {
  const m = reply.message;
  if (m === undefined) return `no message (HTTP ${reply.status})`;
  if (m.error !== undefined) return m.error.code;
  return 'ok';
}

// The shapes every method meets, and what each method answers for them.
const NOT_OBJECTS: [string, Params][] = [
  ['null', null],
  ['an array', [1]],
  ['a string', 'x'],
  ['a number', 5],
  ['true', true],
];
const WRONG = {
  name: 5,
  uri: 5,
  taskId: 5,
  cursor: 5,
  arguments: 'x',
  inputResponses: 'x',
  notifications: 'x',
  task: 'x',
};

interface Row {
  readonly method: string;
  readonly cases: [label: string, params: Params, expected: Outcome][];
}

const LEGACY: Row[] = [
  {
    method: 'tools/call',
    cases: [
      ['omitted', OMITTED, -32602],
      ['{}', {}, -32602],
      ['wrong types', WRONG, -32602],
      ['extra keys', { name: 't', arguments: {}, zzz: 1 }, 'ok'],
      ['unknown tool', { name: 'nope' }, -32602],
      ['arguments an array', { name: 't', arguments: [] }, -32602],
      ['task null', { name: 't', task: null }, -32602],
      ['task a string', { name: 't', task: 'x' }, -32602],
      ['task an array', { name: 't', task: [] }, -32602],
      ['task.ttl a string', { name: 't', task: { ttl: 'x' } }, -32602],
      ['task.ttl negative', { name: 't', task: { ttl: -1 } }, -32602],
      ['task.ttl fractional', { name: 't', task: { ttl: 1.5 } }, -32602],
      ['task with arguments a string', { name: 't', arguments: 'x', task: {} }, -32602],
      ['task {} (default ttl)', { name: 't', task: {} }, 'ok'],
      ['task with extra keys', { name: 't', task: { zzz: 1 }, zzz: 1 }, 'ok'],
    ],
  },
  {
    method: 'prompts/get',
    cases: [
      ['omitted', OMITTED, -32602],
      ['{}', {}, -32602],
      ['wrong types', WRONG, -32602],
      ['arguments not strings', { name: 'p', arguments: { a: 5 } }, -32602],
      ['extra keys', { name: 'p', zzz: 1 }, 'ok'],
      ['unknown prompt', { name: 'nope' }, -32602],
    ],
  },
  {
    method: 'resources/read',
    cases: [
      ['omitted', OMITTED, -32602],
      ['{}', {}, -32602],
      ['wrong types', WRONG, -32602],
      ['not a URI', { uri: 'not a uri' }, -32602],
      ['unknown resource', { uri: 'test://nope' }, -32602],
      ['extra keys', { uri: 'test://r', zzz: 1 }, 'ok'],
    ],
  },
  ...['tasks/get', 'tasks/result', 'tasks/cancel'].map(
    (method): Row => ({
      method,
      cases: [
        ['omitted', OMITTED, -32602],
        ['{}', {}, -32602],
        ['wrong types', WRONG, -32602],
        ['taskId not a task id', { taskId: '../../x' }, -32602],
        ['extra keys', { taskId: UNKNOWN_TASK, zzz: 1 }, -32602],
      ],
    }),
  ),
  {
    method: 'tasks/list',
    cases: [
      ['omitted (SDK v1 listTasks)', OMITTED, 'ok'],
      ['{}', {}, 'ok'],
      ['cursor a number', { cursor: 5 }, -32602],
      ['cursor null', { cursor: null }, -32602],
      ['cursor not ours', { cursor: 'bm90IG91cnM' }, -32602],
      ['cursor huge', { cursor: 'A'.repeat(10_000) }, -32602],
      ['extra keys', { zzz: 1 }, 'ok'],
    ],
  },
  // Not methods of 2025 sessions.
  ...['tasks/update', 'subscriptions/listen'].map(
    (method): Row => ({
      method,
      cases: [
        ['omitted', OMITTED, -32601],
        ['{}', {}, -32601],
        ['wrong types', WRONG, -32601],
      ],
    }),
  ),
];

const MODERN: Row[] = [
  {
    method: 'tools/call',
    cases: [
      // Without params there is no _meta, hence no revision: -32602 from the SDK.
      ['omitted', OMITTED, -32602],
      ['{}', {}, -32602],
      ['wrong types', WRONG, -32602],
      ['extra keys', { name: 't', arguments: {}, zzz: 1 }, 'ok'],
      ['unknown tool', { name: 'nope' }, -32602],
      ['arguments an array', { name: 't', arguments: [] }, -32602],
      // Not an object of answers: none (the SDK drops what is not an answer).
      ['inputResponses a string', { name: 't', inputResponses: 'x' }, 'ok'],
      ['requestState a number', { name: 't', requestState: 5 }, -32602],
      ['requestState garbage', { name: 't', requestState: 'e2.x.y' }, -32602],
      // The envelope itself (revision, client info) is malformed: -32600 from the SDK.
      ['_meta a string', { name: 't', _meta: 'x' }, -32600],
    ],
  },
  {
    method: 'prompts/get',
    cases: [
      ['omitted', OMITTED, -32602],
      ['{}', {}, -32602],
      ['wrong types', WRONG, -32602],
      ['arguments not strings', { name: 'p', arguments: { a: 5 } }, -32602],
      ['extra keys', { name: 'p', zzz: 1 }, 'ok'],
    ],
  },
  {
    method: 'resources/read',
    cases: [
      ['omitted', OMITTED, -32602],
      ['{}', {}, -32602],
      ['wrong types', WRONG, -32602],
      ['not a URI', { uri: 'not a uri' }, -32602],
      ['extra keys', { uri: 'test://r', zzz: 1 }, 'ok'],
    ],
  },
  ...['tasks/get', 'tasks/update', 'tasks/cancel'].map(
    (method): Row => ({
      method,
      cases: [
        ['omitted', OMITTED, -32602],
        ['{}', {}, -32602],
        ['wrong types', WRONG, -32602],
        ['extra keys', { taskId: UNKNOWN_TASK, zzz: 1 }, -32602],
        ['without the extension declared', { taskId: UNKNOWN_TASK, _meta: MODERN_META }, -32021],
      ],
    }),
  ),
  // The tasks extension defines neither: -32601, whatever the params.
  ...['tasks/list', 'tasks/result'].map(
    (method): Row => ({
      method,
      cases: [
        ['omitted', OMITTED, -32602],
        ['{}', {}, -32601],
        ['wrong types', WRONG, -32601],
        ['extra keys', { zzz: 1 }, -32601],
      ],
    }),
  ),
  {
    method: 'subscriptions/listen',
    cases: [
      ['omitted', OMITTED, -32602],
      ['{}', {}, -32602],
      ['wrong types', WRONG, -32602],
      ['notifications.taskIds a number', { notifications: { taskIds: 5 } }, -32602],
      ['notifications.taskIds not strings', { notifications: { taskIds: [5, null] } }, -32602],
      ['notifications.taskIds unknown', { notifications: { taskIds: [UNKNOWN_TASK] } }, 'ok'],
      ['extra keys', { zzz: 1 }, -32602],
    ],
  },
];

describe.each([
  ['2025-11-25 session', 'legacy', LEGACY],
  ['2026-07-28', 'modern', MODERN],
] as const)('params shapes on %s', (_label, era, rows) => {
  const table = rows.flatMap((row) => [
    ...row.cases.map(([label, params, expected]) => [row.method, label, params, expected] as const),
    // Params that are not an object are no method's: -32602 for every one.
    ...NOT_OBJECTS.map(([label, params]) => [row.method, label, params, -32602 as const] as const),
  ]);
  it.each(table)('%s with params %s', async (method, _label, params, expected) => {
    const reply = await call(era, method, params);
    expect(reply.message?.error?.message ?? '').not.toMatch(/Cannot read properties/);
    expect(outcome(reply)).toBe(expected);
  });
});

/** Params an adversary might send: any JSON, or objects over the names these methods read. */
const hostileParams = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      name: fc.oneof(fc.constantFrom('t', 'p', 'nope'), fc.jsonValue({ maxDepth: 1 })),
      uri: fc.oneof(fc.constantFrom('test://r', 'x', ''), fc.jsonValue({ maxDepth: 1 })),
      taskId: fc.oneof(fc.constant(UNKNOWN_TASK), fc.jsonValue({ maxDepth: 1 })),
      cursor: fc.jsonValue({ maxDepth: 1 }),
      arguments: fc.jsonValue({ maxDepth: 2 }),
      task: fc.oneof(fc.record({ ttl: fc.jsonValue({ maxDepth: 1 }) }), fc.jsonValue()),
      inputResponses: fc.jsonValue({ maxDepth: 2 }),
      requestState: fc.jsonValue({ maxDepth: 1 }),
      notifications: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  ),
);

describe.each(['legacy', 'modern'] as const)('arbitrary params on %s', (era) => {
  const methods = [...new Set((era === 'legacy' ? LEGACY : MODERN).map((r) => r.method))];
  it('never answer -32603 and never leave a request without an answer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...methods), hostileParams, async (method, params) => {
        const reply = await call(era, method, params);
        const got = outcome(reply);
        expect(typeof got === 'string' && got !== 'ok' ? got : 'answered').toBe('answered');
        expect(got).not.toBe(-32603);
      }),
      { numRuns: 150 },
    );
  });
});

describe('over a transport of its own (stdio, in memory)', () => {
  it('answers params that are not an object -32602 instead of dropping the request', async () => {
    const [peer, own] = InMemoryTransport.createLinkedPair();
    const replies = new Map<number, (m: Reply['message']) => void>();
    peer.onmessage = (message: JSONRPCMessage) => {
      const m = message as { id?: number } & NonNullable<Reply['message']>;
      if (m.id !== undefined) replies.get(m.id)?.(m);
    };
    await peer.start();
    await app().build('legacy').connect(own);
    const ask = (id: number, method: string, params: unknown) =>
      new Promise<Reply['message']>((resolve) => {
        replies.set(id, resolve);
        void peer.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
      });
    const init = await ask(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    expect(init?.result).toBeDefined();
    for (const [i, params] of [null, [1], 'x', 5].entries()) {
      const reply = await ask(10 + i, 'tools/call', params);
      expect(reply?.error?.code).toBe(-32602);
      expect(reply?.error?.message).toMatch(/params must be an object/);
    }
    // The session still serves.
    expect((await ask(20, 'tools/call', { name: 't' }))?.result).toBeDefined();
    await peer.close();
  });
});
