/**
 * Prototypes of the best alternatives on the 2026-07-28 path, measured beside today's path and
 * the plain SDK in one interleaved run. Nothing here is product code: each row labelled
 * "prototype" says what a change would buy before it is made.
 *
 * - **No per-request server build**: the factory handed to the SDK's `createMcpHandler` returns
 *   an `McpServer` it built before, once that instance's last exchange has closed (the SDK
 *   refuses an instance still serving), instead of building one per request. Run for elicit's
 *   app and, as the bound of what the change can buy, for the plain SDK handler too.
 * - **Sealing isolated**: sealing and opening a one-round `requestState` timed alone, in the same
 *   rotation as the whole call it is part of, from the sealer's memory (one process) and by
 *   decrypting (another replica).
 *
 * Sides run in turn A B C … then … C B A (a rotation, ABBA widened to n sides), with a full
 * collection before every slice; each rotation gives one ratio per side against the first, and a
 * row is their median with the range. `npm run bench prototype` runs it; `npm run bench
 * prototype "one round"` or `"3 rounds"` one group.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { createSealer, generateKeySecret, RequestBinding } from '../src/server/seal.ts';
import {
  type AbbaResult,
  keep,
  median,
  type Row,
  type Slice,
  slice,
  throughputRow,
  wanted,
} from './harness.ts';
import { app, modernClient, sdkModern } from './server-cases.ts';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 9);
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 200);

/**
 * A factory that serves every request from instances it built before. The SDK's handler throws
 * on an instance whose transport is still set, so one that is mid-exchange is skipped and a new
 * one built; with one request in flight (as here) a single instance serves them all.
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
    }
  }
  for (const r of [...ratios, ...cpuRatios]) r.sort((a, b) => a - b);
  const slices = all.map((xs) => ({
    ms: median(xs.map((x) => x.ms)),
    cpuUs: median(xs.map((x) => x.cpuUs)),
  }));
  return { ratios, cpuRatios, slices };
}

interface Rotation {
  /** Per side, its wall time per call ÷ the first side's, one per rotation, ascending. */
  readonly ratios: number[][];
  /** The same for CPU time per call: steadier than wall time when other work shares the cores. */
  readonly cpuRatios: number[][];
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

export default async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const one = 'prototype: modern one round (2026-07-28, in-process), rotated';
  const three = 'prototype: modern 3 rounds (2026-07-28, in-process), rotated';
  if (!wanted(one, three, 'prototype')) return rows;
  const build = () => app.build('modern');
  const sdk = await modernClient(() => sdkModern());
  const ours = await modernClient(build);
  const oursReused = await modernClient(reusing(build));
  const sdkReused = await modernClient(reusing(() => sdkModern()));
  const call = (c: Awaited<ReturnType<typeof modernClient>>, name: string) => () =>
    c.callTool({ name, arguments: {} });

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
      { name: 'elicit today, server built per request', run: call(ours, 'reused') },
      { name: 'elicit, one server reused (prototype)', run: call(oursReused, 'reused') },
      { name: 'SDK handler, one server reused (prototype)', run: call(sdkReused, 'reused') },
      { name: 'seal + open from memory, alone', run: sealOpen(sealer) },
      { name: 'seal + open decrypting (another replica), alone', run: sealOpen(replica) },
      { name: 'elicit server build, alone', run: async () => build() },
      { name: 'SDK server build, alone', run: async () => sdkModern() },
    ];
    const out = await rotate(sides);
    const base = 'SDK stateless, built per request';
    rows.push(
      ...both(one, 'elicit today vs the SDK stateless handler', out, 1, base, 0.95),
      ...both(
        one,
        'prototype: elicit with one server reused vs the SDK stateless handler',
        out,
        2,
        base,
        0.95,
      ),
      ...both(
        one,
        'prototype: the SDK handler with one server reused vs itself built per request',
        out,
        3,
        base,
        undefined,
      ),
    );
    const call1 = out.slices[1] as Slice;
    for (const i of [4, 5, 6, 7]) {
      const s = out.slices[i] as Slice;
      rows.push({
        group: one,
        name: `prototype: ${(sides[i] as Side).name}, CPU share of elicit's whole one-round call`,
        value: s.cpuUs * 1e3,
        unit: 'ns/op',
        baseline: { name: 'elicit one-round call, CPU', value: call1.cpuUs * 1e3 },
        ratio: s.cpuUs / call1.cpuUs,
      });
    }
    // What free sealing would buy at most, from the same rotation, by CPU per call: the reused
    // side without a decrypting seal and open (timed alone, so warm: inside a request they cost
    // more, see performance.md).
    const cpu = (i: number) => (out.slices[i] as Slice).cpuUs;
    const freeSeal = cpu(0) / (cpu(2) - cpu(5));
    rows.push({
      group: one,
      name: 'prototype, arithmetic: elicit reused, sealing free (decrypting seal + open taken off), vs the SDK by CPU',
      value: freeSeal,
      unit: '×',
      target: '≥ 0.95×',
      met: freeSeal >= 0.95,
    });
  }

  if (wanted(three, '3 rounds')) {
    process.stderr.write('  prototype: 3 rounds\n');
    const four = (c: Awaited<ReturnType<typeof modernClient>>) => async () => {
      await c.callTool({ name: 'reused', arguments: {} });
      return c.callTool({ name: 'reused', arguments: {} });
    };
    const sides: Side[] = [
      { name: 'SDK codec flow (unbound), built per request', run: call(sdk, 'three') },
      { name: 'elicit today', run: call(ours, 'three') },
      { name: 'elicit, one server reused (prototype)', run: call(oursReused, 'three') },
      { name: 'SDK codec flow, one server reused (prototype)', run: call(sdkReused, 'three') },
      { name: 'four stateless SDK requests, built per request', run: four(sdk) },
      { name: 'four stateless SDK requests, one server reused', run: four(sdkReused) },
    ];
    const out = await rotate(sides);
    const base = 'SDK codec flow, built per request';
    rows.push(
      ...both(three, 'elicit today vs the codec flow', out, 1, base, 2.5),
      ...both(
        three,
        'prototype: elicit with one server reused vs the codec flow',
        out,
        2,
        base,
        2.5,
      ),
      ...both(
        three,
        'prototype: the codec flow with one server reused vs itself built per request',
        out,
        3,
        base,
        undefined,
      ),
      ...both(
        three,
        'the ceiling: four stateless SDK requests vs the codec flow',
        out,
        4,
        base,
        undefined,
      ),
      ...both(
        three,
        'prototype ceiling: four stateless SDK requests on one reused server vs the codec flow',
        out,
        5,
        base,
        undefined,
      ),
    );
  }
  keep(rows);
  for (const c of [sdk, ours, oursReused, sdkReused]) await c.close();
  return rows;
}
