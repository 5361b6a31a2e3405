/**
 * `node --expose-gc bench/legacy-ab.ts [earlier-src-dir]`: one legacy form (schema reused,
 * in-process client and server) on four or five sides in one rotation, A B C D … then … D C B A,
 * each slice a fixed number of calls after a full collection, timed by wall clock and by the CPU
 * time of the main thread (`process.threadCpuUsage`, which the collector's and compiler's
 * helper threads do not blur). Each rotation gives each side's ratio against the plain SDK; a
 * row is the median of the rotations' ratios with their range.
 *
 * - elicit: `ask.form` as this tree builds it;
 * - the SDK's `elicitInput`, plain and given the call's signal (cancelled with the call);
 * - a prototype, not product code: a plain SDK handler doing only what a legacy ask guarantees
 *   (the question withdrawn with the call and when the call ends, the answer checked against
 *   the form), with no engine, limits or keep-alive: the floor a push ask on the SDK's request
 *   path can reach;
 * - with `earlier-src-dir` (a `src/` of another commit: `git archive <commit> src | tar -x -C
 *   /tmp/before`, then pass `/tmp/before/src`), elicit as that commit built it.
 *
 * Knobs: `BENCH_AB_CALLS` per slice (200), `BENCH_AB_ROTATIONS` (30).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import type { McpServer } from '@modelcontextprotocol/server';
import { printTable } from '../scripts/table.ts';
import { median } from './harness.ts';
import { guaranteesAlone, legacyClient, sdkLegacy } from './server-cases.ts';

const CALLS = Number(process.env.BENCH_AB_CALLS ?? 200);
const ROTATIONS = Number(process.env.BENCH_AB_ROTATIONS ?? 30);
const earlier = process.argv[2];

type Ask = { form(key: string, f: unknown, o?: object): Promise<{ action: string }> };
type ElicitModule = {
  createServer(o: object): {
    tool(
      n: string,
      c: object,
      h: (a: unknown, ask: Ask) => Promise<string>,
    ): {
      build(era: 'legacy'): McpServer;
    };
  };
};
type SchemaModule = {
  form(shape: object): unknown;
  text(): unknown;
  integer(o: object): unknown;
  choice(values: string[], o: object): unknown;
};

/** elicit's app from a `src/` directory (its URL): the one tool of the paired case, its form built there. */
async function elicitFrom(base: string): Promise<McpServer> {
  const server = (await import(`${base}/server/index.ts`)) as ElicitModule;
  const s = (await import(`${base}/schema/index.ts`)) as SchemaModule;
  const f = s.form({
    name: s.text(),
    age: s.integer({ min: 0, max: 150, optional: true }),
    color: s.choice(['red', 'green', 'blue'], { optional: true }),
  });
  return server
    .createServer({ name: 'elicit', version: '1' })
    .tool('reused', {}, async (_a, ask) => (await ask.form('who', f, { message: 'Who?' })).action)
    .build('legacy');
}

const call = (c: Client) => () => c.callTool({ name: 'reused', arguments: {} });
const sides: { name: string; run: () => Promise<unknown> }[] = [
  { name: 'SDK elicitInput', run: call(await legacyClient(sdkLegacy())) },
  {
    name: 'elicit ask.form',
    run: call(await legacyClient(await elicitFrom(new URL('../src', import.meta.url).href))),
  },
  {
    name: 'SDK elicitInput + the call’s signal',
    run: call(await legacyClient(sdkLegacy({ cancelWithCall: true }))),
  },
  { name: 'prototype: the guarantees alone', run: call(await legacyClient(guaranteesAlone())) },
];
if (earlier !== undefined)
  sides.push({
    name: `elicit at ${earlier}`,
    run: call(await legacyClient(await elicitFrom(pathToFileURL(resolve(earlier)).href))),
  });

interface Cost {
  wall: number;
  cpu: number;
}
async function slice(run: () => Promise<unknown>): Promise<Cost> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 5));
  const cpu = process.threadCpuUsage();
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) await run();
  const used = process.threadCpuUsage(cpu);
  return { wall: (performance.now() - start) / CALLS, cpu: (used.user + used.system) / CALLS };
}

for (const s of sides) await slice(s.run);
const wall = sides.map(() => [] as number[]);
const cpu = sides.map(() => [] as number[]);
const cpuUs = sides.map(() => [] as number[]);
for (let r = 0; r < ROTATIONS; r++) {
  const costs = sides.map(() => ({ wall: 0, cpu: 0 }));
  const order = [...sides.keys(), ...[...sides.keys()].reverse()];
  for (const i of order) {
    const c = await slice((sides[i] as (typeof sides)[number]).run);
    const t = costs[i] as Cost;
    t.wall += c.wall / 2;
    t.cpu += c.cpu / 2;
  }
  const sdk = costs[0] as Cost;
  costs.forEach((c, i) => {
    wall[i]?.push(sdk.wall / c.wall);
    cpu[i]?.push(sdk.cpu / c.cpu);
    cpuUs[i]?.push(c.cpu);
  });
}
const range = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${median(s).toFixed(2)}× (${(s[0] as number).toFixed(2)}–${(s[s.length - 1] as number).toFixed(2)})`;
};
console.log(
  `legacy form, schema reused: throughput ÷ the plain SDK's, median of ${ROTATIONS} rotations of ${CALLS} calls a slice (range)\n`,
);
printTable(
  ['side', 'wall', 'main-thread CPU', 'CPU µs/call'] as const,
  sides.map((s, i) => ({
    side: s.name,
    wall: range(wall[i] as number[]),
    'main-thread CPU': range(cpu[i] as number[]),
    'CPU µs/call': median(cpuUs[i] as number[]).toFixed(0),
  })),
);
