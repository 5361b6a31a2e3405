/**
 * elicit/server beside the plain SDK, in one process: the paired cases of server-cases.ts
 * measured ABBA (ratios are throughput, ours ÷ SDK, higher is better, with their range and CPU per
 * call), memory per waiting ask (10 000 in one process, 1 000 in a server process over HTTP),
 * heap retained over many calls with per-call schemas, and how the cost scales with rounds and
 * with form size.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { form, text } from '../src/schema/index.ts';
import { createServer } from '../src/server/index.ts';
import { freePort, startProcess, stop } from '../test/support/processes.ts';
import { openSession, type RawReply, rawCall, rawInitialize } from '../test/support/raw-mcp.ts';
import { abba, heapAfterGc, type Row, throughputRow, timeAsyncMs, wanted } from './harness.ts';
import {
  guaranteesAlone,
  heapPerWaitingAsk,
  legacyClient,
  modernClient,
  ours,
  SCHEMA,
  sdkLegacy,
  serverCases,
} from './server-cases.ts';

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => heapAfterGc() / 1_048_576;

/** Asks waiting over HTTP (each holds a socket). */
const WAITING = Number(process.env.BENCH_WAITING ?? 1000);
/** Asks waiting in one process. */
const PENDING = Number(process.env.BENCH_PENDING ?? 10_000);
const KIB = 1024;

/** Heap of a server process per waiting ask (and per idle session), over HTTP with raw sockets. */
async function waitingOverHttp(
  kind: 'elicit' | 'sdk' | 'sdk-resumable',
): Promise<{ ask: number; session: number }> {
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

function memoryRow(
  group: string,
  name: string,
  ours: number,
  sdk: number,
  sdkName = 'plain SDK',
): Row {
  return {
    group,
    name,
    value: ours,
    unit: 'KiB',
    baseline: { name: sdkName, value: sdk },
    ratio: ours / sdk,
    target: '≤ 1.00× SDK',
    met: ours <= sdk,
  };
}

/**
 * Scale on 2026-07-28: time per round as a handler asks 1, 3 and 9 forms in turn (every round
 * replays the earlier asks from the journal; the SDK client follows 10 rounds at most), and per
 * call as one form has 1, 10 and 40 fields. Linear: a flat cost per round, a constant per field.
 */
async function scale(): Promise<Row[]> {
  const textForm = (n: number) =>
    form(Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, text()])));
  const one = textForm(1);
  let app = createServer({ name: 'scale', version: '1' });
  for (const n of ROUNDS)
    app = app.tool(`rounds${n}`, {}, async (_a, ask) => {
      for (let i = 0; i < n; i++) await ask.form(`k${i}`, one, { message: `${i}` });
      return 'done';
    });
  for (const n of FIELDS) {
    const f = textForm(n);
    app = app.tool(`fields${n}`, {}, async (_a, ask) => (await ask.form('k', f)).action);
  }
  const client = await modernClient(() => app.build('modern'));
  // Fills every field the form has.
  client.setRequestHandler('elicitation/create', async (req) => ({
    action: 'accept',
    content: Object.fromEntries(
      Object.keys(
        (req.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ??
          {},
      ).map((k) => [k, 'x']),
    ),
  }));
  const call = (name: string) => () => client.callTool({ name, arguments: {} });
  const group = 'server: scale (2026-07-28, in-process)';
  const rows: Row[] = [];
  const perRound = new Map<number, number>();
  for (const n of ROUNDS) {
    // n asks: n + 1 requests.
    const ms = await timeAsyncMs(call(`rounds${n}`), 1500);
    perRound.set(n, ms / (n + 1));
    rows.push({
      group,
      name: `${n} form${n === 1 ? '' : 's'} in turn: per request`,
      value: (ms / (n + 1)) * 1e6,
      unit: 'ns/op',
    });
  }
  const first = perRound.get(ROUNDS[0] as number) as number;
  const last = perRound.get(ROUNDS[ROUNDS.length - 1] as number) as number;
  rows.push({
    group,
    name: `per-request cost at ${ROUNDS[ROUNDS.length - 1]} forms ÷ at ${ROUNDS[0]} (1.00 is linear in rounds)`,
    value: last / first,
    unit: '×',
    target: '≤ 1.50',
    met: last / first <= 1.5,
  });
  const perCall = new Map<number, number>();
  for (const n of FIELDS) {
    const ms = await timeAsyncMs(call(`fields${n}`), 1500);
    perCall.set(n, ms);
    rows.push({
      group,
      name: `one form of ${n} field${n === 1 ? '' : 's'}`,
      value: ms * 1e6,
      unit: 'ns/op',
    });
  }
  const lo = FIELDS[0] as number;
  const hi = FIELDS[FIELDS.length - 1] as number;
  rows.push({
    group,
    name: `each field beyond the first (${lo} → ${hi} fields)`,
    value: (((perCall.get(hi) as number) - (perCall.get(lo) as number)) / (hi - lo)) * 1e6,
    unit: 'ns/op',
  });
  await client.close();
  return rows;
}
const ROUNDS = [1, 3, 9];
const FIELDS = [1, 10, 40];

export default async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const w = 'server: memory per waiting ask (nobody answers)';
  if (wanted(w, 'memory', 'idle legacy session')) rows.push(...(await memory(w)));
  const { cases, close } = await serverCases();
  for (const c of cases) {
    if (!wanted(c.group, c.name)) continue;
    process.stderr.write(`  ${c.name}\n`);
    rows.push(
      throughputRow(c.group, c.name, await abba(c.ours, c.baseline), c.baselineName, c.minRatio),
    );
  }
  await close();
  if (wanted('heap retained')) rows.push(await retained());
  if (wanted('scale')) rows.push(...(await scale()));
  return rows;
}

/** Memory per waiting ask, in one process and over HTTP, and per idle 2025 session. */
async function memory(w: string): Promise<Row[]> {
  const rows: Row[] = [];
  const many = 1_000_000;
  const waitingApp = () =>
    createServer({
      name: 'elicit',
      version: '1',
      limits: { maxPendingPerSession: many, maxPendingPerPrincipal: many, maxPending: many },
    })
      .tool('reused', {}, async (_a, ask) => (await ask.form('who', ours)).action)
      .build('legacy');
  // Each side runs a first batch that is not counted: what a process allocates once (compiled
  // code, caches) would otherwise land on whichever side is measured first.
  const steady = async (make: () => McpServer) => {
    await heapPerWaitingAsk(make(), 'reused', Math.ceil(PENDING / 10));
    return heapPerWaitingAsk(make(), 'reused', PENDING);
  };
  const inMemory = await steady(waitingApp);
  rows.push(
    memoryRow(
      w,
      `legacy in-memory, ${PENDING} waiting, server + SDK client in one process`,
      inMemory,
      await steady(() => sdkLegacy()),
    ),
  );
  rows.push(
    memoryRow(
      w,
      `legacy in-memory, ${PENDING} waiting, beside an SDK handler whose elicitation is cancelled with its call`,
      inMemory,
      await steady(() => sdkLegacy({ cancelWithCall: true })),
      'SDK elicitInput + signal',
    ),
  );
  rows.push(
    memoryRow(
      w,
      `prototype (not product code): a plain SDK handler with only a legacy ask's guarantees, ${PENDING} waiting, beside the plain SDK`,
      await steady(guaranteesAlone),
      await steady(() => sdkLegacy()),
    ),
  );
  const oursHttp = await waitingOverHttp('elicit');
  const sdkHttp = await waitingOverHttp('sdk');
  const resumableHttp = await waitingOverHttp('sdk-resumable');
  rows.push(
    memoryRow(w, `over HTTP, ${WAITING} waiting (server process)`, oursHttp.ask, sdkHttp.ask),
  );
  rows.push(
    memoryRow(
      w,
      `over HTTP, ${WAITING} waiting (server process), beside a resumable SDK session`,
      oursHttp.ask,
      resumableHttp.ask,
      'SDK with an event store',
    ),
  );
  rows.push(
    memoryRow(
      w,
      'idle legacy session over HTTP (server process)',
      oursHttp.session,
      sdkHttp.session,
    ),
  );

  return rows;
}

async function retained(): Promise<Row> {
  // Heap retained over many calls that each build their schema object: the compile cache is
  // keyed by content, so it must stay flat. Bytes per call; a little below zero is GC noise.
  const ourL = await legacyClient(
    createServer({ name: 'elicit', version: '1' })
      .tool(
        'fresh',
        {},
        async (_a, ask) =>
          (await ask.form('who', { ...SCHEMA, properties: { ...SCHEMA.properties } })).action,
      )
      .build('legacy'),
  );
  const calls = Number(process.env.BENCH_HEAP_CALLS ?? 100_000);
  for (let i = 0; i < 2000; i++) await ourL.callTool({ name: 'fresh', arguments: {} });
  const before = heapMb();
  for (let i = 0; i < calls; i++) await ourL.callTool({ name: 'fresh', arguments: {} });
  const after = heapMb();
  const perCall = ((after - before) * 1_048_576) / calls;
  await ourL.close();
  return {
    group: 'server: legacy in-memory, 1 in flight',
    name: `heap retained per call over ${calls} calls with per-call schemas (${before.toFixed(1)} → ${after.toFixed(1)} MiB${gc === undefined ? ', no --expose-gc' : ''})`,
    value: perCall,
    unit: 'B/call',
    target: '≤ 16 B/call (flat)',
    met: perCall <= 16,
  };
}
