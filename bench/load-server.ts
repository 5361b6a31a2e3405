/**
 * A server for the HTTP load test: a `hello` tool on both eras, `heap` (the heap after a full
 * GC; run with --expose-gc) and `cpu` (the process's CPU time). `elicit`: createServer + httpEntry. `sdk`: the same tool on a plain
 * McpServer served by bench/sdk-http.ts.
 *
 * `sdk-resumable`: the same, its 2025 sessions resumable as elicit's (SEP-1699 event store).
 *
 *   node --expose-gc bench/load-server.ts <elicit|sdk|sdk-resumable> <port>
 */
import { McpServer } from '@modelcontextprotocol/server';
import { createServer, httpEntry, listen } from '../src/server/index.ts';
import { heapAfterGc } from './harness.ts';
import { serveSdk } from './sdk-http.ts';

const [kind, portArg] = process.argv.slice(2);
const port = Number(portArg ?? 0);
const heap = () => String(heapAfterGc());
/** This process's CPU time so far, in µs (user + system). */
const cpu = () => {
  const u = process.cpuUsage();
  return String(u.user + u.system);
};

if (kind === 'elicit') {
  const many = 1_000_000;
  const app = createServer({ name: 'elicit', version: '1' })
    .tool('hello', {}, async () => 'hello')
    .tool('heap', {}, heap)
    .tool('cpu', {}, cpu);
  await listen(httpEntry(app, { sessions: { maxSessionsPerPrincipal: many, maxSessions: many } }), {
    port,
  });
} else {
  const sdk = () => {
    const s = new McpServer({ name: 'sdk', version: '1' });
    s.registerTool('hello', {}, async () => ({ content: [{ type: 'text', text: 'hello' }] }));
    s.registerTool('heap', {}, () => ({ content: [{ type: 'text', text: heap() }] }));
    s.registerTool('cpu', {}, () => ({ content: [{ type: 'text', text: cpu() }] }));
    return s;
  };
  await serveSdk(sdk, port, { resumable: kind === 'sdk-resumable' });
}
process.stdout.write('ready\n');
