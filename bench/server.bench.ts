/**
 * elicit/server beside the plain SDK, in one process: legacy in-memory sessions and modern
 * (2026-07-28) in-process requests. Ratios are throughput: ours / SDK (higher is better).
 */
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import {
  acceptedContent,
  type CallToolResult,
  createMcpHandler,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  McpServer,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { choice, form, integer, text } from '../src/schema/index.ts';
import { createServer } from '../src/server/index.ts';
import { freePort, startProcess, stop } from '../test/support/processes.ts';
import { openSession, type RawReply, rawCall, rawInitialize } from '../test/support/raw-mcp.ts';
import { type Row, timeAsyncMs } from './harness.ts';

const SCHEMA = {
  type: 'object' as const,
  properties: {
    name: { type: 'string' as const },
    age: { type: 'integer' as const, minimum: 0, maximum: 150 },
    color: { type: 'string' as const, enum: ['red', 'green', 'blue'] },
  },
  required: ['name'],
};
const perCall = () => ({
  ...SCHEMA,
  properties: { ...SCHEMA.properties, name: { type: 'string' as const } },
});
const ANSWER = { name: 'Ann', age: 42, color: 'green' };
const ours = form({
  name: text(),
  age: integer({ min: 0, max: 150, optional: true }),
  color: choice(['red', 'green', 'blue'], { optional: true }),
});
const Answer = z.object({
  name: z.string(),
  age: z.number().int().min(0).max(150).optional(),
  color: z.enum(['red', 'green', 'blue']).optional(),
});

function sdkLegacy(): McpServer {
  const s = new McpServer({ name: 'sdk', version: '1' });
  s.registerTool('reused', {}, async (ctx) => {
    const r = await ctx.mcpReq.elicitInput(
      { message: 'Who?', requestedSchema: SCHEMA },
      { relatedRequestId: ctx.mcpReq.id },
    );
    return { content: [{ type: 'text', text: String(r.action) }] };
  });
  s.registerTool('fresh', {}, async (ctx) => {
    const r = await ctx.mcpReq.elicitInput(
      { message: 'Who?', requestedSchema: perCall() },
      { relatedRequestId: ctx.mcpReq.id },
    );
    return { content: [{ type: 'text', text: String(r.action) }] };
  });
  return s;
}

const app = createServer({ name: 'elicit', version: '1' })
  .tool('reused', {}, async (_a, ask) => (await ask.form('who', ours, { message: 'Who?' })).action)
  .tool(
    'fresh',
    {},
    async (_a, ask) => (await ask.form('who', perCall(), { message: 'Who?' })).action,
  )
  .tool('three', {}, async (_a, ask) => {
    await ask.form('one', ours, { message: '1' });
    await ask.form('two', ours, { message: '2' });
    return (await ask.form('three', ours, { message: '3' })).action;
  });

function answering(client: Client): Client {
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: ANSWER,
  }));
  return client;
}

async function legacyClient(server: McpServer): Promise<Client> {
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = answering(
    new Client({ name: 'b', version: '1' }, { capabilities: { elicitation: {} } }),
  );
  await client.connect(ct);
  return client;
}

async function modernClient(build: () => McpServer): Promise<Client> {
  const handler = createMcpHandler(build);
  const client = answering(
    new Client(
      { name: 'b', version: '1' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    ),
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://bench.local/mcp'), {
      fetch: (u, i) => handler.fetch(new Request(u, i)),
    }),
  );
  return client;
}

function sdkModern(): McpServer {
  const codec = createRequestStateCodec<{ step: number; answers: unknown[] }>({
    key: new Uint8Array(32).fill(9),
    ttlSeconds: 600,
  });
  const s = new McpServer(
    { name: 'sdk', version: '1' },
    { requestState: { verify: codec.verify } },
  );
  s.registerTool('reused', {}, async (ctx): Promise<CallToolResult | InputRequiredResult> => {
    const a = acceptedContent(ctx.mcpReq.inputResponses, 'who', Answer);
    if (a === undefined)
      return inputRequired({
        inputRequests: { who: inputRequired.elicit({ message: 'Who?', requestedSchema: SCHEMA }) },
      });
    return { content: [{ type: 'text', text: 'accept' }] };
  });
  s.registerTool('three', {}, async (ctx): Promise<CallToolResult | InputRequiredResult> => {
    const state = ctx.mcpReq.requestState<{ step: number; answers: unknown[] }>() ?? {
      step: 0,
      answers: [],
    };
    const keys = ['one', 'two', 'three'];
    const key = keys[state.step] as string;
    const a =
      state.step === 0 && ctx.mcpReq.inputResponses === undefined
        ? undefined
        : acceptedContent(ctx.mcpReq.inputResponses, key, Answer);
    const next = a === undefined ? state : { step: state.step + 1, answers: [...state.answers, a] };
    if (next.step === 3) return { content: [{ type: 'text', text: 'accept' }] };
    const k = keys[next.step] as string;
    return inputRequired({
      inputRequests: { [k]: inputRequired.elicit({ message: k, requestedSchema: SCHEMA }) },
      requestState: await codec.mint(next, ctx),
    });
  });
  return s;
}

/** Alternates the two sides (ours, SDK, ours, SDK) and keeps each side's best, to spread noise. */
async function both(
  ours: () => Promise<unknown>,
  sdk: () => Promise<unknown>,
  budgetMs = 800,
): Promise<[number, number]> {
  const a1 = await timeAsyncMs(ours, budgetMs);
  const b1 = await timeAsyncMs(sdk, budgetMs);
  const a2 = await timeAsyncMs(ours, budgetMs);
  const b2 = await timeAsyncMs(sdk, budgetMs);
  return [Math.min(a1, a2), Math.min(b1, b2)];
}

function throughput(
  group: string,
  name: string,
  [oursMs, sdkMs]: [number, number],
  sdkName: string,
  minRatio: number,
): Row {
  const ratio = sdkMs / oursMs;
  return {
    group,
    name,
    value: oursMs * 1e6,
    unit: 'ns/op',
    baseline: { name: sdkName, value: sdkMs * 1e6 },
    ratio,
    target: `≥ ${minRatio.toFixed(2)}× SDK throughput`,
    met: ratio >= minRatio,
  };
}

const gc = (globalThis as { gc?: () => void }).gc;
function heapMb(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1_048_576;
}

const WAITING = Number(process.env.BENCH_WAITING ?? 1000);
const KIB = 1024;

/** Heap per waiting ask, in one process: the server and an SDK client that never answers. */
async function waitingInProcess(server: McpServer): Promise<number> {
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: 'b', version: '1' }, { capabilities: { elicitation: {} } });
  let asked = 0;
  client.setRequestHandler('elicitation/create', () => {
    asked++;
    return new Promise<never>(() => {});
  });
  await client.connect(ct);
  const before = heapMb();
  const calls = Array.from({ length: WAITING }, () =>
    client.callTool({ name: 'reused', arguments: {} }, { timeout: 600_000 }).catch(() => {}),
  );
  while (asked < WAITING) await new Promise((r) => setTimeout(r, 10));
  const per = ((heapMb() - before) * 1_048_576) / WAITING / KIB;
  await client.close();
  await Promise.all(calls);
  return per;
}

/** Heap of a server process per waiting ask (and per idle session), over HTTP with raw sockets. */
async function waitingOverHttp(kind: 'elicit' | 'sdk'): Promise<{ ask: number; session: number }> {
  const port = await freePort();
  const child = await startProcess(
    'bench/waiting-server.ts',
    [kind, String(port)],
    ['--expose-gc'],
  );
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const held: RawReply[] = [];
  try {
    const sid = await openSession(url);
    const heap = async () => {
      const r = await rawCall(url, sid, 'heap', 0);
      r.hangUp();
      return Number((r.result as { content: { text: string }[] }).content[0]?.text);
    };
    await rawCall(url, sid, 'heap', 0).then((r) => r.hangUp());
    const start = await heap();
    for (let i = 1; i <= WAITING; i++) held.push(await rawCall(url, sid, 'wait', i));
    const ask = (await heap()) - start;
    const SESSIONS = 200;
    const beforeSessions = await heap();
    for (let i = 0; i < SESSIONS; i++) await rawInitialize(url);
    const session = (await heap()) - beforeSessions;
    return { ask: ask / WAITING / KIB, session: session / SESSIONS / KIB };
  } finally {
    for (const r of held) r.hangUp();
    await stop(child);
  }
}

function memoryRow(group: string, name: string, ours: number, sdk: number): Row {
  return {
    group,
    name,
    value: ours,
    unit: 'KiB',
    baseline: { name: 'plain SDK', value: sdk },
    ratio: ours / sdk,
    target: '≤ 1.25× SDK',
    met: ours <= sdk * 1.25,
  };
}

export default async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const w = `server: memory per waiting ask (${WAITING} waiting, nobody answers)`;
  const many = 1_000_000;
  const waitingApp = createServer({
    name: 'elicit',
    version: '1',
    limits: { maxPendingPerSession: many, maxPendingPerPrincipal: many, maxPending: many },
  }).tool('reused', {}, async (_a, ask) => (await ask.form('who', ours)).action);
  rows.push(
    memoryRow(
      w,
      'legacy in-memory, server + SDK client in one process',
      await waitingInProcess(waitingApp.build('legacy')),
      await waitingInProcess(sdkLegacy()),
    ),
  );
  const oursHttp = await waitingOverHttp('elicit');
  const sdkHttp = await waitingOverHttp('sdk');
  rows.push(memoryRow(w, 'over HTTP (server process)', oursHttp.ask, sdkHttp.ask));
  rows.push(
    memoryRow(
      w,
      'idle legacy session over HTTP (server process)',
      oursHttp.session,
      sdkHttp.session,
    ),
  );

  const sdkL = await legacyClient(sdkLegacy());
  const ourL = await legacyClient(app.build('legacy'));
  const call = (c: Client, name: string) => () => c.callTool({ name, arguments: {} });
  const g = 'server: legacy in-memory, 1 in flight';
  rows.push(
    throughput(
      g,
      'ask.form vs elicitInput, schema reused',
      await both(call(ourL, 'reused'), call(sdkL, 'reused')),
      'SDK elicitInput',
      1.0,
    ),
  );
  rows.push(
    throughput(
      g,
      'ask.form vs elicitInput, schema built per call',
      await both(call(ourL, 'fresh'), call(sdkL, 'fresh')),
      'SDK elicitInput',
      5.0,
    ),
  );

  // Heap over 100k calls with a schema object built per call.
  const calls = Number(process.env.BENCH_HEAP_CALLS ?? 100_000);
  for (let i = 0; i < 2000; i++) await ourL.callTool({ name: 'fresh', arguments: {} });
  const before = heapMb();
  for (let i = 0; i < calls; i++) await ourL.callTool({ name: 'fresh', arguments: {} });
  const after = heapMb();
  const growth = ((after - before) / before) * 100;
  rows.push({
    group: g,
    name: `heap growth over ${calls} calls with per-call schemas (${before.toFixed(1)} → ${after.toFixed(1)} MiB${gc === undefined ? ', no --expose-gc' : ''})`,
    value: growth,
    unit: '%',
    target: '≤ +1 % (flat)',
    met: growth <= 1,
  });
  await sdkL.close();
  await ourL.close();

  const sdkM = await modernClient(sdkModern);
  const ourM = await modernClient(() => app.build('modern'));
  const m = 'server: modern in-process (2026-07-28)';
  rows.push(
    throughput(
      m,
      'one round: ask.form vs inputRequired + acceptedContent(zod)',
      await both(call(ourM, 'reused'), call(sdkM, 'reused')),
      'SDK',
      0.95,
    ),
  );
  rows.push(
    throughput(
      m,
      '3-round flow: sealed journal vs createRequestStateCodec',
      await both(call(ourM, 'three'), call(sdkM, 'three')),
      'SDK codec flow',
      2.0,
    ),
  );
  await sdkM.close();
  await ourM.close();
  return rows;
}
