/**
 * The client's side of "every method survives every params shape": a raw peer (a JSON-RPC
 * server written by hand on the SDK's in-memory transport) sends `elicitation/create` and the
 * task receiver's `tasks/*` with params omitted, `null`, `{}`, of the wrong types and with extra
 * keys; each gets a result (the documented default) or -32602, never -32603, and no form is
 * shown for a request that was refused.
 */
import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachElicitation, scriptedRenderer } from '../../src/client/index.ts';

interface Reply {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

const OMITTED = Symbol('omitted');
let shown = 0;
let client: Client;
let send: (method: string, params: unknown) => Promise<Reply>;

beforeAll(async () => {
  client = new Client({ name: 'host', version: '1' });
  attachElicitation(client, {
    renderer: {
      ...scriptedRenderer(),
      form: async () => {
        shown++;
        return { action: 'accept', content: {} };
      },
    },
    rateLimit: false,
  });
  const [ct, raw] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<number | string, (r: Reply) => void>();
  raw.onmessage = (message: JSONRPCMessage) => {
    const m = message as { id?: number | string; method?: string } & Reply;
    if (m.method === 'initialize')
      void raw.send({
        jsonrpc: '2.0',
        id: m.id as number,
        result: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          serverInfo: { name: 'raw', version: '1' },
        },
      } as JSONRPCMessage);
    else if (m.method === undefined && m.id !== undefined) waiting.get(m.id)?.(m);
  };
  await raw.start();
  await client.connect(ct);
  let ids = 0;
  send = (method, params) =>
    new Promise((resolve) => {
      const id = `raw-${++ids}`;
      waiting.set(id, resolve);
      const body: Record<string, unknown> = { jsonrpc: '2.0', id, method };
      if (params !== OMITTED) body.params = params;
      void raw.send(body as JSONRPCMessage);
    });
});
afterAll(async () => {
  await client.close();
});

const form = { mode: 'form', message: 'M', requestedSchema: { type: 'object', properties: {} } };
const WRONG = { taskId: 5, cursor: 5, task: 'x', message: 5, requestedSchema: 'x', mode: 5 };

const TABLE: [method: string, label: string, params: unknown, expected: 'ok' | -32602][] = [
  ['elicitation/create', 'omitted', OMITTED, -32602],
  ['elicitation/create', 'null', null, -32602],
  ['elicitation/create', 'an array', [form], -32602],
  ['elicitation/create', '{}', {}, -32602],
  ['elicitation/create', 'wrong types', WRONG, -32602],
  ['elicitation/create', 'requestedSchema null', { ...form, requestedSchema: null }, -32602],
  ['elicitation/create', 'mode unknown', { ...form, mode: 'telepathy' }, -32602],
  ['elicitation/create', 'url mode without url', { mode: 'url', message: 'M' }, -32602],
  ['elicitation/create', 'task null', { ...form, task: null }, -32602],
  ['elicitation/create', 'task.ttl a string', { ...form, task: { ttl: 'x' } }, -32602],
  ['elicitation/create', 'task.ttl zero', { ...form, task: { ttl: 0 } }, -32602],
  ['elicitation/create', 'extra keys', { ...form, zzz: 1 }, 'ok'],
  ['tasks/get', 'omitted', OMITTED, -32602],
  ['tasks/get', '{}', {}, -32602],
  ['tasks/get', 'wrong types', WRONG, -32602],
  ['tasks/get', 'unknown task, extra keys', { taskId: 'nope', zzz: 1 }, -32602],
  ['tasks/result', 'omitted', OMITTED, -32602],
  ['tasks/result', 'wrong types', WRONG, -32602],
  ['tasks/cancel', 'omitted', OMITTED, -32602],
  ['tasks/cancel', 'wrong types', WRONG, -32602],
  ['tasks/list', 'omitted (SDK v1 listTasks)', OMITTED, 'ok'],
  ['tasks/list', '{}', {}, 'ok'],
  ['tasks/list', 'extra keys', { zzz: 1 }, 'ok'],
  ['tasks/list', 'cursor a number', { cursor: 5 }, -32602],
  ['tasks/list', 'cursor unknown', { cursor: 'nope' }, -32602],
];

describe('params shapes the client meets', () => {
  it.each(TABLE)('%s with params %s', async (method, _label, params, expected) => {
    const before = shown;
    const reply = await send(method, params);
    expect(reply.error?.message ?? '').not.toMatch(/Cannot read properties/);
    expect(reply.error === undefined ? 'ok' : reply.error.code).toBe(expected);
    // Only an accepted elicitation/create puts a form on screen.
    if (method !== 'elicitation/create' || expected !== 'ok') expect(shown).toBe(before);
    else expect(shown).toBe(before + 1);
  });

  it('never answers -32603 to arbitrary params', async () => {
    const methods = [
      'elicitation/create',
      'tasks/get',
      'tasks/result',
      'tasks/list',
      'tasks/cancel',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...methods),
        fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.record(
            {
              mode: fc.oneof(fc.constantFrom('form', 'url'), fc.jsonValue({ maxDepth: 1 })),
              message: fc.jsonValue({ maxDepth: 1 }),
              requestedSchema: fc.jsonValue({ maxDepth: 3 }),
              url: fc.jsonValue({ maxDepth: 1 }),
              elicitationId: fc.jsonValue({ maxDepth: 1 }),
              taskId: fc.jsonValue({ maxDepth: 1 }),
              cursor: fc.jsonValue({ maxDepth: 1 }),
            },
            { requiredKeys: [] },
          ),
        ),
        async (method, params) => {
          // tasks/result on a task that is still running would wait for it: none are here.
          const reply = await send(method, params);
          expect(reply.error?.code).not.toBe(-32603);
        },
      ),
      { numRuns: 200 },
    );
  });
});
