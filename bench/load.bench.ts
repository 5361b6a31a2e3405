/**
 * `npm run bench load`: an HTTP load test of a plain tool call with 1, 20 and 100 concurrent
 * clients on both eras, elicit and the plain SDK each in its own server process
 * (bench/load-server.ts), the clients raw `fetch` in this process so both sides meet the same
 * client. Each level runs elicit, SDK, SDK, elicit (ABBA) for a fixed time, repeated; rows give
 * the median throughput ratio with its range, p50 and p99 latency, the server's CPU per call
 * (read from the server process) and its heap after the load. 2025 sessions are compared with
 * the plain SDK wiring and with the SDK made resumable as elicit's sessions are.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort, startProcess, stop } from '../test/support/processes.ts';
import { median, modernMeta, type Row, wanted } from './harness.ts';

const SLICE_MS = Number(process.env.BENCH_LOAD_MS ?? 750);
const LEVELS = [1, 20, 100];
const REPEATS = Number(process.env.BENCH_LOAD_REPEATS ?? 3);
const MODERN_META = modernMeta('load', {});

type Era = 'modern' | 'legacy';
interface Side {
  readonly url: URL;
  readonly child: ChildProcess;
}

const headers = (era: Era, method: string, sid?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...(era === 'modern'
    ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': 'hello' }
    : { 'mcp-protocol-version': '2025-11-25' }),
  ...(sid === undefined ? {} : { 'mcp-session-id': sid }),
});

async function openSession(url: URL): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: headers('legacy', 'initialize'),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'load', version: '1' },
      },
    }),
  });
  await res.text();
  const sid = res.headers.get('mcp-session-id');
  if (sid === null) throw new Error(`no session from ${url}`);
  await (
    await fetch(url, {
      method: 'POST',
      headers: headers('legacy', 'notifications/initialized', sid),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text();
  return sid;
}

async function call(url: URL, era: Era, id: number, sid?: string, tool = 'hello'): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      ...headers(era, 'tools/call', sid),
      ...(era === 'modern' ? { 'mcp-name': tool } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: tool, arguments: {}, ...(era === 'modern' ? { _meta: MODERN_META } : {}) },
    }),
  });
  const text = await res.text();
  if (!text.includes(tool === 'hello' ? 'hello' : 'text'))
    throw new Error(`bad reply: ${text.slice(0, 200)}`);
  return text;
}

/** `clients` loops of calls for SLICE_MS: latencies in ms. */
async function slice(side: Side, era: Era, clients: number, sids: string[]): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + SLICE_MS;
  let id = 1;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await call(side.url, era, id++, era === 'legacy' ? sids[c] : undefined);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;

async function numberOf(side: Side, era: Era, tool: string, sid?: string): Promise<number> {
  const text = await call(side.url, era, 9_999_999, sid, tool);
  const m = /"text":"(\d+)"/.exec(text.replaceAll('\\"', '"'));
  return Number(m?.[1]);
}
const heapOf = async (side: Side, era: Era, sid?: string) =>
  (await numberOf(side, era, 'heap', sid)) / 1_048_576;

/** A slice with the server's CPU time per call it took (µs), read from the server itself. */
async function measured(
  side: Side,
  era: Era,
  clients: number,
  sids: string[],
): Promise<{ latencies: number[]; cpuUs: number }> {
  const before = await numberOf(side, era, 'cpu', sids[0]);
  const latencies = await slice(side, era, clients, sids);
  const after = await numberOf(side, era, 'cpu', sids[0]);
  return { latencies, cpuUs: (after - before) / latencies.length };
}

async function start(kind: 'elicit' | 'sdk' | 'sdk-resumable'): Promise<Side> {
  const port = await freePort();
  const child = await startProcess('bench/load-server.ts', [kind, String(port)], ['--expose-gc']);
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), child };
}

export default async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const ours = await start('elicit');
  const plain = await start('sdk');
  const resumable = await start('sdk-resumable');
  // 2025 sessions are resumable on elicit (every stream primed, its events kept): beside the
  // plain SDK wiring, the SDK with its own example event store does the same work.
  const baselines = {
    modern: [{ side: plain, name: 'plain SDK' }],
    legacy: [
      { side: plain, name: 'plain SDK' },
      { side: resumable, name: 'SDK with an event store (resumable, as elicit)' },
    ],
  };
  try {
    for (const era of ['modern', 'legacy'] as const) {
      const eraName = era === 'modern' ? '2026-07-28' : '2025-11-25 sessions';
      const group = `http load (${eraName})`;
      const levelName = (clients: number) => `${clients} client${clients === 1 ? '' : 's'}`;
      const todo = (clients: number, sdkName: string) =>
        wanted(`http load ${eraName} ${levelName(clients)} vs ${sdkName}`);
      if (!baselines[era].some(({ name }) => LEVELS.some((c) => todo(c, name)))) continue;
      const max = Math.max(...LEVELS);
      const sessionsOf = (side: Side) =>
        era === 'legacy'
          ? Promise.all(Array.from({ length: max }, () => openSession(side.url)))
          : Promise.resolve([]);
      const oursSessions = await sessionsOf(ours);
      await slice(ours, era, 4, oursSessions);
      for (const { side: sdk, name: sdkName } of baselines[era]) {
        if (!LEVELS.some((c) => todo(c, sdkName))) continue;
        const sdkSessions = await sessionsOf(sdk);
        await slice(sdk, era, 4, sdkSessions);
        const sessions = { ours: oursSessions, sdk: sdkSessions };
        for (const clients of LEVELS) {
          if (!todo(clients, sdkName)) continue;
          // ABBA, repeated: one throughput ratio per repeat; latencies and CPU pooled.
          const a: number[] = [];
          const b: number[] = [];
          const cpuA: number[] = [];
          const cpuB: number[] = [];
          const ratios: number[] = [];
          for (let r = 0; r < REPEATS; r++) {
            const a1 = await measured(ours, era, clients, sessions.ours);
            const b1 = await measured(sdk, era, clients, sessions.sdk);
            const b2 = await measured(sdk, era, clients, sessions.sdk);
            const a2 = await measured(ours, era, clients, sessions.ours);
            ratios.push(
              (a1.latencies.length + a2.latencies.length) /
                (b1.latencies.length + b2.latencies.length),
            );
            a.push(...a1.latencies, ...a2.latencies);
            b.push(...b1.latencies, ...b2.latencies);
            cpuA.push(a1.cpuUs, a2.cpuUs);
            cpuB.push(b1.cpuUs, b2.cpuUs);
          }
          a.sort((x, y) => x - y);
          b.sort((x, y) => x - y);
          ratios.sort((x, y) => x - y);
          const rate = (n: number) => n / ((2 * REPEATS * SLICE_MS) / 1000);
          const heapOurs = await heapOf(ours, era, sessions.ours[0]);
          const heapSdk = await heapOf(sdk, era, sessions.sdk[0]);
          const ratio = median(ratios);
          rows.push({
            group,
            name: `${levelName(clients)}: p50 ${pct(a, 50).toFixed(2)} / p99 ${pct(a, 99).toFixed(2)} ms vs SDK ${pct(b, 50).toFixed(2)} / ${pct(b, 99).toFixed(2)} ms; heap ${heapOurs.toFixed(1)} vs ${heapSdk.toFixed(1)} MiB`,
            value: rate(a.length),
            unit: 'calls/s',
            baseline: { name: sdkName, value: rate(b.length) },
            ratio,
            range: [ratios[0] as number, ratios[ratios.length - 1] as number],
            cpu: { ours: median(cpuA), baseline: median(cpuB) },
            target: '≥ 1.00× SDK throughput',
            met: ratio >= 1,
          });
        }
      }
    }
  } finally {
    await stop(ours.child);
    await stop(plain.child);
    await stop(resumable.child);
  }
  return rows;
}
