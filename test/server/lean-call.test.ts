/**
 * The lean tools/call path (src/server/lean-call.ts) answers exactly as the SDK's handler does.
 * The same requests go through two HTTP entries over the same registrations: one whose app
 * pools its servers, so a plain tools/call takes the lean path, and one whose app builds its own
 * (a subclass, as the gateway's), so every 2026-07-28 request goes through `createMcpHandler`.
 * A table of header and body variations, then fast-check over the standard headers' values:
 * status, the headers that matter and the JSON-RPC messages must be equal, requestState aside
 * (sealed with a fresh IV each time, so compared by presence).
 */
import { fromJsonSchema, type McpServer } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import { ElicitServer, type ElicitServerOptions, type Era } from '../../src/server/app.ts';
import { httpEntry, type McpHttpEntry } from '../../src/server/http.ts';
import { classify, plainToolCall } from '../../src/server/lean-call.ts';
import { MODERN_META, readReply } from '../support/kit.ts';

// A JSON Schema extension keyword (SEP-2243) that the schema types do not list.
const HEADER_REGION = { 'x-mcp-header': 'Region' } as unknown as Record<string, never>;

const OPTIONS: ElicitServerOptions = { name: 'lean', version: '1' };
const who = form({ name: text() });

/** A raw tool on each built server that tells what the SDK seeded as the client's identity. */
function withIdentityTool(mcp: McpServer): McpServer {
  mcp.registerTool('identity', {}, async () => ({
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          info: mcp.server.getClientVersion() ?? null,
          caps: mcp.server.getClientCapabilities() ?? null,
        }),
      },
    ],
  }));
  return mcp;
}

function register<T extends ElicitServer>(app: T): T {
  const headered = fromJsonSchema({
    type: 'object',
    properties: { region: { type: 'string', ...HEADER_REGION } },
  });
  app
    .tool('echo', {}, async () => 'ok')
    .tool('ask', {}, async (_a, ask) => {
      const r = await ask.form('who', who, { message: 'Who?' });
      return r.action === 'accept' ? `hi ${r.content.name}` : r.action;
    })
    .tool(
      'headered',
      { inputSchema: headered },
      async (a) => `region ${String((a as { region?: unknown }).region)}`,
    );
  return app;
}

/** Builds its own servers: no pool, so every request goes through createMcpHandler. */
class PlainSdkPath extends ElicitServer {
  override build(era: Era): McpServer {
    const mcp = super.build(era);
    return era === 'modern' ? withIdentityTool(mcp) : mcp;
  }
}

/** Requests the lean entry's servers were handed by createMcpHandler (it marks each one). */
let sdkDispatched = 0;

function leanApp(): ElicitServer {
  const app = register(new ElicitServer(OPTIONS));
  const build = app.build.bind(app);
  // An instance's own build keeps the class's (the pool, hence the lean path, stays on).
  app.build = (era) => {
    const mcp = build(era);
    if (era === 'legacy') return mcp;
    // createMcpHandler installs server/discover on every server it serves a request on.
    const low = mcp.server as unknown as {
      setRequestHandler: (m: string, ...r: unknown[]) => void;
    };
    const set = low.setRequestHandler.bind(low);
    low.setRequestHandler = (m, ...r) => {
      if (m === 'server/discover') sdkDispatched += 1;
      set(m, ...r);
    };
    return withIdentityTool(mcp);
  };
  return app;
}

const lean = httpEntry(leanApp());
const plain = httpEntry(register(new PlainSdkPath(OPTIONS)));
afterAll(async () => {
  await lean.close();
  await plain.close();
});

interface Case {
  readonly name: string;
  readonly method?: string;
  /** Header lines, in order; a name may repeat. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: unknown;
  /** Whether the lean path's predicate should take it (the table checks itself). */
  readonly plain: boolean;
}

const BASE_HEADERS: readonly (readonly [string, string])[] = [
  ['host', '127.0.0.1'],
  ['content-type', 'application/json'],
  ['accept', 'application/json, text/event-stream'],
  ['mcp-protocol-version', '2026-07-28'],
  ['mcp-method', 'tools/call'],
];

const headersFor = (tool: string, change: Record<string, string | null | string[]> = {}) => {
  const lines: [string, string][] = [...BASE_HEADERS, ['mcp-name', tool]].map(([k, v]) => [k, v]);
  const out: [string, string][] = [];
  for (const [k, v] of lines) {
    if (!(k in change)) out.push([k, v]);
  }
  for (const [k, v] of Object.entries(change)) {
    if (v === null) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.push([k, one]);
  }
  return out;
};

const call = (tool: unknown, extra: Record<string, unknown> = {}, meta: unknown = MODERN_META) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: tool, _meta: meta, ...extra },
});

const metaWith = (change: Record<string, unknown>) => {
  const m: Record<string, unknown> = { ...MODERN_META, ...change };
  for (const [k, v] of Object.entries(change)) if (v === undefined) delete m[k];
  return m;
};
const V = 'io.modelcontextprotocol/protocolVersion';
const INFO = 'io.modelcontextprotocol/clientInfo';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

const CASES: Case[] = [
  { name: 'plain tools/call', headers: headersFor('echo'), body: call('echo'), plain: true },
  {
    name: 'string id',
    headers: headersFor('echo'),
    body: { ...call('echo'), id: 'abc' },
    plain: true,
  },
  {
    name: 'charset in content-type',
    headers: headersFor('echo', { 'content-type': 'application/json; charset=utf-8' }),
    body: call('echo'),
    plain: true,
  },
  {
    name: 'content-type text/plain',
    headers: headersFor('echo', { 'content-type': 'text/plain' }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'no content-type',
    headers: headersFor('echo', { 'content-type': null }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'accept: application/json only',
    headers: headersFor('echo', { accept: 'application/json' }),
    body: call('echo'),
    plain: true,
  },
  {
    name: 'no accept',
    headers: headersFor('echo', { accept: null }),
    body: call('echo'),
    plain: true,
  },
  {
    name: 'MCP-Protocol-Version missing',
    headers: headersFor('echo', { 'mcp-protocol-version': null }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'Mcp-Method missing',
    headers: headersFor('echo', { 'mcp-method': null }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'Mcp-Name missing',
    headers: headersFor('echo', { 'mcp-name': null }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'all three missing',
    headers: headersFor('echo', {
      'mcp-name': null,
      'mcp-method': null,
      'mcp-protocol-version': null,
    }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'Mcp-Method in another case',
    headers: headersFor('echo', { 'mcp-method': 'Tools/Call' }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'Mcp-Name in another case',
    headers: headersFor('echo', { 'mcp-name': 'ECHO' }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'MCP-Protocol-Version another revision',
    headers: headersFor('echo', { 'mcp-protocol-version': '2025-11-25' }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'Mcp-Method another method',
    headers: headersFor('echo', { 'mcp-method': 'tools/list' }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'Mcp-Name another tool',
    headers: headersFor('echo', { 'mcp-name': 'ask' }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'Mcp-Name twice',
    headers: headersFor('echo', { 'mcp-name': ['echo', 'echo'] }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'Mcp-Method twice',
    headers: headersFor('echo', { 'mcp-method': ['tools/call', 'tools/call'] }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'MCP-Protocol-Version twice',
    headers: headersFor('echo', { 'mcp-protocol-version': ['2026-07-28', '2026-07-28'] }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'Mcp-Name with spaces around',
    headers: headersFor('echo', { 'mcp-name': '  echo\t' }),
    body: call('echo'),
    plain: true,
  },
  {
    name: 'Mcp-Name with a space inside',
    headers: headersFor('echo', { 'mcp-name': 'ec ho' }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'MCP-Protocol-Version with spaces around',
    headers: headersFor('echo', { 'mcp-protocol-version': ' 2026-07-28 ' }),
    body: call('echo'),
    plain: true,
  },
  {
    name: 'Mcp-Name as a Base64 sentinel of the name',
    headers: headersFor('echo', { 'mcp-name': `=?base64?${btoa('echo')}?=` }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'Mcp-Name as a broken Base64 sentinel',
    headers: headersFor('echo', { 'mcp-name': '=?base64?%%?=' }),
    body: call('echo'),
    plain: false,
  },
  {
    name: 'a name that starts like a sentinel',
    headers: headersFor('=?odd'),
    body: call('=?odd'),
    plain: false,
  },
  {
    name: 'an unknown revision, header and body',
    headers: headersFor('echo', { 'mcp-protocol-version': '2027-01-01' }),
    body: call('echo', {}, metaWith({ [V]: '2027-01-01' })),
    plain: false,
  },
  {
    name: 'a 2025 revision in the envelope',
    headers: headersFor('echo', { 'mcp-protocol-version': '2025-11-25' }),
    body: call('echo', {}, metaWith({ [V]: '2025-11-25' })),
    plain: false,
  },
  {
    name: 'header names 2026-07-28, body has no envelope',
    headers: headersFor('echo'),
    body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo' } },
    plain: false,
  },
  {
    name: 'a batch',
    headers: headersFor('echo'),
    body: [call('echo')],
    plain: false,
  },
  {
    name: 'a notification',
    headers: headersFor('echo', { 'mcp-method': 'notifications/cancelled', 'mcp-name': null }),
    body: {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, _meta: MODERN_META },
    },
    plain: false,
  },
  {
    name: 'a tools/call without an id',
    headers: headersFor('echo'),
    body: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', _meta: MODERN_META } },
    plain: false,
  },
  {
    name: 'params an array',
    headers: headersFor('echo'),
    body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: ['echo'] },
    plain: false,
  },
  {
    name: 'params.name a number',
    headers: headersFor('1'),
    body: call(1),
    plain: false,
  },
  {
    name: 'params.name empty',
    headers: headersFor('echo', { 'mcp-name': '' }),
    body: call(''),
    plain: false,
  },
  {
    name: 'an unknown tool',
    headers: headersFor('nope'),
    body: call('nope'),
    plain: true,
  },
  {
    name: 'a tool with an x-mcp-header parameter, header sent',
    headers: headersFor('headered', { 'mcp-param-region': 'eu' }),
    body: call('headered', { arguments: { region: 'eu' } }),
    plain: true,
  },
  {
    name: 'a tool with an x-mcp-header parameter, header missing',
    headers: headersFor('headered'),
    body: call('headered', { arguments: { region: 'eu' } }),
    plain: true,
  },
  {
    name: 'a tool with an x-mcp-header parameter, header mismatched',
    headers: headersFor('headered', { 'mcp-param-region': 'us' }),
    body: call('headered', { arguments: { region: 'eu' } }),
    plain: true,
  },
  {
    name: 'an Mcp-Param header on a tool that declares none',
    headers: headersFor('echo', { 'mcp-param-region': 'eu' }),
    body: call('echo'),
    plain: true,
  },
  {
    name: 'tools/list with its headers',
    headers: headersFor('x', { 'mcp-method': 'tools/list', 'mcp-name': null }),
    body: { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: MODERN_META } },
    plain: false,
  },
  {
    name: 'server/discover',
    headers: headersFor('x', { 'mcp-method': 'server/discover', 'mcp-name': null }),
    body: { jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: MODERN_META } },
    plain: false,
  },
  {
    name: 'the client identity in _meta',
    headers: headersFor('identity'),
    body: call('identity', {}, metaWith({ [INFO]: { name: 'first', version: '2' } })),
    plain: true,
  },
  {
    name: 'then no clientInfo in _meta (nothing left of the last one)',
    headers: headersFor('identity'),
    body: call('identity', {}, metaWith({ [INFO]: undefined })),
    plain: true,
  },
  {
    name: 'no clientCapabilities in _meta',
    headers: headersFor('identity'),
    body: call('identity', {}, metaWith({ [CAPS]: undefined })),
    plain: false,
  },
  {
    name: 'clientCapabilities with more in them',
    headers: headersFor('identity'),
    body: call(
      'identity',
      {},
      metaWith({ [CAPS]: { elicitation: { form: {} }, sampling: {}, roots: {} } }),
    ),
    plain: true,
  },
  {
    name: 'clientInfo of the wrong shape',
    headers: headersFor('identity'),
    body: call('identity', {}, metaWith({ [INFO]: 'me' })),
    plain: false,
  },
  {
    name: '_meta not an object',
    headers: headersFor('echo'),
    body: call('echo', {}, 'x'),
    plain: false,
  },
  {
    name: 'jsonrpc 1.0',
    headers: headersFor('echo'),
    body: { ...call('echo'), jsonrpc: '1.0' },
    plain: false,
  },
  {
    name: 'an ask, first round',
    headers: headersFor('ask'),
    body: call('ask', { arguments: {} }),
    plain: true,
  },
  {
    name: 'an ask answered without its state',
    headers: headersFor('ask'),
    body: call('ask', {
      arguments: {},
      inputResponses: { who: { action: 'accept', content: { name: 'Ann' } } },
    }),
    plain: true,
  },
  {
    name: 'an ask with a forged state',
    headers: headersFor('ask'),
    body: call('ask', { arguments: {}, requestState: 'e2.local.AAAA' }),
    plain: true,
  },
  { name: 'GET', method: 'GET', headers: headersFor('echo'), plain: false },
  { name: 'DELETE', method: 'DELETE', headers: headersFor('echo'), plain: false },
  { name: 'an empty POST', headers: headersFor('echo'), body: '', plain: false },
  { name: 'a POST that is not JSON', headers: headersFor('echo'), body: '{no', plain: false },
];

function requestOf(c: Case): Request {
  const headers = new Headers();
  for (const [k, v] of c.headers) headers.append(k, v);
  const method = c.method ?? 'POST';
  const body =
    method === 'GET' || method === 'DELETE'
      ? undefined
      : typeof c.body === 'string'
        ? c.body
        : JSON.stringify(c.body);
  return new Request('http://127.0.0.1/mcp', { method, headers, body });
}

/** Every JSON-RPC message of a reply (JSON, or an SSE stream's data lines), states blanked. */
async function messagesOf(res: Response): Promise<unknown[]> {
  const text = await res.text();
  if (text.length === 0) return [];
  const lines = text.trimStart().startsWith('{')
    ? [text]
    : text
        .split('\n')
        .filter((l) => l.startsWith('data: ') && l.length > 6)
        .map((l) => l.slice(6));
  return lines.map((l) =>
    JSON.parse(l, (k, v: unknown) =>
      k === 'requestState' && typeof v === 'string' ? '<state>' : v,
    ),
  );
}

interface Seen {
  status: number;
  type: string | null;
  allow: string | null;
  authenticate: string | null;
  session: boolean;
  messages: unknown[];
}

async function seen(entry: McpHttpEntry, req: Request): Promise<Seen> {
  const res = await entry.fetch(req);
  return {
    status: res.status,
    type: res.headers.get('content-type')?.split(';')[0] ?? null,
    allow: res.headers.get('allow'),
    authenticate: res.headers.get('www-authenticate'),
    session: res.headers.has('mcp-session-id'),
    messages: await messagesOf(res),
  };
}

/** Whether the lean path's predicate takes `req` (by its headers and body alone). */
async function takenByPredicate(req: Request): Promise<boolean> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await req.clone().text());
  } catch {
    return false;
  }
  return plainToolCall(req, classify(req, parsed)) !== undefined;
}

describe('the lean tools/call path answers as the SDK handler does', () => {
  it(`a table of ${CASES.length} header and body variations`, async () => {
    let leanServed = 0;
    for (const c of CASES) {
      expect(await takenByPredicate(requestOf(c)), `${c.name}: predicate`).toBe(c.plain);
      const before = sdkDispatched;
      const a = await seen(lean, requestOf(c));
      // A tool the server does not know, or one with Mcp-Param headers, is the SDK's to serve.
      const tool = (c.body as { params?: { name?: unknown } } | undefined)?.params?.name;
      const served = c.plain && tool !== 'nope' && tool !== 'headered';
      if (served) leanServed += 1;
      if (served || a.session) expect(sdkDispatched, `${c.name}: lean`).toBe(before);
      const b = await seen(plain, requestOf(c));
      expect(a, c.name).toEqual(b);
    }
    expect(leanServed).toBeGreaterThan(10);
    expect(sdkDispatched).toBeGreaterThan(0);
  });

  it('the client identity reaches the handler, and a reused server forgets it', async () => {
    const ask = async (meta: unknown) =>
      (
        await seen(
          lean,
          requestOf({
            name: '',
            headers: headersFor('identity'),
            body: call('identity', {}, meta),
            plain: true,
          }),
        )
      ).messages[0] as { result: { content: { text: string }[] } };
    const first = await ask(metaWith({ [INFO]: { name: 'first', version: '2' } }));
    expect(JSON.parse(first.result.content[0]?.text ?? '')).toEqual({
      info: { name: 'first', version: '2' },
      caps: MODERN_META[CAPS],
    });
    const second = await ask(metaWith({ [INFO]: undefined, [CAPS]: {} }));
    expect(JSON.parse(second.result.content[0]?.text ?? '')).toEqual({ info: null, caps: {} });
  });

  it('a second round carries its state through the lean path', async () => {
    const round = async (entry: McpHttpEntry, extra: Record<string, unknown>) => {
      const res = await entry.fetch(
        requestOf({ name: '', headers: headersFor('ask'), body: call('ask', extra), plain: true }),
      );
      return (await readReply(res)) as {
        result: { requestState?: string; content?: { text: string }[]; resultType: string };
      };
    };
    for (const entry of [lean, plain]) {
      const first = await round(entry, { arguments: {} });
      expect(first.result.resultType).toBe('input_required');
      const second = await round(entry, {
        arguments: {},
        requestState: first.result.requestState,
        inputResponses: { who: { action: 'accept', content: { name: 'Ann' } } },
      });
      expect(second.result.content?.[0]?.text).toBe('hi Ann');
    }
  });

  it('fast-check: any value of the three standard headers is answered alike', async () => {
    const piece = fc.constantFrom(
      'echo',
      'ECHO',
      'tools/call',
      'Tools/call',
      '2026-07-28',
      '2025-11-25',
      ' ',
      '\t',
      ',',
      '=?base64?',
      '?=',
      btoa('echo'),
      'ask',
      '',
    );
    const value = fc.option(
      fc.array(piece, { maxLength: 4 }).map((xs) => xs.join('')),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(value, value, value, async (version, method, name) => {
        const change: Record<string, string | null> = {
          'mcp-protocol-version': version ?? null,
          'mcp-method': method ?? null,
          'mcp-name': name ?? null,
        };
        const c: Case = {
          name: 'generated',
          headers: headersFor('echo', change),
          body: call('echo'),
          plain: false,
        };
        const a = await seen(lean, requestOf(c));
        const b = await seen(plain, requestOf(c));
        expect(a).toEqual(b);
      }),
      { numRuns: 150 },
    );
  });
});
