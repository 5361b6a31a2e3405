/**
 * `npm run bench load`: an HTTP load test of a plain tool call with 1, 20 and 100 concurrent
 * clients on both eras, elicit and the plain SDK each in its own server process
 * (bench/load-server.ts), the clients raw `fetch` in this process so both sides meet the same
 * client. Each level runs elicit, SDK, SDK, elicit (ABBA) for a fixed time; rows give
 * throughput, p50 and p99 latency and the server's heap after the load.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort, startProcess, stop } from '../test/support/processes.ts';
import type { Row } from './harness.ts';

const SLICE_MS = Number(process.env.BENCH_LOAD_MS ?? 750);
const LEVELS = [1, 20, 100];
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'load', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

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

async function heapOf(side: Side, era: Era, sid?: string): Promise<number> {
  const text = await call(side.url, era, 9_999_999, sid, 'heap');
  const m = /"text":"(\d+)"/.exec(text.replaceAll('\\"', '"'));
  return Number(m?.[1]) / 1_048_576;
}

async function start(kind: 'elicit' | 'sdk'): Promise<Side> {
  const port = await freePort();
  const child = await startProcess('bench/load-server.ts', [kind, String(port)], ['--expose-gc']);
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), child };
}

export default async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const ours = await start('elicit');
  const sdk = await start('sdk');
  try {
    for (const era of ['modern', 'legacy'] as const) {
      const max = Math.max(...LEVELS);
      const sessions = {
        ours:
          era === 'legacy'
            ? await Promise.all(Array.from({ length: max }, () => openSession(ours.url)))
            : [],
        sdk:
          era === 'legacy'
            ? await Promise.all(Array.from({ length: max }, () => openSession(sdk.url)))
            : [],
      };
      // Warm both.
      await slice(ours, era, 4, sessions.ours);
      await slice(sdk, era, 4, sessions.sdk);
      for (const clients of LEVELS) {
        const a: number[] = [];
        const b: number[] = [];
        a.push(...(await slice(ours, era, clients, sessions.ours)));
        b.push(...(await slice(sdk, era, clients, sessions.sdk)));
        b.push(...(await slice(sdk, era, clients, sessions.sdk)));
        a.push(...(await slice(ours, era, clients, sessions.ours)));
        a.sort((x, y) => x - y);
        b.sort((x, y) => x - y);
        const rate = (n: number) => n / ((2 * SLICE_MS) / 1000);
        const heapOurs = await heapOf(ours, era, sessions.ours[0]);
        const heapSdk = await heapOf(sdk, era, sessions.sdk[0]);
        rows.push({
          group: `http load (${era === 'modern' ? '2026-07-28' : '2025-11-25 sessions'})`,
          name: `${clients} client${clients === 1 ? '' : 's'}: p50 ${pct(a, 50).toFixed(2)} / p99 ${pct(a, 99).toFixed(2)} ms vs SDK ${pct(b, 50).toFixed(2)} / ${pct(b, 99).toFixed(2)} ms; heap ${heapOurs.toFixed(1)} vs ${heapSdk.toFixed(1)} MiB`,
          value: rate(a.length),
          unit: 'calls/s',
          baseline: { name: 'plain SDK', value: rate(b.length) },
          ratio: a.length / b.length,
          target: '≥ 1.00× SDK throughput',
          met: a.length >= b.length,
        });
      }
    }
  } finally {
    await stop(ours.child);
    await stop(sdk.child);
  }
  return rows;
}
