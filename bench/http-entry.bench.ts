/**
 * `npm run bench http-entry`: CPU per modern tools/call through httpEntry against the same app
 * through the SDK's own createMcpHandler (no Host/Origin guard, no legacy routing), interleaved
 * ABBA in one process, in-process requests (no sockets) so only the handlers are measured.
 */
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createServer, httpEntry } from '../src/server/index.ts';
import { median, type Row, toolCallRequest } from './harness.ts';

const app = createServer({ name: 'bench', version: '1' }).tool('hi', {}, async () => 'hello');
const ours = httpEntry(app);
const sdk = createMcpHandler(() => app.build('modern'), { legacy: 'reject' });
const request = toolCallRequest('hi');
const N = Number(process.env.BENCH_HTTP_CALLS ?? 2000);
async function cpuPerCall(fetch: (r: Request) => Promise<Response>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) await (await fetch(request())).text();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / N;
}

export default async function run(): Promise<Row[]> {
  const a = (r: Request) => ours.fetch(r);
  const b = (r: Request) => sdk.fetch(r);
  await cpuPerCall(a);
  await cpuPerCall(b);
  // ABBA, four times: the median of the four ratios, with its range.
  const ratios: number[] = [];
  const oursUs: number[] = [];
  const sdkUs: number[] = [];
  for (let round = 0; round < 4; round++) {
    const a1 = await cpuPerCall(a);
    const b1 = await cpuPerCall(b);
    const b2 = await cpuPerCall(b);
    const a2 = await cpuPerCall(a);
    ratios.push((a1 + a2) / (b1 + b2));
    oursUs.push((a1 + a2) / 2);
    sdkUs.push((b1 + b2) / 2);
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  return [
    {
      group: 'http',
      name: 'modern tools/call CPU through httpEntry',
      value: median(oursUs),
      unit: 'µs CPU/call',
      baseline: { name: 'SDK createMcpHandler, same app', value: median(sdkUs) },
      ratio: median(ratios),
      range: [sorted[0] as number, sorted[sorted.length - 1] as number],
      target: '≤ 1.00× SDK CPU',
      met: median(ratios) <= 1,
    },
  ];
}
