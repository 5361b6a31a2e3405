/**
 * The gateway beside a direct connection, in the same run (ABBA): a forwarded call, one bridged
 * question (a 2025-11-25 host answering a 2026-07-28 server's form), and the memory each held
 * call costs (a 2026-07-28 host in front of a 2025 server, calls left waiting for an answer).
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createGateway } from '../src/gateway/index.ts';
import { form, text } from '../src/schema/index.ts';
import { createServer, httpEntry, listen } from '../src/server/index.ts';
import { abba, heapAfterGc, type Row } from './harness.ts';

const HELD = 1000;

async function host(url: URL, era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'bench-host', version: '1' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  client.setVersionNegotiation({ mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

export default async function run(): Promise<Row[]> {
  const app = createServer({ name: 'bench', version: '1' })
    .tool('echo', { description: 'no question' }, async () => 'ok')
    .tool('ask', { description: 'one question' }, async (_args, ask) => {
      const r = await ask.form('who', form({ name: text() }), { message: 'Name?' });
      return r.action === 'accept' ? r.content.name : 'none';
    });
  const upstream = await listen(httpEntry(app));
  const rows: Row[] = [];
  const group = 'gateway';

  // A forwarded call: the gateway speaks the host's revision (2025-11-25) to the server too.
  {
    const gateway = await createGateway({
      transport: () => new StreamableHTTPClientTransport(upstream.url),
      era: 'legacy',
    });
    const front = await gateway.listen();
    const direct = await host(upstream.url, 'legacy');
    const through = await host(front.url, 'legacy');
    const r = await abba(
      () => through.callTool({ name: 'echo', arguments: {} }),
      () => direct.callTool({ name: 'echo', arguments: {} }),
    );
    rows.push(timeRow(group, 'a forwarded tools/call (HTTP both sides, 2025-11-25)', r, 'direct'));
    await through.close();
    await direct.close();
    await front.close();
    await gateway.close();
  }

  // One bridged question: the server asks in an input_required round (2026-07-28); the gateway
  // pushes it to the host and retries with the answer. Beside: the host asked directly (pushed).
  {
    const gateway = await createGateway({
      transport: () => new StreamableHTTPClientTransport(upstream.url),
      era: 'modern',
    });
    const front = await gateway.listen();
    const direct = await host(upstream.url, 'legacy');
    const through = await host(front.url, 'legacy');
    const r = await abba(
      () => through.callTool({ name: 'ask', arguments: {} }),
      () => direct.callTool({ name: 'ask', arguments: {} }),
    );
    rows.push(
      timeRow(
        group,
        'a call with one bridged question (host 2025-11-25, server 2026-07-28)',
        r,
        'the host asked directly on 2025-11-25',
      ),
    );
    await through.close();
    await direct.close();
    await front.close();
    await gateway.close();
  }

  // Memory per held call: the server (plain v1 SDK, in its own process) pushes a form and waits;
  // the host (2026-07-28) gets its input_required round and does not come back.
  {
    const gateway = await createGateway({
      transport: () =>
        new StdioClientTransport({
          command: process.execPath,
          args: [join(import.meta.dirname, '..', 'test', 'fixtures', 'v1-server.ts')],
          stderr: 'ignore',
        }),
      era: 'legacy',
      // Past the default question rate (10 at once, 30 a minute) the server would get declines.
      limits: {
        held: { maxHeld: HELD * 2, maxHeldPerPrincipal: HELD * 2 },
        questions: { capacity: HELD * 2, perMinute: HELD * 2 },
      },
    });
    const front = await gateway.listen();
    const client = new Client(
      { name: 'bench-host', version: '1' },
      { capabilities: { elicitation: { form: {} } }, inputRequired: { autoFulfill: false } },
    );
    client.setVersionNegotiation({ mode: { pin: '2026-07-28' } });
    await client.connect(new StreamableHTTPClientTransport(front.url));
    const call = (i: number) =>
      client.request(
        { method: 'tools/call', params: { name: 'book', arguments: { restaurant: `r${i}` } } },
        { allowInputRequired: true } as never,
      );
    const first = (await call(0)) as { resultType?: string };
    if (first.resultType !== 'input_required')
      throw new Error(`expected an input_required round, got ${JSON.stringify(first)}`);
    for (let i = 1; i < 20; i++) await call(i);
    const before = heapAfterGc();
    for (let i = 0; i < HELD; i++) await call(i);
    const after = heapAfterGc();
    if (gateway.heldCalls < HELD) throw new Error(`only ${gateway.heldCalls} calls are held`);
    rows.push({
      group,
      name: `memory per held call (${HELD} waiting; gateway, its Client's pending request and the host's side)`,
      value: (after - before) / HELD / 1024,
      unit: 'KiB',
    });
    await client.close();
    await front.close();
    await gateway.close();
  }
  await upstream.close();
  return rows;
}

function timeRow(
  group: string,
  name: string,
  r: Awaited<ReturnType<typeof abba>>,
  baseline: string,
): Row {
  return {
    group,
    name,
    value: r.ours.ms * 1e6,
    unit: 'ns/op',
    baseline: { name: baseline, value: r.baseline.ms * 1e6 },
    ratio: r.ratio,
    range: [r.ratios[0] as number, r.ratios[r.ratios.length - 1] as number],
    cpu: { ours: r.ours.cpuUs, baseline: r.baseline.cpuUs },
  };
}
