/**
 * The paired server cases, elicit beside the plain SDK 2.4 in one process, each side written in
 * its best documented style. `server.bench.ts` measures them ABBA; `profile.ts` profiles one.
 * - legacy (2025-11-25 session, in memory): `ask.form` vs `ctx.mcpReq.elicitInput`;
 * - modern (2026-07-28, in-process requests through each side's web handler): `ask.form` vs
 *   `inputRequired` + `acceptedContent` (zod), and three rounds vs `createRequestStateCodec`,
 *   the codec created once (hoisted), unbound and bound as the SDK documents.
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
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { choice, form, integer, text } from '../src/schema/index.ts';
import { Withdrawal } from '../src/server/engines/withdrawal.ts';
import { createServer, httpEntry } from '../src/server/index.ts';
import { heapAfterGc } from './harness.ts';

export const SCHEMA = {
  type: 'object' as const,
  properties: {
    name: { type: 'string' as const },
    age: { type: 'integer' as const, minimum: 0, maximum: 150 },
    color: { type: 'string' as const, enum: ['red', 'green', 'blue'] },
  },
  required: ['name'],
};
/** The SDK docs' style: the schema object literal written inside the handler. */
const perCall = () => ({
  ...SCHEMA,
  properties: { ...SCHEMA.properties, name: { type: 'string' as const } },
});
const ANSWER = { name: 'Ann', age: 42, color: 'green' };
const shape = () => ({
  name: text(),
  age: integer({ min: 0, max: 150, optional: true }),
  color: choice(['red', 'green', 'blue'], { optional: true }),
});
export const ours = form(shape());
const Answer = z.object({
  name: z.string(),
  age: z.number().int().min(0).max(150).optional(),
  color: z.enum(['red', 'green', 'blue']).optional(),
});
const text1 = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

/**
 * The plain SDK's 2025 tools. `cancelWithCall` passes the call's signal to `elicitInput`, so the
 * elicitation is cancelled when the call is (as elicit's asks are): the like-for-like baseline.
 */
export function sdkLegacy({ cancelWithCall = false } = {}): McpServer {
  const s = new McpServer({ name: 'sdk', version: '1' });
  s.registerTool('reused', {}, async (ctx) => {
    const r = await ctx.mcpReq.elicitInput(
      { message: 'Who?', requestedSchema: SCHEMA },
      cancelWithCall
        ? { relatedRequestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal }
        : { relatedRequestId: ctx.mcpReq.id },
    );
    return text1(String(r.action));
  });
  s.registerTool('fresh', {}, async (ctx) => {
    const r = await ctx.mcpReq.elicitInput(
      { message: 'Who?', requestedSchema: perCall() },
      { relatedRequestId: ctx.mcpReq.id },
    );
    return text1(String(r.action));
  });
  return s;
}

/**
 * A prototype, not product code: a plain SDK handler doing only what a legacy ask guarantees
 * (the question withdrawn with the call and when the call ends, the answer checked against the
 * form), with no engine, limits or keep-alive: the floor a push ask on the SDK's request path
 * can reach, in time and in memory.
 */
export function guaranteesAlone(): McpServer {
  const s = new McpServer({ name: 'prototype', version: '1' });
  s.registerTool('reused', {}, async (ctx) => {
    const withdrawal = new Withdrawal(ctx.mcpReq.signal);
    try {
      const r = (await ctx.mcpReq.send(
        {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Who?', requestedSchema: SCHEMA },
        },
        { relatedRequestId: ctx.mcpReq.id, timeout: 600_000, signal: withdrawal.signal },
      )) as { action: string; content?: Record<string, unknown> };
      if (r.action === 'accept' && !ours.schema.parse(r.content ?? {}).ok)
        throw new Error('the answer does not fit the form');
      return text1(r.action);
    } finally {
      withdrawal.withdraw('the call has ended');
    }
  });
  return s;
}

export const app = createServer({ name: 'elicit', version: '1' })
  .tool('reused', {}, async (_a, ask) => (await ask.form('who', ours, { message: 'Who?' })).action)
  .tool(
    'fresh',
    {},
    async (_a, ask) => (await ask.form('who', perCall(), { message: 'Who?' })).action,
  )
  .tool(
    'built',
    {},
    async (_a, ask) => (await ask.form('who', form(shape()), { message: 'Who?' })).action,
  )
  // Does nothing: four calls of it are four plain requests on the path elicit serves, the
  // ceiling of the three-round rows (serverCases).
  .tool('nothing', {}, async () => 'done')
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

export async function legacyClient(server: McpServer): Promise<Client> {
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = answering(
    new Client({ name: 'b', version: '1' }, { capabilities: { elicitation: {} } }),
  );
  await client.connect(ct);
  return client;
}

export function modernClient(build: () => McpServer): Promise<Client> {
  const handler = createMcpHandler(build);
  return modernClientVia((req) => handler.fetch(req));
}

/** An SDK client pinned to 2026-07-28 whose requests go straight into `fetch`, in-process. */
export async function modernClientVia(
  fetch: (req: Request) => Promise<Response>,
  url = 'http://bench.local/mcp',
): Promise<Client> {
  const client = answering(
    new Client(
      { name: 'b', version: '1' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    ),
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      // Host as a socket would carry it (httpEntry checks it; a Request names none of itself).
      requestInit: { headers: { host: new URL(url).host } },
      fetch: (u, i) => fetch(new Request(u, i)),
    }),
  );
  return client;
}

type Steps = { step: number; answers: unknown[] };
const KEY = new Uint8Array(32).fill(9);
/** Created once, as the SDK documents: one codec for every request. */
const unbound = createRequestStateCodec<Steps>({ key: KEY, ttlSeconds: 600 });
/** The SDK docs' binding (method and client), plus the tool's name as elicit binds it. */
const bound = createRequestStateCodec<Steps>({
  key: KEY,
  ttlSeconds: 600,
  bind: (ctx) =>
    `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}\0${String((ctx.mcpReq as { params?: { name?: unknown } }).params?.name ?? '')}`,
});

export function sdkModern(codec: RequestStateCodec<Steps> = unbound): McpServer {
  const s = new McpServer(
    { name: 'sdk', version: '1' },
    { requestState: { verify: codec.verify } },
  );
  // The same tools as elicit's app, so both build the same server per request.
  const oneRound =
    (schema: () => typeof SCHEMA) =>
    async (ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
      const a = acceptedContent(ctx.mcpReq.inputResponses, 'who', Answer);
      if (a === undefined)
        return inputRequired({
          inputRequests: {
            who: inputRequired.elicit({ message: 'Who?', requestedSchema: schema() }),
          },
        });
      return text1('accept');
    };
  s.registerTool(
    'reused',
    {},
    oneRound(() => SCHEMA),
  );
  s.registerTool('fresh', {}, oneRound(perCall));
  s.registerTool('nothing', {}, async () => text1('done'));
  s.registerTool('built', {}, oneRound(perCall));
  // One round whose question carries state, as elicit's always does: minted, then verified.
  s.registerTool('stateful', {}, async (ctx): Promise<CallToolResult | InputRequiredResult> => {
    const a = acceptedContent(ctx.mcpReq.inputResponses, 'who', Answer);
    if (a === undefined || ctx.mcpReq.requestState<Steps>() === undefined)
      return inputRequired({
        inputRequests: { who: inputRequired.elicit({ message: 'Who?', requestedSchema: SCHEMA }) },
        requestState: await codec.mint({ step: 0, answers: [] }, ctx),
      });
    return text1('accept');
  });
  s.registerTool('three', {}, async (ctx): Promise<CallToolResult | InputRequiredResult> => {
    const state = ctx.mcpReq.requestState<Steps>() ?? { step: 0, answers: [] };
    const keys = ['one', 'two', 'three'];
    const key = keys[state.step] as string;
    const a =
      state.step === 0 && ctx.mcpReq.inputResponses === undefined
        ? undefined
        : acceptedContent(ctx.mcpReq.inputResponses, key, Answer);
    const next = a === undefined ? state : { step: state.step + 1, answers: [...state.answers, a] };
    if (next.step === 3) return text1('accept');
    const k = keys[next.step] as string;
    return inputRequired({
      inputRequests: { [k]: inputRequired.elicit({ message: k, requestedSchema: SCHEMA }) },
      requestState: await codec.mint(next, ctx),
    });
  });
  return s;
}

export interface PairedCase {
  readonly group: string;
  readonly name: string;
  readonly ours: () => Promise<unknown>;
  readonly baseline: () => Promise<unknown>;
  readonly baselineName: string;
  /**
   * The goal, as a throughput ratio (ours ÷ baseline); none for a reference case, whose "ours"
   * is not elicit but what any server could reach at most.
   */
  readonly minRatio: number | undefined;
}

/** Every paired server case, connected and ready; `close` ends the clients. */
export async function serverCases(): Promise<{ cases: PairedCase[]; close(): Promise<void> }> {
  const sdkL = await legacyClient(sdkLegacy());
  const ourL = await legacyClient(app.build('legacy'));
  const sdkM = await modernClient(() => sdkModern());
  const sdkBound = await modernClient(() => sdkModern(bound));
  // elicit as it is served: through httpEntry (pooled servers, a plain tools/call on its lean
  // path, server/lean-call.ts), against the SDK's stateless handler given the same Request.
  const entry = httpEntry(app);
  const ourM = await modernClientVia((req) => entry.fetch(req), 'http://127.0.0.1/mcp');
  const call = (c: Client, name: string) => () => c.callTool({ name, arguments: {} });
  // One stateless round is two requests (the call, then the call with the answer).
  const fourStateless = async () => {
    await sdkM.callTool({ name: 'reused', arguments: {} });
    return sdkM.callTool({ name: 'reused', arguments: {} });
  };
  // The same four requests as elicit serves them: plain tools/calls through httpEntry's lean
  // path, to a handler that does nothing (no state, no question, no sealing).
  const fourLean = async () => {
    await ourM.callTool({ name: 'nothing', arguments: {} });
    await ourM.callTool({ name: 'nothing', arguments: {} });
    await ourM.callTool({ name: 'nothing', arguments: {} });
    return ourM.callTool({ name: 'nothing', arguments: {} });
  };
  const legacy = 'server: legacy in-memory, 1 in flight';
  const modern = 'server: modern in-process (2026-07-28)';
  const cases: PairedCase[] = [
    {
      group: legacy,
      name: 'ask.form vs elicitInput, schema reused',
      ours: call(ourL, 'reused'),
      baseline: call(sdkL, 'reused'),
      baselineName: 'SDK elicitInput',
      minRatio: 1,
    },
    {
      group: legacy,
      name: 'ask.form vs elicitInput, schema built per call',
      ours: call(ourL, 'fresh'),
      baseline: call(sdkL, 'fresh'),
      baselineName: 'SDK elicitInput',
      minRatio: 5,
    },
    {
      group: modern,
      name: 'one round: ask.form(hoisted form) vs inputRequired + acceptedContent(zod)',
      ours: call(ourM, 'reused'),
      baseline: call(sdkM, 'reused'),
      baselineName: 'SDK',
      minRatio: 0.95,
    },
    {
      group: modern,
      name: 'one round with state: ask.form vs inputRequired + the bound codec’s requestState',
      ours: call(ourM, 'reused'),
      baseline: call(sdkBound, 'stateful'),
      baselineName: 'SDK bound codec',
      minRatio: 1,
    },
    {
      group: modern,
      name: 'one round: ask.form(form() built in the handler) vs the same SDK handler',
      ours: call(ourM, 'built'),
      baseline: call(sdkM, 'reused'),
      baselineName: 'SDK',
      minRatio: 1,
    },
    {
      group: modern,
      name: '3 rounds: sealed journal vs createRequestStateCodec (hoisted, unbound)',
      ours: call(ourM, 'three'),
      baseline: call(sdkM, 'three'),
      baselineName: 'SDK codec flow',
      minRatio: 2.5,
    },
    {
      group: modern,
      name: '3 rounds: sealed journal vs createRequestStateCodec (hoisted, bound)',
      ours: call(ourM, 'three'),
      baseline: call(sdkBound, 'three'),
      baselineName: 'SDK bound codec flow',
      minRatio: 2.5,
    },
    // The ceilings of the two rows above: three rounds are four requests. Served as elicit
    // serves them (httpEntry's lean tools/call path), four requests that do no state work are
    // the most any handler on that path could reach against the codec flow.
    {
      group: modern,
      name: '3 rounds, the lean-path ceiling: four plain tools/calls through httpEntry vs the codec flow (unbound)',
      ours: fourLean,
      baseline: call(sdkM, 'three'),
      baselineName: 'SDK codec flow',
      minRatio: undefined,
    },
    {
      group: modern,
      name: '3 rounds, the lean-path ceiling: four plain tools/calls through httpEntry vs the codec flow (bound)',
      ours: fourLean,
      baseline: call(sdkBound, 'three'),
      baselineName: 'SDK bound codec flow',
      minRatio: undefined,
    },
    // The ceiling through createMcpHandler (the SDK's own request path, as elicit served every
    // request before the lean path): no server there costs less per request than the SDK's
    // stateless handler, and four such requests make three rounds.
    {
      group: modern,
      name: '3 rounds, the createMcpHandler ceiling: four stateless SDK requests vs the codec flow (unbound)',
      ours: fourStateless,
      baseline: call(sdkM, 'three'),
      baselineName: 'SDK codec flow',
      minRatio: undefined,
    },
    {
      group: modern,
      name: '3 rounds, the createMcpHandler ceiling: four stateless SDK requests vs the codec flow (bound)',
      ours: fourStateless,
      baseline: call(sdkBound, 'three'),
      baselineName: 'SDK bound codec flow',
      minRatio: undefined,
    },
  ];
  return {
    cases,
    async close() {
      for (const c of [sdkL, ourL, sdkM, sdkBound, ourM]) await c.close();
      await entry.close();
    },
  };
}

/**
 * Heap per ask waiting on a 2025 session, in one process: `count` calls of `tool` on `server`,
 * through an SDK client that never answers, measured once every elicitation has arrived. KiB.
 */
export async function heapPerWaitingAsk(
  server: McpServer,
  tool: string,
  count: number,
): Promise<number> {
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: 'b', version: '1' }, { capabilities: { elicitation: {} } });
  let asked = 0;
  client.setRequestHandler('elicitation/create', () => {
    asked++;
    return new Promise<never>(() => {});
  });
  await client.connect(ct);
  const before = heapAfterGc();
  const calls = Array.from({ length: count }, () =>
    client.callTool({ name: tool, arguments: {} }, { timeout: 600_000 }).catch(() => {}),
  );
  while (asked < count) await new Promise((r) => setTimeout(r, 10));
  const per = (heapAfterGc() - before) / count / 1024;
  await client.close();
  await Promise.all(calls);
  return per;
}
