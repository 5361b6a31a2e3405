/**
 * A server whose `wait` tool asks for a form and waits, for measuring what a waiting ask costs:
 * `elicit` (createServer + httpEntry, caps raised out of the way), `sdk` (a plain McpServer
 * served by bench/sdk-http.ts) or `sdk-resumable` (the same with the SDK's example event
 * store). `heap` reports the heap after a full GC, so run it with --expose-gc.
 *
 *   node --expose-gc bench/waiting-server.ts <elicit|sdk|sdk-resumable> <port>
 */
import { McpServer } from '@modelcontextprotocol/server';
import { form, text } from '../src/schema/index.ts';
import { createServer, httpEntry, listen } from '../src/server/index.ts';
import { heapAfterGc } from './harness.ts';
import { serveSdk } from './sdk-http.ts';

const [kind, portArg] = process.argv.slice(2);
const port = Number(portArg ?? 0);
const SCHEMA = {
  type: 'object' as const,
  properties: { name: { type: 'string' as const } },
  required: ['name'],
};
const heap = () => String(heapAfterGc());

if (kind === 'elicit') {
  const many = 1_000_000;
  const app = createServer({
    name: 'elicit',
    version: '1',
    limits: { maxPendingPerSession: many, maxPendingPerPrincipal: many, maxPending: many },
  })
    .tool('wait', {}, async (_a, ask) => (await ask.form('name', form({ name: text() }))).action)
    .tool('heap', {}, heap);
  await listen(httpEntry(app, { sessions: { maxSessionsPerPrincipal: many, maxSessions: many } }), {
    port,
  });
} else {
  const sdk = () => {
    const s = new McpServer({ name: 'sdk', version: '1' });
    s.registerTool('wait', {}, async (ctx) => {
      const r = await ctx.mcpReq.elicitInput(
        { message: 'Name?', requestedSchema: SCHEMA },
        { relatedRequestId: ctx.mcpReq.id, timeout: 600_000 },
      );
      return { content: [{ type: 'text', text: String(r.action) }] };
    });
    s.registerTool('heap', {}, () => ({ content: [{ type: 'text', text: heap() }] }));
    return s;
  };
  await serveSdk(sdk, port, { resumable: kind === 'sdk-resumable' });
}
process.stdout.write('ready\n');
