/**
 * The 2026-07-28 path measured beside the plain SDK in one interleaved run: elicit with a server
 * built per request (as before the pool), with the pooled servers httpEntry now uses (product
 * code, src/server/server-pool.ts), and through httpEntry itself; and prototypes that are not
 * product code, each row labelled "prototype":
 *
 * - **A leaner dispatch for tools/call**: the request classified once with the SDK's public
 *   `classifyInboundRequest` and served on a pooled server through the SDK's public
 *   `PerRequestHTTPServerTransport`, instead of through `createMcpHandler`, with nothing else
 *   around it. httpEntry now does this in product code (src/server/lean-call.ts) for the plain
 *   well-formed tools/call, after checking that the request passes the handler's checks by
 *   construction; this prototype skips those checks and httpEntry's own work (the Host/Origin
 *   guard, the body read within its bound), so it is the bound of what that path can buy.
 * - **The SDK handler on one reused server**: the bound of what reuse buys the SDK itself.
 * - **Sealing isolated**: sealing and opening a one-round `requestState` timed alone, in the same
 *   rotation as the whole call it is part of, from the sealer's memory (one process) and by
 *   decrypting (another replica); and each side's server build alone.
 *
 * Sides run in turn A B C … then … C B A (a rotation, ABBA widened to n sides), with a full
 * collection before every slice; each rotation gives one ratio per side against the first, and a
 * row is their median with the range. `npm run bench prototype` runs it; `npm run bench
 * prototype "one round"` or `"3 rounds"` one group.
 */
import {
  classifyInboundRequest,
  createMcpHandler,
  type McpServer,
  PerRequestHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { httpEntry } from '../src/server/http.ts';
import { createSealer, generateKeySecret, RequestBinding } from '../src/server/seal.ts';
import { ServerPool } from '../src/server/server-pool.ts';
import {
  type AbbaResult,
  keep,
  median,
  modernMeta,
  type Row,
  type Slice,
  slice,
  throughputRow,
  toolCallRequest,
  wanted,
} from './harness.ts';
import { app, modernClient, modernClientVia, sdkModern } from './server-cases.ts';

const META = modernMeta('bench');
const REPEATS = Number(process.env.BENCH_REPEATS ?? 9);
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 200);

/**
 * A factory that serves every request from instances it built before (for the SDK handler, as
 * the bound of what reuse buys it). The SDK's handler throws on an instance whose transport is
 * still set, so one that is mid-exchange is skipped and a new one built; with one request in
 * flight (as here) a single instance serves them all.
 */
export function reusing(build: () => McpServer): () => McpServer {
  const pool: McpServer[] = [];
  return () => {
    for (const s of pool) if (s.server.transport === undefined) return s;
    const s = build();
    pool.push(s);
    return s;
  };
}

/**
 * Prototype, not product code: a tools/call classified once (the SDK's public
 * `classifyInboundRequest`) and served on a pooled server through the SDK's public
 * `PerRequestHTTPServerTransport`; everything else goes to `createMcpHandler` on the same pool.
 * What createMcpHandler does that has no public seam is left out (see the top of this file).
 */
export function leanDispatch(build: () => McpServer): (req: Request) => Promise<Response> {
  // Without createMcpHandler, nothing marks a server as serving 2026-07-28: the server's own
  // connect does, from the transport's classification, when its supported versions name the
  // revision. Set here on the private field for the prototype; a product path would pass
  // McpServer's public \`supportedProtocolVersions\` option when building.
  const pool = new ServerPool(() => {
    const mcp = build();
    const low = mcp.server as unknown as { _supportedProtocolVersions: string[] };
    low._supportedProtocolVersions = [...low._supportedProtocolVersions, '2026-07-28'];
    return mcp;
  });
  const handler = createMcpHandler(pool.take, { legacy: 'reject' });
  return async (req) => {
    const parsed = JSON.parse(await req.text()) as unknown;
    const h = req.headers;
    const route = classifyInboundRequest({
      httpMethod: req.method,
      protocolVersionHeader: h.get('mcp-protocol-version') ?? undefined,
      mcpMethodHeader: h.get('mcp-method') ?? undefined,
      mcpNameHeader: h.get('mcp-name') ?? undefined,
      body: parsed,
    } as never);
    if (
      route.kind !== 'modern' ||
      route.messageKind !== 'request' ||
      route.message.method !== 'tools/call'
    )
      return handler.fetch(req, { parsedBody: parsed });
    const mcp = pool.take();
    const transport = new PerRequestHTTPServerTransport({ classification: route.classification });
    await mcp.connect(transport);
    return transport.handleMessage(route.message, { request: req });
  };
}

interface Side {
  readonly name: string;
  readonly run: () => Promise<unknown>;
}

/**
 * Every side in turn, forwards then backwards, `repeats` times. For each side, the ratio of its
 * wall time per call to the first side's, one per rotation, ascending, and its median slice.
 */
async function rotate(
  sides: readonly Side[],
  { repeats = REPEATS, sliceMs = SLICE_MS } = {},
): Promise<Rotation> {
  for (const s of sides) await slice(s.run, sliceMs / 2);
  const ratios: number[][] = sides.map(() => []);
  const cpuRatios: number[][] = sides.map(() => []);
  const cpuPerRotation: number[][] = sides.map(() => []);
  const all: Slice[][] = sides.map(() => []);
  for (let r = 0; r < repeats; r++) {
    const ms = sides.map(() => 0);
    const cpu = sides.map(() => 0);
    const order = [...sides.keys(), ...[...sides.keys()].reverse()];
    for (const i of order) {
      const s = await slice((sides[i] as Side).run, sliceMs);
      (all[i] as Slice[]).push(s);
      ms[i] = (ms[i] as number) + s.ms;
      cpu[i] = (cpu[i] as number) + s.cpuUs;
    }
    for (const i of sides.keys()) {
      (ratios[i] as number[]).push((ms[i] as number) / (ms[0] as number));
      (cpuRatios[i] as number[]).push((cpu[i] as number) / (cpu[0] as number));
      (cpuPerRotation[i] as number[]).push(cpu[i] as number);
    }
  }
  for (const r of [...ratios, ...cpuRatios]) r.sort((a, b) => a - b);
  const slices = all.map((xs) => ({
    ms: median(xs.map((x) => x.ms)),
    cpuUs: median(xs.map((x) => x.cpuUs)),
  }));
  return { ratios, cpuRatios, cpuPerRotation, slices };
}

interface Rotation {
  /** Per side, its wall time per call ÷ the first side's, one per rotation, ascending. */
  readonly ratios: number[][];
  /** The same for CPU time per call: steadier than wall time when other work shares the cores. */
  readonly cpuRatios: number[][];
  /** Per side, its CPU time in each rotation (in rotation order), to pair any two sides. */
  readonly cpuPerRotation: number[][];
  readonly slices: Slice[];
}

/**
 * Side `i` against side 0 of a rotation, in the shape `throughputRow` reads; by CPU time per
 * call when `by` is 'cpu' (the row's CPU column is the same either way).
 */
function against(out: Rotation, i: number, by: 'wall' | 'cpu' = 'wall'): AbbaResult {
  const ratios = (by === 'cpu' ? out.cpuRatios[i] : out.ratios[i]) as number[];
  return {
    ratios,
    ratio: median(ratios),
    ours: out.slices[i] as Slice,
    baseline: out.slices[0] as Slice,
  };
}

/** A comparison as two rows: by wall time, then by CPU time per call, each with its range. */
function both(
  group: string,
  name: string,
  out: Rotation,
  i: number,
  baseline: string,
  goal: number | undefined,
): Row[] {
  return [
    throughputRow(group, name, against(out, i), baseline, goal),
    throughputRow(group, `${name}, by CPU per call`, against(out, i, 'cpu'), baseline, goal),
  ];
}

/**
 * Side `after` against side `before` of the same rotations, by CPU time per call: the median of
 * the rotations' ratios (before ÷ after, so above 1 means `after` costs less) with their range.
 */
function pair(group: string, name: string, out: Rotation, before: number, after: number): Row {
  const b = out.cpuPerRotation[before] as number[];
  const a = out.cpuPerRotation[after] as number[];
  const ratios = b.map((x, r) => x / (a[r] as number)).sort((x, y) => x - y);
  const ratio = median(ratios);
  return {
    group,
    name,
    value: ratio,
    unit: '×',
    ratio,
    range: [ratios[0] as number, ratios[ratios.length - 1] as number],
  };
}

export default async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const one = 'prototype: modern one round (2026-07-28, in-process), rotated';
  const three = 'prototype: modern 3 rounds (2026-07-28, in-process), rotated';
  const server = 'prototype: modern first request, server only (2026-07-28, no client), rotated';
  if (!wanted(one, three, server, 'prototype')) return rows;
  const build = () => app.build('modern');
  type C = Awaited<ReturnType<typeof modernClient>>;
  const sdk = await modernClient(() => sdkModern());
  const perRequest = await modernClient(build);
  const pooled = await modernClient(app.modernServers());
  const entry = httpEntry(app);
  const viaEntry = await modernClientVia((req) => entry.fetch(req), 'http://127.0.0.1/mcp');
  const lean = await modernClientVia(leanDispatch(build));
  const sdkReused = await modernClient(reusing(() => sdkModern()));
  // The SDK's stateless handler served as httpEntry's lean path serves a tools/call.
  const sdkLean = await modernClientVia(leanDispatch(() => sdkModern()));
  const call = (c: C, name: string) => () => c.callTool({ name, arguments: {} });

  // A one-round requestState: one answer, under the binding a request's gate makes.
  const keyring = { keys: [{ id: 'k1', secret: generateKeySecret() }] };
  const audience = 'https://mcp.example.com/mcp';
  const sealer = createSealer({ keyring, audience });
  const replica = createSealer({ keyring, audience, rememberChars: 0 });
  const journal = {
    n: 'Yk3v0b8mQ1t2Zr5xP9wA_g',
    a: { who: { action: 'accept', content: { name: 'Ann', age: 42, color: 'green' } } },
  };
  const binding = () => new RequestBinding('anonymous', 'tools/call', 'reused', {});
  const sealOpen = (opener: typeof sealer) => async () => {
    const b = binding();
    return opener.open(sealer.seal(journal, b, 1), b);
  };

  if (wanted(one, 'one round')) {
    process.stderr.write('  prototype: one round\n');
    const sides: Side[] = [
      { name: 'SDK stateless handler, server built per request', run: call(sdk, 'reused') },
      { name: 'elicit, server built per request (before)', run: call(perRequest, 'reused') },
      { name: 'elicit, pooled servers (product)', run: call(pooled, 'reused') },
      { name: 'elicit through httpEntry (product)', run: call(viaEntry, 'reused') },
      { name: 'elicit, pooled, lean tools/call dispatch (prototype)', run: call(lean, 'reused') },
      { name: 'SDK handler, one server reused (prototype)', run: call(sdkReused, 'reused') },
      { name: 'seal + open from memory, alone', run: sealOpen(sealer) },
      { name: 'seal + open decrypting (another replica), alone', run: sealOpen(replica) },
      { name: 'elicit server build, alone', run: async () => build() },
      { name: 'SDK server build, alone', run: async () => sdkModern() },
    ];
    const out = await rotate(sides);
    const base = 'SDK stateless, built per request';
    const vs = 'vs the SDK stateless handler';
    rows.push(
      ...both(one, `elicit, server built per request (before) ${vs}`, out, 1, base, 0.95),
      ...both(one, `elicit, pooled servers (product) ${vs}`, out, 2, base, 0.95),
      ...both(one, `elicit through httpEntry (product) ${vs}`, out, 3, base, undefined),
      ...both(one, `prototype: elicit pooled, lean tools/call dispatch ${vs}`, out, 4, base, 0.95),
      ...both(
        one,
        'prototype: the SDK handler with one server reused vs itself built per request',
        out,
        5,
        base,
        undefined,
      ),
    );
    rows.push(
      pair(
        one,
        'A/B, CPU: elicit built per request ÷ pooled (above 1: the pool costs less)',
        out,
        1,
        2,
      ),
      pair(one, 'A/B, CPU: elicit pooled ÷ pooled with the lean dispatch (prototype)', out, 2, 4),
      pair(
        one,
        'A/B, CPU: elicit pooled through createMcpHandler ÷ through httpEntry (its lean tools/call path)',
        out,
        2,
        3,
      ),
    );
    const call1 = out.slices[2] as Slice;
    for (const i of [6, 7, 8, 9]) {
      const s = out.slices[i] as Slice;
      rows.push({
        group: one,
        name: `prototype: ${(sides[i] as Side).name}, CPU share of elicit's whole one-round call`,
        value: s.cpuUs * 1e3,
        unit: 'ns/op',
        baseline: { name: 'elicit one-round call (pooled), CPU', value: call1.cpuUs * 1e3 },
        ratio: s.cpuUs / call1.cpuUs,
      });
    }
    // What free sealing would buy at most, from the same rotation, by CPU per call: the pooled
    // side without a decrypting seal and open (timed alone, so warm: inside a request they cost
    // more, see performance.md).
    const cpu = (i: number) => (out.slices[i] as Slice).cpuUs;
    const freeSeal = cpu(0) / (cpu(2) - cpu(7));
    rows.push({
      group: one,
      name: 'prototype, arithmetic: elicit pooled, sealing free (decrypting seal + open taken off), vs the SDK by CPU',
      value: freeSeal,
      unit: '×',
      target: '≥ 0.95×',
      met: freeSeal >= 0.95,
    });
  }

  if (wanted(three, '3 rounds')) {
    process.stderr.write('  prototype: 3 rounds\n');
    const four = (c: C) => async () => {
      await c.callTool({ name: 'reused', arguments: {} });
      return c.callTool({ name: 'reused', arguments: {} });
    };
    // The same four requests as elicit serves them, to a handler that does nothing.
    const fourLean = async () => {
      for (let i = 0; i < 3; i++) await viaEntry.callTool({ name: 'nothing', arguments: {} });
      return viaEntry.callTool({ name: 'nothing', arguments: {} });
    };
    const sides: Side[] = [
      { name: 'SDK codec flow (unbound), built per request', run: call(sdk, 'three') },
      { name: 'elicit, server built per request (before)', run: call(perRequest, 'three') },
      { name: 'elicit, pooled servers (product)', run: call(pooled, 'three') },
      { name: 'elicit, pooled, lean tools/call dispatch (prototype)', run: call(lean, 'three') },
      { name: 'SDK codec flow, one server reused (prototype)', run: call(sdkReused, 'three') },
      { name: 'four stateless SDK requests, built per request', run: four(sdk) },
      { name: 'four stateless SDK requests, one server reused', run: four(sdkReused) },
      { name: 'elicit through httpEntry (product)', run: call(viaEntry, 'three') },
      { name: 'four plain tools/calls through httpEntry (lean path)', run: fourLean },
      { name: 'four stateless SDK requests, lean dispatch', run: four(sdkLean) },
    ];
    const out = await rotate(sides);
    const base = 'SDK codec flow, built per request';
    rows.push(
      ...both(
        three,
        'elicit, server built per request (before) vs the codec flow',
        out,
        1,
        base,
        2.5,
      ),
      ...both(three, 'elicit, pooled servers (product) vs the codec flow', out, 2, base, 2.5),
      ...both(
        three,
        'prototype: elicit pooled, lean tools/call dispatch vs the codec flow',
        out,
        3,
        base,
        2.5,
      ),
      ...both(
        three,
        'prototype: the codec flow with one server reused vs itself built per request',
        out,
        4,
        base,
        undefined,
      ),
      ...both(
        three,
        'the createMcpHandler ceiling: four stateless SDK requests vs the codec flow',
        out,
        5,
        base,
        undefined,
      ),
      ...both(
        three,
        'prototype ceiling: four stateless SDK requests on one reused server vs the codec flow',
        out,
        6,
        base,
        undefined,
      ),
    );
    rows.push(
      pair(
        three,
        'A/B, CPU: elicit built per request ÷ pooled (above 1: the pool costs less)',
        out,
        1,
        2,
      ),
      pair(three, 'A/B, CPU: elicit pooled ÷ pooled with the lean dispatch (prototype)', out, 2, 3),
      pair(
        three,
        'A/B, CPU: elicit pooled through createMcpHandler ÷ through httpEntry (its lean tools/call path)',
        out,
        2,
        7,
      ),
      pair(
        three,
        'A/B, CPU: the lean-path ceiling ÷ elicit through httpEntry (1: elicit at the ceiling)',
        out,
        8,
        7,
      ),
      pair(
        three,
        'A/B, CPU: the lean-path ceiling with the client answering ÷ elicit through httpEntry',
        out,
        9,
        7,
      ),
    );
    rows.push(
      ...both(three, 'elicit through httpEntry (product) vs the codec flow', out, 7, base, 2.5),
      ...both(
        three,
        'the lean-path ceiling: four plain tools/calls through httpEntry vs the codec flow',
        out,
        8,
        base,
        undefined,
      ),
      // Four requests that ask and take the same three questions' worth of client work as the
      // codec flow (two stateless rounds of one question each) with no state, on the lean path.
      ...both(
        three,
        'the lean-path ceiling with the client answering: four stateless SDK requests through the lean dispatch vs the codec flow',
        out,
        9,
        base,
        undefined,
      ),
    );
  }
  if (wanted(server, 'server only')) {
    process.stderr.write('  prototype: server only\n');
    // The same Request each time, straight into each side's fetch: no client, so only the
    // server's work per request is measured (a first round: the call answers input_required).
    const request = toolCallRequest('reused', META);
    const serve = (fetch: (r: Request) => Promise<Response>) => async () =>
      (await fetch(request())).text();
    const handler = (factory: () => McpServer) => {
      const h = createMcpHandler(factory, { legacy: 'reject' });
      return (r: Request) => h.fetch(r);
    };
    const sides: Side[] = [
      { name: 'SDK stateless, built per request', run: serve(handler(() => sdkModern())) },
      { name: 'elicit, built per request (before)', run: serve(handler(build)) },
      { name: 'elicit, pooled servers (product)', run: serve(handler(app.modernServers())) },
      { name: 'elicit through httpEntry (product)', run: serve((r) => entry.fetch(r)) },
      {
        name: 'elicit, pooled, lean tools/call dispatch (prototype)',
        run: serve(leanDispatch(build)),
      },
      {
        name: 'SDK, one server reused (prototype)',
        run: serve(handler(reusing(() => sdkModern()))),
      },
    ];
    // Every side must answer the call itself (input_required), not an error.
    for (const side of sides) {
      const text = String(await side.run());
      if (!text.includes('"input_required"'))
        throw new Error(`${side.name}: ${text.slice(0, 200)}`);
    }
    const out = await rotate(sides);
    const base = 'SDK stateless, built per request';
    rows.push(
      pair(
        server,
        'A/B, CPU: elicit built per request ÷ pooled (above 1: the pool costs less)',
        out,
        1,
        2,
      ),
      pair(
        server,
        'A/B, CPU: elicit pooled ÷ pooled with the lean dispatch (prototype)',
        out,
        2,
        4,
      ),
      pair(
        server,
        'A/B, CPU: SDK built per request ÷ one SDK server reused (prototype)',
        out,
        0,
        5,
      ),
      pair(
        server,
        'A/B, CPU: elicit pooled through createMcpHandler ÷ through httpEntry (its lean tools/call path)',
        out,
        2,
        3,
      ),
    );
    for (const i of [1, 2, 3, 4, 5])
      rows.push(
        ...both(
          server,
          `${(sides[i] as Side).name} vs the SDK stateless handler`,
          out,
          i,
          base,
          undefined,
        ),
      );
  }
  keep(rows);
  for (const c of [sdk, perRequest, pooled, viaEntry, lean, sdkReused, sdkLean]) await c.close();
  await entry.close();
  return rows;
}
